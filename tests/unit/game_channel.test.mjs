// The channel between the editor page and the game's frame (pix3net/devserver/page/play.js) and
// the rule that turns the Chrome owner's watchdog reports into codes (judge.js ownerFinding),
// under node:test: which origin runs the game, which messages from the frame are heard, which
// reports are taken.
import assert from "node:assert/strict";
import { test } from "node:test";

import { CHANNEL, checkMessage, otherLoopbackName, withinBounds } from "../../pix3net/devserver/page/play.js";

const JUDGE = globalThis.__PIX3_JUDGE__;

test("the game runs under the other loopback name: another site", () => {
  assert.equal(otherLoopbackName("localhost"), "127.0.0.1");
  assert.equal(otherLoopbackName("127.0.0.1"), "localhost");
  assert.equal(otherLoopbackName("127.3.2.1"), "localhost");
  assert.equal(otherLoopbackName("[::1]"), "localhost");
  assert.equal(otherLoopbackName("game.localhost"), null); // the same site as localhost: no second name
  assert.equal(otherLoopbackName("devbox.example"), null); // a public name: the game shares its origin
});

test("messages from the game's frame: the known types with their shapes, within bounds; the rest dropped", () => {
  const m = (fields) => ({ channel: CHANNEL, ...fields });
  const facts = { url: "http://127.0.0.1:5/", document: {}, loaded: true, scripts: [], frames: { clock: 1, drawn: 1 },
    beat: {}, events: [{ kind: "console", seq: 1 }], dropped: 0, loads: { elements: [], resources: [] } };
  const heard = [
    m({ type: "hello" }),
    m({ type: "beat", frame: 3 }),
    m({ type: "frame", clock: 3, drawn: 2, asked: true, facts: [], dropped: 0 }),
    m({ type: "frame", clock: 3, drawn: 2, facts: [{ kind: "error" }], dropped: 4, sample: { provider: "g", snapshot: { a: 1 }, error: null, live: false } }),
    m({ type: "facts", facts: [{ kind: "dialog" }], dropped: 0 }),
    m({ type: "loaded", facts }),
    m({ type: "left", url: "http://x/", frame: 2 }),
    m({ type: "reply", id: 1, ok: true, value: null }),
  ];
  for (const message of heard) assert.equal(checkMessage(message), message, JSON.stringify(message));
  const dropped = [
    null, "hello", [], { type: "hello" }, { channel: "other", type: "hello" }, m({ type: "call", id: 1, method: "facts" }),
    m({ type: "beat", frame: -1 }), m({ type: "frame", clock: 1 }), m({ type: "frame", clock: 1, drawn: 1, facts: [], dropped: 0, sample: { provider: 3 } }),
    m({ type: "facts", facts: new Array(101).fill({ kind: "console" }), dropped: 0 }),
    m({ type: "facts", facts: [{ level: "error" }], dropped: 0 }),
    m({ type: "loaded", facts: { ...facts, events: "many" } }),
    m({ type: "left", url: 7, frame: 1 }),
    m({ type: "reply", id: "1", ok: true }),
    m({ type: "facts", facts: [{ kind: "console", text: "x".repeat(9 * 1024 * 1024) }], dropped: 0 }),
    m({ type: "hello", extra: new Date() }), // not plain data
  ];
  for (const message of dropped) assert.equal(checkMessage(message), null, JSON.stringify(message)?.slice(0, 200));
});

test("bounds: values, characters and depth", () => {
  assert.equal(withinBounds({ a: [1, "two", null, { b: true }] }), true);
  assert.equal(withinBounds(new Array(10).fill(0), { nodes: 5, chars: 100, depth: 3 }), false);
  assert.equal(withinBounds({ a: "x".repeat(101) }, { nodes: 5, chars: 100, depth: 3 }), false);
  assert.equal(withinBounds({ a: { b: { c: { d: 1 } } } }, { nodes: 50, chars: 100, depth: 3 }), false);
  assert.equal(withinBounds({ f: () => 1 }), false);
});

test("the owner's report of a loop: E_SMOKE_TIMEOUT naming where it spun", () => {
  const report = { kind: "hung", target: "game", where: "frame() at src/game.js:132:31",
    frames: [{ functionName: "frame", url: "http://127.0.0.1:5/src/game.js", line: 132, column: 31 }], heldMs: 2104, extra: 1 };
  const found = JUDGE.ownerFinding(report, { frame: 90 });
  assert.equal(found.code, "E_SMOKE_TIMEOUT");
  assert.equal(found.message, "busy in frame() at src/game.js:132:31: the game held its main thread for 2.1 s at frame 90 (a script stuck in a loop) and the watchdog stopped it.");
  assert.deepEqual([found.where, found.reason, found.target, found.heldMs, found.frames.length], ["frame() at src/game.js:132:31", "busy", "game", 2104, 1]);
  assert.equal("extra" in found, false);
  const nowhere = JUDGE.ownerFinding({ ...report, where: null, frames: [], target: "editor" });
  assert.equal(nowhere.message, "busy in a script the watchdog could not place: a script in the editor page held its main thread for 2.1 s (a script stuck in a loop) and the watchdog stopped it.");
  const evaluated = JUDGE.ownerFinding({ ...report, where: null, target: "editor",
    frames: [{ functionName: "(anonymous)", url: "", line: 1, column: 6 }] });
  assert.equal(evaluated.message, "busy in (anonymous)() of an evaluated script (no source file: a CDP client's Runtime.evaluate or an eval): a script in the editor page held its main thread for 2.1 s (a script stuck in a loop) and the watchdog stopped it.");
});

test("the owner's report of a crash: E_SMOKE_CRASH; any other shape is dropped", () => {
  const crash = JUDGE.ownerFinding({ kind: "crashed", target: "game", reason: "out of memory" }, { frame: 7 });
  assert.deepEqual([crash.code, crash.reason, crash.message],
    ["E_SMOKE_CRASH", "out of memory", "the renderer running the game page crashed during frame 7 (out of memory); the editor page stays."]);
  const hung = { kind: "hung", target: "game", where: null, frames: [], heldMs: 1 };
  for (const bad of [undefined, null, 1, "hung", [], {}, { kind: "hung" }, { ...hung, target: "page" }, { ...hung, heldMs: -1 },
    { ...hung, heldMs: Infinity }, { ...hung, where: "x".repeat(501) }, { ...hung, frames: {} }, { ...hung, frames: [{ functionName: "f" }] },
    { kind: "crashed", target: "editor", reason: "x" }, { kind: "crashed", target: "game", reason: 3 }, { kind: "other", target: "game" }]) {
    assert.equal(JUDGE.ownerFinding(bad), null, JSON.stringify(bad));
  }
});
