// Live edits (pix3net/devserver/page/live.js) under node:test: what the editor page makes of a
// game's filesChanged hook, and its reply to a sync while the game plays.
import assert from "node:assert/strict";
import { test } from "node:test";

import { NO_FILES, afterOffer, offerFiles, syncReply, takesFilesLive } from "../../pix3net/devserver/page/live.js";

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

test("the sync reply while playing: no hook, taken, needs a restart, failed", () => {
  const owner = "agent";
  // no hook: as before, every changed path is pending until play restarts
  let state = afterOffer(NO_FILES, ["a"], { live: false });
  state = afterOffer(state, ["b", "a"], { live: false });
  assert.deepEqual(state, { pending: ["a", "b"], taken: [], ms: null, error: null });
  assert.deepEqual(syncReply(owner, state), { ok: false, reason: "stale", playing: owner, pending: ["a", "b"] });
  assert.deepEqual(syncReply(owner, NO_FILES), { ok: true, playing: owner });
  // the game took them (paths it does not use count as taken care of): ok, with its answer
  state = afterOffer(NO_FILES, ["scenes/a.pix3scene", "notes.md"], { live: true, applied: ["scenes/a.pix3scene"], stale: [], ms: 12 });
  assert.deepEqual(syncReply(owner, state), { ok: true, playing: owner, game: { applied: ["scenes/a.pix3scene"], stale: [], ms: 12 } });
  // a later offer adds to what was taken since the last sync
  state = afterOffer(state, ["sprites/s.png"], { live: true, applied: ["sprites/s.png"], stale: [], ms: 5 });
  assert.deepEqual(state.taken, ["scenes/a.pix3scene", "sprites/s.png"]);
  // the game cannot take one without a restart: that one stays pending, the rest is taken
  state = afterOffer(NO_FILES, ["a", "src/game.js"], { live: true, applied: ["a"], stale: ["src/game.js"], ms: 3 });
  assert.deepEqual(syncReply("designer", state), {
    ok: false, reason: "stale", playing: "designer", pending: ["src/game.js"], game: { applied: ["a"], stale: ["src/game.js"], ms: 3 },
  });
  // what was pending is offered again with the next change: the game may take it now
  state = afterOffer(state, ["b"], { live: true, applied: ["b", "src/game.js"], stale: [], ms: 2 });
  assert.deepEqual(state.pending, []);
  // the hook failed: nothing was taken, the paths are pending and the reply says why
  state = afterOffer(NO_FILES, ["a"], { live: true, error: "boom", ms: 1 });
  assert.deepEqual(syncReply(owner, state), {
    ok: false, reason: "reload_failed", playing: owner, paths: ["a"], pending: ["a"], detail: "The game's filesChanged failed: boom",
  });
  // a later offer that works clears the failure
  state = afterOffer(state, [], { live: true, applied: ["a"], stale: [], ms: 4 });
  assert.deepEqual(syncReply(owner, state).ok, true);
});
