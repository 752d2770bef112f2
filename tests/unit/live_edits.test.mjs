// Live edits (pix3net/devserver/static/live.js) under node:test: what the editor page makes of a
// game's filesChanged hook, and its reply to a sync while the game plays.
import assert from "node:assert/strict";
import { test } from "node:test";

import { offerFiles, syncVerdict, takesFilesLive } from "../../pix3net/devserver/static/live.js";

const game = (filesChanged) => ({ name: "g", snapshot: () => ({}), filesChanged });

test("a game without the hook is not offered anything", async () => {
  assert.equal(takesFilesLive(null), false);
  assert.equal(takesFilesLive({ snapshot: () => ({}) }), false);
  assert.equal(takesFilesLive({ filesChanged: "yes" }), false);
  assert.deepEqual(await offerFiles({ snapshot: () => ({}) }, ["a"]), { live: false });
});

test("the game's answer: what it took, what needs a restart, unknown paths dropped", async () => {
  const seen = [];
  const offered = await offerFiles(
    game(async (paths) => { seen.push(paths); return { applied: ["scenes/a.pix3scene", "elsewhere", 3], stale: ["src/game.js", "src/game.js"] }; }),
    ["scenes/a.pix3scene", "src/game.js", "notes.md"],
  );
  assert.deepEqual(seen, [["scenes/a.pix3scene", "src/game.js", "notes.md"]]);
  assert.deepEqual({ ...offered, ms: 0 }, { live: true, applied: ["scenes/a.pix3scene"], stale: ["src/game.js"], ms: 0 });
  const sync = await offerFiles(game(() => ({})), ["x"]); // a plain (not async) answer is fine
  assert.deepEqual({ ...sync, ms: 0 }, { live: true, applied: [], stale: [], ms: 0 });
});

test("a hook that throws, rejects, answers nonsense or never answers", async () => {
  const cases = [
    [() => { throw new Error("boom"); }, "boom"],
    [async () => { throw new TypeError("bad"); }, "bad"],
    [() => Promise.reject("plain"), "plain"],
    [() => null, "its answer is not an object {applied, stale}"],
    [() => [], "its answer is not an object {applied, stale}"],
    [() => new Promise(() => {}), "no answer within 30 ms"],
  ];
  for (const [hook, error] of cases) {
    const offered = await offerFiles(game(hook), ["a"], { waitMs: 30 });
    assert.equal(offered.live, true);
    assert.equal(offered.error, error);
  }
});

test("the sync reply while playing", () => {
  const owner = "agent";
  // no hook: as before, every changed path is pending until play restarts
  assert.deepEqual(syncVerdict({ owner, pending: ["a"], paths: ["b", "a"], offered: { live: false } }), {
    reply: { ok: false, reason: "stale", playing: owner, pending: ["a", "b"] },
    pending: ["a", "b"],
  });
  assert.deepEqual(syncVerdict({ owner, pending: [], paths: [], offered: null }), { reply: { ok: true, playing: owner }, pending: [] });
  // the game took them all (or does not use some): nothing pending, its answer passed on
  const took = { live: true, applied: ["a"], stale: [], ms: 12 };
  assert.deepEqual(syncVerdict({ owner, pending: ["a"], paths: ["notes.md"], offered: took }), {
    reply: { ok: true, playing: owner, game: { applied: ["a"], stale: [], ms: 12 } },
    pending: [],
  });
  // the game cannot take one without a restart: that one stays pending
  const partly = { live: true, applied: ["a"], stale: ["src/game.js"], ms: 3 };
  assert.deepEqual(syncVerdict({ owner: "designer", pending: [], paths: ["a", "src/game.js"], offered: partly }), {
    reply: { ok: false, reason: "stale", playing: "designer", pending: ["src/game.js"], game: { applied: ["a"], stale: ["src/game.js"], ms: 3 } },
    pending: ["src/game.js"],
  });
  // the hook failed: nothing was taken
  const failed = syncVerdict({ owner, pending: [], paths: ["a"], offered: { live: true, error: "boom", ms: 1 } });
  assert.deepEqual(failed, {
    reply: { ok: false, reason: "reload_failed", playing: owner, paths: ["a"], pending: ["a"], detail: "The game's filesChanged failed: boom" },
    pending: ["a"],
  });
});
