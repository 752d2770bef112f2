// The one judge of a game run under node:test (run by tests/unit/test_page_modules.py): the probe
// (recorder.js) on a fake window driven frame by frame, and the rules (judge.js) as tables of facts
// in, codes and messages out. The same files run in pix3 smoke's page and in the editor page's
// game frame; tests/e2e/test_game_judge.py runs both sides on real pages.
import assert from "node:assert/strict";
import { test } from "node:test";

import "../../pix3net/devserver/page/recorder.js";
import "../../pix3net/devserver/page/judge.js";

const PROBE = globalThis.__PIX3_PROBE__;
const JUDGE = globalThis.__PIX3_JUDGE__;
const ORIGIN = "http://localhost:5173";
const PAGE = `${ORIGIN}/?scene=res%3A%2F%2Fscenes%2Fmain.pix3scene`;
const CTX = { origin: ORIGIN, pageUrl: PAGE };
const settle = () => new Promise((resolve) => setTimeout(resolve, 0)); // a MessageChannel task

// A message channel whose message is a task, like the browser's (node's own ports keep it running).
class TaskChannel {
  constructor() {
    this.port1 = { onmessage: null };
    this.port2 = { postMessage: () => setTimeout(() => this.port1.onmessage?.({ data: 0 }), 0) };
  }
}

// A window the probe can be installed on: animation frames run when the test says, listeners are
// called with the events the test builds, the heartbeat runs when the test calls `beat`.
function fakeWindow() {
  const listeners = new Map();
  const due = new Map();
  let nextId = 0;
  let now = 0;
  const win = {
    location: { href: PAGE, origin: ORIGIN },
    document: { visibilityState: "visible", scripts: [] },
    console: { log() {}, info() {}, warn() {}, error() {} },
    MessageChannel: TaskChannel,
    performance: { now: () => now, getEntriesByType: () => [], getEntriesByName: () => [] },
    navigation: { addEventListener: (type, fn) => win.addEventListener(`navigation:${type}`, fn) },
    setInterval: (fn) => { win.beat = fn; return 1; },
    requestAnimationFrame(callback) {
      if (typeof callback !== "function") throw new TypeError("not a function");
      due.set(++nextId, callback);
      return nextId;
    },
    cancelAnimationFrame: (id) => due.delete(id),
    addEventListener(type, fn) {
      if (!listeners.has(type)) listeners.set(type, []);
      listeners.get(type).push(fn);
    },
    removeEventListener(type, fn) {
      listeners.set(type, (listeners.get(type) ?? []).filter((f) => f !== fn));
    },
    fire(type, event = {}) {
      for (const fn of listeners.get(type) ?? []) fn({ type, target: win, ...event });
    },
    // One animation frame: every callback due runs; a throw is the page's uncaught error.
    async frame(ms = 16) {
      now += ms;
      const running = [...due.values()];
      due.clear();
      for (const callback of running) {
        try { callback(now); } catch (error) { win.fire("error", { error, message: `Uncaught ${error}` }); }
      }
      await settle();
    },
    advance(ms) { now += ms; },
  };
  return win;
}

const kinds = (facts) => facts.events.map((e) => e.kind);

test("frames: the clock counts animation frames, drawn counts frames the game's callbacks ran in", async () => {
  const win = fakeWindow();
  const probe = PROBE.install(win);
  let ticks = 0;
  const loop = () => { ticks += 1; if (ticks < 3) win.requestAnimationFrame(loop); };
  win.requestAnimationFrame(loop);
  for (let i = 0; i < 5; i += 1) await win.frame();
  const facts = probe.facts();
  assert.equal(ticks, 3);
  assert.deepEqual([facts.frames.clock, facts.frames.drawn, facts.frames.last, facts.frames.waiting], [5, 3, 3, 0]);
  assert.equal(facts.frames.requested, true);
});

test("holdUntilLoad and stopAfter: smoke's frames 1..N, then the game's callbacks wait for ever", async () => {
  const win = fakeWindow();
  const reported = [];
  const probe = PROBE.install(win, { holdUntilLoad: true, stopAfter: 3, timings: true, report: (f) => reported.push(f.kind) });
  let ticks = 0;
  const loop = () => { ticks += 1; win.requestAnimationFrame(loop); };
  win.requestAnimationFrame(loop);
  await win.frame();
  assert.equal(ticks, 0); // held until load
  win.fire("load");
  for (let i = 0; i < 6; i += 1) await win.frame();
  const facts = probe.facts();
  assert.equal(ticks, 3);
  assert.deepEqual([facts.frames.clock, facts.frames.drawn, facts.frames.ended], [3, 3, true]);
  assert.equal(facts.timings.steps.length, 3);
  assert.ok(reported.includes("end"));
  assert.deepEqual(facts.events.filter((e) => e.kind === "end").map((e) => e.why), ["done"]);
});

test("pause and resume: held callbacks keep their ids, run again on resume, both idempotent", async () => {
  const win = fakeWindow();
  const probe = PROBE.install(win);
  let ticks = 0;
  const loop = () => { ticks += 1; win.requestAnimationFrame(loop); };
  win.requestAnimationFrame(loop);
  await win.frame();
  probe.pause();
  probe.pause();
  await win.frame();
  await win.frame();
  assert.equal(ticks, 1);
  assert.equal(probe.frame, 1); // paused frames are not counted
  const cancelled = win.requestAnimationFrame(() => { ticks += 100; });
  win.cancelAnimationFrame(cancelled);
  probe.resume();
  probe.resume();
  await win.frame();
  assert.equal(ticks, 2);
  assert.deepEqual([probe.frame, probe.drawn], [2, 2]);
});

test("errors, rejections taken back, console, dialogs answered", async () => {
  const win = fakeWindow();
  const probe = PROBE.install(win);
  win.requestAnimationFrame(() => { throw new Error("boom"); });
  await win.frame();
  const promise = Promise.resolve();
  win.fire("unhandledrejection", { reason: new RangeError("nobody"), promise });
  win.fire("rejectionhandled", { promise });
  win.console.error("bad", { a: 1 });
  win.console.warn("careful");
  assert.equal(win.alert("hi"), undefined);
  assert.equal(win.confirm("sure?"), true);
  assert.equal(win.prompt("name?", "Ada"), "Ada");
  win.fire("error", { error: undefined, message: "SyntaxError: Unexpected token ';'", filename: `${ORIGIN}/broken.js`, lineno: 1, colno: 18 });
  const facts = probe.facts();
  assert.deepEqual(kinds(facts), ["error", "rejection", "handled", "console", "console", "dialog", "dialog", "dialog", "error"]);
  assert.equal(facts.events[0].message, "Error: boom");
  assert.equal(facts.events[0].frame, 1);
  assert.equal(facts.events[3].text, 'bad {"a":1}');
  assert.deepEqual(facts.events.slice(5, 8).map((e) => [e.type, e.text]), [["alert", "hi"], ["confirm", "sure?"], ["prompt", "name?"]]);
  assert.equal(facts.events[8].stack, `SyntaxError: Unexpected token ';'\n    at ${ORIGIN}/broken.js:1:18`);
  const verdict = JUDGE.judge({ ...facts, loaded: true, scripts: [entry(`${ORIGIN}/main.js`)] }, CTX);
  assert.deepEqual(verdict.errors.map((e) => e.code), ["E_SMOKE_SCRIPT", "E_SMOKE_CONSOLE_ERROR", "E_SMOKE_SCRIPT"]);
  assert.deepEqual(verdict.warnings.map((w) => w.code), ["W_SMOKE_CONSOLE_WARN", "W_SMOKE_DIALOG", "W_SMOKE_DIALOG", "W_SMOKE_DIALOG"]);
});

test("navigation away and reload are stopped and recorded; Vite's reload is named; same-document is fine", async () => {
  const win = fakeWindow();
  const probe = PROBE.install(win, { endOnNavigation: true });
  let prevented = 0;
  const navigate = (url, navigationType, extra = {}) => win.fire("navigation:navigate", {
    destination: { url, sameDocument: false }, navigationType, cancelable: true, downloadRequest: null,
    preventDefault: () => { prevented += 1; }, ...extra,
  });
  navigate(`${ORIGIN}/#top`, "push", { destination: { url: `${ORIGIN}/#top`, sameDocument: true } });
  navigate("https://example.com/", "push");
  navigate(PAGE, "reload");
  navigate(`${ORIGIN}/b.zip`, "push", { downloadRequest: "b.zip" });
  navigate(`${ORIGIN}/back`, "traverse", { cancelable: false });
  assert.equal(prevented, 2);
  const facts = probe.facts();
  const navigations = facts.events.filter((e) => e.kind === "navigation");
  assert.deepEqual(navigations.map((e) => [e.url, e.type, e.blocked, e.by]), [
    ["https://example.com/", "push", true, "page"], [PAGE, "reload", true, "page"], [`${ORIGIN}/back`, "traverse", false, "page"],
  ]);
  assert.deepEqual(facts.events.filter((e) => e.kind === "end").map((e) => e.why), ["navigation"]);
  const messages = navigations.map((e) => JUDGE.classify(e, CTX).message);
  assert.deepEqual(messages, [
    "the game page tried to leave for https://example.com/ at frame 0; it was stopped and the run ended.",
    `the game page reloaded itself at frame 0 (${PAGE}); it was stopped and the run ended.`,
    `the game page tried to leave for ${ORIGIN}/back at frame 0; the page could not stop it and the run ended.`,
  ]);
  assert.match(JUDGE.classify({ ...navigations[1], by: "vite" }, CTX).message, /^Vite reloaded the game page at frame 0 \(a file changed/);
  const verdict = JUDGE.judge({ ...facts, loaded: true, scripts: [entry(`${ORIGIN}/main.js`)] }, CTX);
  assert.equal(verdict.fatal.code, "E_SMOKE_NAVIGATION");
});

test("the heartbeat: a late beat is a stall (busy), a hidden page's is not", async () => {
  const win = fakeWindow();
  const probe = PROBE.install(win);
  win.advance(250);
  win.beat();
  win.advance(3100);
  win.beat();
  win.document.visibilityState = "hidden";
  win.advance(5000);
  win.beat();
  const facts = probe.facts();
  assert.deepEqual(facts.events.filter((e) => e.kind === "stall").map((e) => e.ms), [3100]);
  assert.equal(facts.beat.stallMs, 2000);
  const [warning] = JUDGE.judge({ ...facts, loaded: true, scripts: [entry(`${ORIGIN}/main.js`)] }, CTX).warnings;
  assert.deepEqual([warning.code, warning.message], ["W_SMOKE_STALL", "the main thread was busy for 3.1 s at frame 0: no frame was drawn and no timer ran meanwhile (a long loop or a heavy task)."]);
});

// ---- the rules, as tables of facts ----

function facts(over = {}) {
  return {
    url: PAGE, document: { status: 200, type: "text/html" }, loaded: true, visible: true,
    scripts: [{ url: `${ORIGIN}/main.js`, module: true, failed: false }],
    frames: { clock: 5, drawn: 5, last: 5, requested: true, waiting: 1, paused: false, ended: true },
    beat: { sinceMs: 100, stallMs: 2000 }, events: [], dropped: 0, loads: { elements: [], resources: [] },
    ...over,
  };
}
const script = (url, seq = 1, frame = 0) => ({ seq, frame, tag: "script", url, script: true });
const answer = (url, status, type, initiator = "script", seq = 2, frame = 0) => ({ seq, frame, url, initiator, status, type });
const entry = (url, failed = false) => ({ url, module: true, failed });
const BOOTSTRAP = { url: "", module: false, failed: false }; // an inline classic script that ran
const failedEntry = (elements, resources, scripts = elements.map((e) => entry(e.url, true))) => facts({ scripts, loads: { elements, resources } });
const found = (f, ctx = CTX) => JUDGE.judge(f, ctx).errors.map((e) => [e.code, e.message]);

test("load failures: each failing URL once, with its reason", () => {
  const ts = `${ORIGIN}/src/main.ts`;
  assert.deepEqual(found(failedEntry([script(ts)], [answer(ts, 200, "text/plain")])), [[
    "E_SMOKE_LOAD", "the page's script res://src/main.ts did not run: it is TypeScript, which a browser cannot run, and the dev server" +
    " sent it uncompiled (text/plain); TypeScript needs the project's Vite: run npm install in the project.",
  ]]);
  assert.match(found(failedEntry([script(ts)], [answer(ts, 200, "text/plain")]), { ...CTX, advice: "do X" })[0][1], /\(text\/plain\); do X\.$/);
  const gone = `${ORIGIN}/src/gone.js`;
  assert.deepEqual(found(failedEntry([script(gone)], [answer(gone, 404, "text/html")])), [["E_SMOKE_LOAD", "the page's script res://src/gone.js did not load (HTTP 404)."]]);
  // the refused module is the one the entry imports, not the entry
  const main = `${ORIGIN}/main.js`;
  const boss = `${ORIGIN}/games/Boss.tsx`;
  const imported = found(failedEntry([script(main)], [answer(main, 200, "text/javascript"), answer(boss, 200, "text/plain; charset=utf-8", "script", 3)]));
  assert.deepEqual(imported.map(([code, message]) => [code, message.split(": it")[0]]), [["E_SMOKE_LOAD", "the page's script res://games/Boss.tsx did not run"]]);
  assert.match(imported[0][1], /it is TypeScript.*\(text\/plain\)/);
  // a missing import of an inline module; an import of JSON as a module
  const missing = `${ORIGIN}/src/missing.js`;
  assert.deepEqual(found(failedEntry([script("")], [answer(missing, 404, "text/html")])), [["E_SMOKE_LOAD", "the page's script res://src/missing.js did not load (HTTP 404)."]]);
  const json = `${ORIGIN}/levels/one.json`;
  assert.deepEqual(found(failedEntry([script(json)], [answer(json, 200, "application/json")])), [[
    "E_SMOKE_LOAD", "the page's script res://levels/one.json did not run: the browser runs a module only when it is served as JavaScript, and the dev server sent application/json.",
  ]]);
});

test("load failures: no answer (the network's reason when a CDP client saw one), and nothing to say why", () => {
  const far = "http://127.0.0.1:9/x.js";
  const noAnswer = failedEntry([script(far)], [answer(far, 0, "")]);
  assert.deepEqual(found(noAnswer), [["E_SMOKE_LOAD", `the page's script ${far} did not load (no answer).`]]);
  assert.deepEqual(found(noAnswer, { ...CTX, network: { [far]: "net::ERR_CONNECTION_REFUSED" } }), [["E_SMOKE_LOAD", `the page's script ${far} did not load (net::ERR_CONNECTION_REFUSED).`]]);
  const main = `${ORIGIN}/main.js`;
  assert.deepEqual(found(failedEntry([script(main)], [answer(main, 200, "text/javascript")])), [["E_SMOKE_LOAD", "the page's script res://main.js did not run: the browser could not load it or a module it imports."]]);
  assert.deepEqual(found(failedEntry([script("")], [])), [["E_SMOKE_LOAD", `an inline script of the game page ${PAGE} did not run: the browser could not load a module it imports.`]]);
  // a script from another origin that loaded fine reads status 0: it is no culprit
  const cdn = "https://cdn.example/three.js";
  assert.deepEqual(found(failedEntry([script(main)], [answer(main, 200, "text/javascript"), answer(cdn, 0, "")])), [["E_SMOKE_LOAD", "the page's script res://main.js did not run: the browser could not load it or a module it imports."]]);
  // the URL of a failure is kept for the editor's error list
  const [entry] = JUDGE.judge(failedEntry([script(main)], [answer(main, 500, "text/html")]), CTX).errors;
  assert.deepEqual([entry.url, entry.reason], [main, "HTTP 500"]);
});

test("other files the page did not get: warnings for the project's, nothing for the dev server's or other origins", () => {
  const resources = [
    answer(`${ORIGIN}/sprites/coin.png`, 404, "text/html", "img", 2, 1),
    answer(`${ORIGIN}/data/level.json`, 500, "text/html", "fetch", 3, 2),
    answer(`${ORIGIN}/favicon.ico`, 404, "text/html", "other", 4),
    answer(`${ORIGIN}/node_modules/x.png`, 404, "text/html", "img", 5),
    answer("https://cdn.example/x.png", 404, "text/html", "img", 6),
    answer(`${ORIGIN}/@vite/client`, 404, "text/html", "script", 7),
  ];
  const verdict = JUDGE.judge(facts({ loads: { elements: [], resources } }), CTX);
  assert.deepEqual(verdict.warnings.map((w) => [w.code, w.frame, w.message]), [
    ["W_SMOKE_MISSING_RESOURCE", 1, "res://sprites/coin.png does not exist (the page's image request got HTTP 404)."],
    ["W_SMOKE_MISSING_RESOURCE", 2, "res://data/level.json could not be loaded (the page's fetch request got HTTP 500)."],
  ]);
  assert.deepEqual(verdict.errors.map((e) => e.message), [`the page's script ${ORIGIN}/@vite/client did not load (HTTP 404).`]);
});

test("the page: an HTTP error, no script, no script that ran, no frame asked for", () => {
  const notFound = JUDGE.judge(facts({ document: { status: 404, type: "text/html" }, scripts: [] }), CTX);
  assert.deepEqual(notFound.errors.map((e) => e.message), [`the game page ${PAGE} answered HTTP 404; it needs an index.html that starts the game.`]);
  assert.equal(notFound.fatal.code, "E_SMOKE_LOAD");
  assert.equal(notFound.firstFrameOk, false);
  const none = JUDGE.judge(facts({ scripts: [] }), CTX);
  assert.deepEqual(none.errors.map((e) => [e.code, e.frame]), [["E_SMOKE_LOAD", 0]]);
  assert.match(none.errors[0].message, /has no script, so no game code ran; it needs an index\.html that starts the game \(<script type="module" src="…">\)\.$/);
  assert.equal(none.summary, "0 of 0 entry scripts ran, 5 frames drawn");
  const gone = `${ORIGIN}/main.js`;
  const never = JUDGE.judge(failedEntry([script(gone)], [answer(gone, 404, "text/html")]), CTX);
  assert.deepEqual([never.fatal.code, never.summary, never.warnings], ["E_SMOKE_LOAD", "0 of 1 entry script ran, 5 frames drawn", []]);
  // one entry script of two did not run (the other, say, a bootstrap): not a whole game either
  const half = JUDGE.judge(failedEntry([script(gone)], [answer(gone, 404, "text/html")], [BOOTSTRAP, entry(gone, true)]), CTX);
  assert.deepEqual([half.fatal.code, half.summary], ["E_SMOKE_LOAD", "1 of 2 entry scripts ran, 5 frames drawn"]);
  assert.equal(JUDGE.judge(facts(), CTX).fatal, null);
  // no element said so (the editor's probe may not hear the first document's element errors):
  // the answers do — the entry's own, or a module it imports when the game drew nothing
  const refusedTs = `${ORIGIN}/src/main.ts`;
  const unheard = JUDGE.judge(facts({ scripts: [BOOTSTRAP, entry(refusedTs)], loads: { elements: [], resources: [answer(refusedTs, 200, "text/plain")] } }), CTX);
  assert.deepEqual([unheard.errors.map((e) => e.code), unheard.fatal.code, unheard.summary], [["E_SMOKE_LOAD"], "E_SMOKE_LOAD", "1 of 2 entry scripts ran, 5 frames drawn"]);
  const nowhere = `${ORIGIN}/nowhere.js`;
  const graph = (drawn) => JUDGE.judge(facts({ scripts: [BOOTSTRAP, entry(gone)], frames: { clock: 5, drawn, last: drawn, waiting: 0 }, loads: { elements: [], resources: [answer(gone, 200, "text/javascript"), answer(nowhere, 404, "text/html", "script", 3)] } }), CTX);
  assert.deepEqual([graph(0).summary, graph(0).fatal.code], ["1 of 2 entry scripts ran, 0 frames drawn", "E_SMOKE_LOAD"]);
  assert.deepEqual([graph(5).summary, graph(5).fatal, graph(5).errors.map((e) => e.message)], ["2 of 2 entry scripts ran, 5 frames drawn", null, [`the page's script res://nowhere.js did not load (HTTP 404).`]]);
  const idle = JUDGE.judge(facts({ frames: { clock: 2, drawn: 0, last: 0, requested: false, waiting: 0 } }), CTX);
  assert.deepEqual(idle.warnings, [{
    code: "W_SMOKE_NO_FRAMES", frame: 2,
    message: "the game never asked for an animation frame: no requestAnimationFrame callback ran in 2 frames, so the run saw the page load and no game loop.",
  }]);
  assert.match(JUDGE.judge(facts({ frames: { clock: 1, drawn: 0, last: 0, requested: false, waiting: 0 } }), CTX).warnings[0].message, /ran in 1 frame,/);
  assert.deepEqual(JUDGE.judge(facts({ loaded: false, frames: { clock: 0, drawn: 0, last: 0, waiting: 0 } }), CTX).warnings, []);
  assert.equal(JUDGE.judge(facts(), { ...CTX, framesRequested: 5 }).firstFrameOk, true);
  assert.equal(JUDGE.judge(facts({ frames: { clock: 0, drawn: 0, last: 0, waiting: 0 } }), { ...CTX, framesRequested: 0 }).firstFrameOk, true);
});

test("console and runtime words, warnings once per message, logs counted and cut, revoked rejections", () => {
  let seq = 0;
  const con = (level, text, frame = 0) => ({ kind: "console", level, text, frame, seq: ++seq });
  const events = [
    con("log", "hello"), con("info", "world", 2),
    con("error", '[NodeBase] Script "user:StartBoom" threw in onStart: Error: start went wrong'),
    con("error", "[SceneRunner] Error during game update: Error: x"), con("error", "[GameCommands] handler threw"),
    con("warn", "careful"), con("warn", "careful"), con("warn", "Lit is in dev mode. Not recommended!"),
    con("warn", "[SceneLoader] could not read x"),
    con("warn", 'Component type "user:Nope" is not registered yet — kept as pending on node "Hero"'),
    { kind: "rejection", message: "Error: handled later", frame: 0, seq: ++seq },
    { kind: "handled", of: seq, frame: 0, seq: ++seq },
    { kind: "error", message: "plain", frame: 3, seq: ++seq },
    ...Array.from({ length: 45 }, (_, i) => con("log", `line ${i}`)),
  ];
  const verdict = JUDGE.judge(facts({ events }), CTX);
  assert.deepEqual(verdict.errors, [
    { code: "E_SMOKE_SCRIPT", phase: "start", message: "Error: start went wrong", script: "user:StartBoom", frame: 0 },
    { code: "E_SMOKE_TICK", message: "[SceneRunner] Error during game update: Error: x", frame: 0 },
    { code: "E_SMOKE_COMMAND", message: "[GameCommands] handler threw", frame: 0 },
    { code: "E_SMOKE_SCRIPT", message: "plain", frame: 3 },
  ]);
  assert.deepEqual(verdict.warnings, [
    { code: "W_SMOKE_CONSOLE_WARN", frame: 0, message: "careful", count: 2 },
    { code: "W_SMOKE_LOADER", frame: 0, message: "[SceneLoader] could not read x" },
    { code: "W_SMOKE_PENDING_COMPONENT", frame: 0, message: 'user:Nope on node "Hero" is not registered — it never runs.' },
  ]);
  assert.deepEqual([verdict.logs.count, verdict.logs.lines.length, verdict.logs.lines[1]], [47, 40, "[frame 2] world"]);
});

test("dialogs a CDP client answered, a navigation it saw, and why a run timed out", () => {
  const withDialog = JUDGE.judge(facts(), { ...CTX, dialogs: [{ type: "beforeunload", text: "", frame: 4 }] });
  assert.deepEqual(withDialog.warnings.map((w) => [w.code, w.frame]), [["W_SMOKE_DIALOG", 4]]);
  const left = JUDGE.judge(facts(), { ...CTX, left: "about:blank" });
  assert.deepEqual([left.errors[0].code, left.fatal.code], ["E_SMOKE_NAVIGATION", "E_SMOKE_NAVIGATION"]);
  const reason = (over, ctx = {}) => JUDGE.timeoutReason(facts(over), { timedOut: 3, ...ctx });
  assert.equal(reason({ beat: { sinceMs: 3400, stallMs: 2000 } }), "no frame for 3.4 s while the main thread was busy: a script stuck in a loop (at frame 5)");
  // smoke stopped a loop that kept its question waiting 1 s; the heartbeat ran since (under load the
  // loop had not yet lasted the 2 s the heartbeat calls a stall): still a loop, never "idle"
  const stopped = { beat: { sinceMs: 40, lastGapMs: 1730, stallMs: 2000 }, frames: { clock: 4, drawn: 4, last: 4, waiting: 0 } };
  assert.equal(reason(stopped, { stopped: { afterMs: 1000, frame: 3 } }), "no frame for 1.7 s while the main thread was busy: a script stuck in a loop (at frame 3)");
  const later = { ...stopped, beat: { sinceMs: 40, lastGapMs: 250, stallMs: 2000 } };
  assert.equal(reason(later, { stopped: { afterMs: 1000, frame: 3 } }), "no frame for 1.0 s while the main thread was busy: a script stuck in a loop (at frame 3)");
  // where it spun, when the pause could read it (pix3tools/smoke/_spin.py words it)
  const named = { stopped: { afterMs: 1000, frame: 3, where: "frame() at src/game.js:132:31" } };
  assert.equal(reason(later, named), "no frame for 1.0 s while the main thread was busy in frame() at src/game.js:132:31: a script stuck in a loop (at frame 3)");
  assert.equal(reason(later, { stopped: { afterMs: 1000, frame: 3, where: null } }), "no frame for 1.0 s while the main thread was busy: a script stuck in a loop (at frame 3)");
  assert.match(reason(stopped), /^no frame drawn since frame 4 and the main thread was idle/); // without the word that it was stopped
  assert.equal(reason({}, { dialogs: [{ type: "alert", text: "hi", open: true }] }), 'no frame for 3 s: the page was blocked by an alert dialog "hi" that nothing answered');
  assert.match(reason({ loaded: false }), /^the page did not finish loading within 3 s and the main thread was idle/);
  assert.match(reason({ frames: { clock: 9, drawn: 3, last: 3, waiting: 0 } }), /^no frame drawn since frame 3 and the main thread was idle: nothing asked for an animation frame$/);
  const stalled = { events: [{ kind: "stall", ms: 3100, frame: 3, seq: 1 }], frames: { clock: 9, drawn: 3, last: 3, waiting: 0 } };
  assert.match(reason(stalled), /; before that the main thread was busy for 3\.1 s at frame 3 \(a loop that was stopped\)$/);
  assert.match(reason({ frames: { clock: 4, drawn: 4, last: 4, waiting: 1 } }, { framesRequested: 120 }), /^only 4 of 120 frames in 3 s: the frames came too slowly/);
  assert.match(reason({ visible: false }), /the page is hidden/);
  assert.equal(JUDGE.judge(facts({ beat: { sinceMs: 2500, stallMs: 2000 } }), { ...CTX, timedOut: 3 }).timeout.startsWith("no frame for 2.5 s while"), true);
});
