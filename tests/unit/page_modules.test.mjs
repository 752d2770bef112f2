// The editor page's pure modules under node:test (run by tests/unit/test_page_modules.py):
// the inline validator, the dispatcher, pix3_scene's shaping, pix3_game_run's spec and
// predicates, the error buffer.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ANSWER_MS, Agents, RETRY_MS, ago, checkPush } from "../../pix3net/devserver/page/agents.js";
import { createDispatcher, debugObject, toolGroup } from "../../pix3net/devserver/page/bridge.js";
import { ErrorBuffer } from "../../pix3net/devserver/page/errorspanel.js";
import { changedPaths, compare, describePredicate, judge, normalizeSpec, readPath } from "../../pix3net/devserver/page/predicates.js";
import { NO_SCREEN, findNodes, resPath, safeSerialize, sceneTree, shapeScene, toProjectPath } from "../../pix3net/devserver/page/scenetool.js";
import { TOOL_NAMES, TOOLS } from "../../pix3net/devserver/page/tools.js";
import { validateParams } from "../../pix3net/devserver/page/paramschema.js";

const schema = (name) => TOOLS.find((t) => t.name === name).inputSchema;

test("the table: eight tools in order, every schema accepts {} or names its required key", () => {
  assert.deepEqual(TOOL_NAMES, ["pix3_status", "pix3_sync", "pix3_scene", "pix3_play", "pix3_game_run", "pix3_screenshot", "pix3_errors", "pix3_agents"]);
  for (const tool of TOOLS) {
    const problem = validateParams(tool.inputSchema, {});
    const required = tool.inputSchema.required ?? [];
    assert.equal(problem, required.length ? `params needs "${required[0]}"` : null, tool.name);
  }
});

test("the inline validator's messages", () => {
  const cases = [
    ["pix3_play", {}, 'params needs "action"'],
    ["pix3_play", { action: "fly" }, 'params.action must be one of "start", "stop", "restart", "pause", "resume", "status"'],
    ["pix3_play", { action: "start", scenePath: 3 }, "params.scenePath must be of type string"],
    ["pix3_play", { action: "start", force: "yes" }, "params.force must be of type boolean"],
    ["pix3_play", { action: "start", scenePath: undefined }, null],
    ["pix3_scene", { maxDepth: 1.5 }, "params.maxDepth must be an integer"],
    ["pix3_scene", { maxDepth: 0 }, "params.maxDepth must be >= 1"],
    ["pix3_scene", { maxDepth: 9 }, "params.maxDepth must be <= 8"],
    ["pix3_scene", { nodeId: 7 }, "params.nodeId must be of type string"],
    ["pix3_sync", { expect: "abc" }, "params.expect must be of type object"],
    ["pix3_sync", { timeoutMs: 99 }, "params.timeoutMs must be >= 100"],
    ["pix3_sync", { timeoutMs: 120001 }, "params.timeoutMs must be <= 120000"],
    ["pix3_status", { extra: 1 }, 'params has an unknown key "extra"'],
    ["pix3_status", [], "params must be of type object"],
    ["pix3_game_run", { until: [1] }, "params.until[0] must be of type object"],
    ["pix3_game_run", { until: [], whatever: 1 }, null],
    ["pix3_game_run", { until: [], maxFrames: 0 }, "params.maxFrames must be >= 1"],
    ["pix3_game_run", { until: [], fixedDeltaSec: Infinity }, "params.fixedDeltaSec must be of type number"],
    ["pix3_game_run", { until: [], watch: ["a", 2] }, "params.watch[1] must be of type string"],
    ["pix3_screenshot", { target: "page" }, 'params.target must be one of "game", "viewport", "scene"'],
    ["pix3_errors", { since: -1 }, "params.since must be >= 0"],
    ["pix3_errors", { clear: 1 }, "params.clear must be of type boolean"],
  ];
  for (const [name, params, expected] of cases) assert.equal(validateParams(schema(name), params), expected, `${name} ${JSON.stringify(params)}`);
});

test("the dispatcher: unknown tool, null params, a thrown error, keepalive", async () => {
  let now = 1000;
  const seen = [];
  const { call, keepaliveActive } = createDispatcher({
    pix3_status: async (params) => { seen.push(params); return { ok: true }; },
    pix3_errors: async () => { throw new Error("it broke"); },
  }, { clock: () => now });
  assert.deepEqual(await call("pix3_nope"), {
    ok: false, reason: "unknown_tool",
    detail: 'No tool "pix3_nope"; the tools are pix3_status, pix3_sync, pix3_scene, pix3_play, pix3_game_run, pix3_screenshot, pix3_errors, pix3_agents.',
  });
  assert.deepEqual(await call("pix3_sync", {}), { ok: false, reason: "unknown_tool", detail: 'No tool "pix3_sync"; the tools are pix3_status, pix3_sync, pix3_scene, pix3_play, pix3_game_run, pix3_screenshot, pix3_errors, pix3_agents.' });
  assert.equal(keepaliveActive(), false); // refused calls do not count
  assert.deepEqual(await call("pix3_status", null), { ok: true });
  assert.deepEqual(seen, [{}]);
  assert.equal(keepaliveActive(), true);
  now += 60001;
  assert.equal(keepaliveActive(), false);
  assert.equal(keepaliveActive(true), true);
  assert.deepEqual(await call("pix3_errors", {}), { ok: false, reason: "error", detail: "it broke" });
  assert.deepEqual(await call("pix3_status", { extra: 1 }), { ok: false, reason: "invalid_params", detail: 'params has an unknown key "extra"' });
});

test("the discovery group and the debug object", async () => {
  const calls = [];
  const call = async (name, params) => { calls.push([name, params]); return { ok: true, scene: { s: 1 }, node: { nodeId: "n" }, saved: { id: "n" }, screen: { x: 3, y: 4 }, matches: ["m"], pending: { a: 1 } }; };
  const group = toolGroup(call);
  assert.equal(group.name, "pix3");
  assert.deepEqual(group.tools.map((t) => t.name), TOOL_NAMES);
  for (const tool of group.tools) assert.equal(typeof tool.execute, "function");
  await group.tools[3].execute({ action: "status" });
  assert.deepEqual(calls.pop(), ["pix3_play", { action: "status" }]);
  const debug = debugObject(call, { selection: () => "sel", errors: () => [], clearErrors: () => undefined, playStatus: () => "ps" });
  assert.equal(debug.version, 2);
  assert.deepEqual(debug.tools().map((t) => Object.keys(t)), TOOLS.map(() => ["name", "description", "inputSchema"]));
  debug.tools()[0].inputSchema.properties.x = 1; // a copy: the table does not change
  assert.deepEqual(TOOLS[0].inputSchema.properties, {});
  assert.deepEqual(await debug.scene(2), { s: 1 });
  assert.deepEqual(calls.pop(), ["pix3_scene", { maxDepth: 2 }]);
  assert.deepEqual(await debug.node("n"), { nodeId: "n", saved: { id: "n" } });
  assert.deepEqual(await debug.find("x"), ["m"]);
  assert.deepEqual(await debug.screen("n"), { x: 3, y: 4 });
  assert.deepEqual(calls.pop(), ["pix3_scene", { nodeId: "n" }]);
  assert.deepEqual(await debug.pending(), { a: 1 });
  await debug.play.start();
  assert.deepEqual(calls.pop(), ["pix3_play", { action: "start", scenePath: undefined }]);
  await debug.play.stop({ force: true });
  assert.deepEqual(calls.pop(), ["pix3_play", { action: "stop", force: true }]);
  assert.equal(debug.play.status(), "ps");
  assert.ok(Object.keys(debug.help()).includes("pix3_game_run"));
});

test("project paths", () => {
  for (const [input, out] of [["res://scenes/a.pix3scene", "scenes/a.pix3scene"], ["RES://a/b/", "a/b"], ["./././a", "a"], ["//a", "a"], ["a\\b", "a/b"], ["", ""]]) {
    assert.equal(toProjectPath(input), out, input);
  }
  assert.equal(resPath("./scenes/main.pix3scene"), "res://scenes/main.pix3scene");
});

test("safeSerialize", () => {
  assert.deepEqual(safeSerialize({ a: [1, [2, [3]]], _hidden: 1, v: { x: 1, y: 2, z: 3 } }, 2), { a: [1, "[Array(2)]"], v: { x: 1, y: 2, z: 3 } });
  assert.equal(safeSerialize({ a: 1 }, 0), "[Object]");
  assert.deepEqual(safeSerialize({ f: () => 1, u: undefined, b: 10n }, 1), { f: null, u: null, b: 10 });
  const wide = Object.fromEntries(Array.from({ length: 62 }, (_, i) => [`k${i}`, i]));
  assert.equal(safeSerialize(wide, 1)["…"], "(+2 more keys)");
  assert.equal(safeSerialize(Array.from({ length: 150 }, (_, i) => i), 1).length, 100);
});

// An outline as the dev server answers it: `pix3 tree --json` nodes plus `saved`.
const node = (id, type, children = [], saved = {}) => ({ id, type, name: id.toUpperCase(), depth: 0, components: saved.components ?? [], children, saved: { id, type, ...saved } });
const outline = {
  scene: "scenes/main.pix3scene",
  description: null,
  nodes: [
    node("hero", "Group2D", [node("label", "Label2D", [], { properties: { text: "0", transform: { position: [10, 20] } } })], { properties: { width: 321 } }),
    node("cam", "Camera3D", [], { components: [{ type: "user:Follow", config: { speed: 2 } }, { type: "core:Rotate", enabled: false, id: "r" }] }),
  ],
};

test("pix3_scene tree: depth counting", () => {
  const ctx = { path: "res://scenes/main.pix3scene", version: "abc", selection: { nodeIds: [], primaryNodeId: null } };
  const one = shapeScene(outline, { maxDepth: 1 }, ctx);
  assert.deepEqual(one.scene.children.map((c) => [c.nodeId, c.childCount, c.children]), [["hero", 1, undefined], ["cam", undefined, undefined]]);
  const two = shapeScene(outline, { maxDepth: 2 }, ctx);
  assert.equal(two.scene.children[0].children[0].nodeId, "label");
  assert.equal(two.scene.children[0].children[0].childCount, undefined);
  const byDefault = shapeScene(outline, {}, ctx);
  assert.deepEqual(Object.keys(byDefault), ["ok", "path", "scene", "selection"]);
  assert.deepEqual(Object.keys(byDefault.scene), ["nodeId", "type", "name", "visible", "transform", "groups", "componentCount", "properties", "children", "sceneVersion"]);
  assert.equal(byDefault.scene.name, "Scene");
  assert.equal(byDefault.scene.sceneVersion, "abc");
  const hero = byDefault.scene.children[0];
  assert.deepEqual(Object.keys(hero), ["nodeId", "type", "name", "visible", "transform", "groups", "componentCount", "properties", "children"]);
  assert.equal(hero.properties.width, 321);
  assert.deepEqual(hero.children[0].transform, { position: { x: 10, y: 20, z: 0 }, rotation: null, scale: null });
  assert.equal(sceneTree({ ...outline, description: "Entry scene" }).name, "Entry scene");
});

test("pix3_scene nodeId and find", () => {
  const ctx = { path: "res://scenes/main.pix3scene", version: null, selection: {} };
  const answer = shapeScene(outline, { nodeId: "cam", maxDepth: 1 }, ctx);
  assert.deepEqual(Object.keys(answer), ["ok", "node", "saved", "screen", "path", "note"]);
  assert.equal(answer.note, NO_SCREEN);
  assert.equal(answer.screen, null);
  const placed = shapeScene(outline, { nodeId: "hero" }, { ...ctx, screenOf: (id) => ({ screen: { x: 1, y: 2 }, screenRect: { x: 0, y: 0, width: 2, height: 4 }, id }) });
  assert.deepEqual(Object.keys(placed), ["ok", "node", "saved", "screen", "screenRect", "path"]);
  assert.deepEqual([placed.screen, placed.screenRect], [{ x: 1, y: 2 }, { x: 0, y: 0, width: 2, height: 4 }]);
  assert.deepEqual(answer.node.components, [
    { index: 0, type: "user:Follow", id: null, enabled: true, config: { config: { speed: 2 } } },
    { index: 1, type: "core:Rotate", id: "r", enabled: false, config: {} },
  ]);
  assert.deepEqual(answer.saved.components[0], { type: "user:Follow", config: { speed: 2 } });
  assert.deepEqual(shapeScene(outline, { nodeId: "ghost" }, ctx), { ok: false, reason: "not_found", detail: 'No node "ghost" in the scene.', path: ctx.path });
  assert.deepEqual(findNodes(outline, "label").map((m) => m.nodeId), ["label"]);
  assert.deepEqual(findNodes(outline, "").map((m) => m.nodeId), ["hero", "label", "cam"]);
  assert.deepEqual(findNodes(outline, "CAMERA"), [{ nodeId: "cam", type: "Camera3D", name: "CAM" }]);
  assert.deepEqual(shapeScene(outline, { nodeId: "hero", find: "x" }, ctx).node.nodeId, "hero"); // nodeId wins
});

test("pix3_game_run spec: defaults, clamps and refusals", () => {
  const { spec, notes } = normalizeSpec({ until: [{ kind: "frames", n: 3 }], maxFrames: 99999, maxWallMs: 5, settleMs: -3, fixedDeltaSec: 0.1, watch: ["x"] });
  assert.deepEqual(spec, { until: [{ kind: "frames", n: 3, op: undefined }], fail: [], maxFrames: 3600, maxWallMs: 100, settleMs: 0, pauseOnOutcome: true });
  assert.equal(notes.length, 2);
  assert.deepEqual(normalizeSpec({ until: [{ kind: "frames", n: 1 }], maxFrames: "x" }).spec.maxFrames, 600);
  const refused = (params) => normalizeSpec(params).error;
  assert.match(refused({ until: [] }), /needs at least one `until` predicate/);
  assert.match(refused({ until: [{ kind: "frames", n: 1 }], fixedDeltaSec: 0 }), /finite number greater than 0/);
  assert.match(refused({ until: [{ kind: "frames", n: 1 }], input: {} }), /^`input` is refused/);
  assert.match(refused({ bot: { name: "dodge" } }), /^`bot` needs the Pix3 runtime/);
  assert.match(refused({ until: [{ kind: "nodeGone", name: "Enemy" }] }), /^until\[0\] nodeGone needs the Pix3 runtime's live node graph/);
  assert.match(refused({ until: [{ kind: "frames", n: 1 }], fail: [{ kind: "nodeProperty", name: "S", path: "text", op: "eq", value: 1 }] }), /^fail\[0\] nodeProperty needs/);
  assert.match(refused({ until: [{ kind: "axis", name: "H", op: "lt", value: 0 }] }), /^until\[0\] axis needs the runtime's input axes/);
  assert.match(refused({ until: [{ kind: "teleport" }] }), /^until\[0\] has an unknown predicate kind "teleport"/);
  assert.match(refused({ until: [{ kind: "gameState", path: "a", op: "~", value: 1 }] }), /"op" must be one of/);
  assert.match(refused({ until: [{ kind: "gameState", path: "a", op: "eq" }] }), /needs a "value"/);
  assert.equal(normalizeSpec({ until: [{ kind: "gameState", path: "frame", op: ">=", value: 100 }] }).spec.until[0].op, "gte");
});

test("predicates", () => {
  assert.equal(readPath({ a: [{ b: 3 }] }, "a.0.b"), 3);
  assert.equal(readPath({ a: [1] }, "a.x"), undefined);
  assert.equal(compare("eq", undefined, null), true);
  assert.equal(compare("ne", { a: 1 }, { a: 1 }), false);
  assert.equal(compare("gte", 3, 3), true);
  assert.equal(compare("gt", "3", 2), false);
  assert.equal(compare("contains", "hello", "ell"), true);
  assert.equal(compare("contains", [{ a: 1 }], { a: 1 }), true);
  const state = (snapshot) => ({ provider: "g", snapshot, error: null });
  const facts = { frame: 7, state: state({ score: 4 }), baseline: state({ score: 1 }), newErrors: [{ message: "Uncaught Error: boom" }] };
  assert.deepEqual(judge({ kind: "gameState", path: "score", op: "gte", value: 4 }, facts), { met: true, detail: "score = 4 (wanted gte 4)" });
  assert.deepEqual(judge({ kind: "gameStateChanged", path: "score", by: 3 }, facts), { met: true, detail: "score 1 → 4 (wanted a change of +3)" });
  assert.equal(judge({ kind: "gameStateChanged", path: "score", by: -1 }, facts).met, false);
  assert.deepEqual(judge({ kind: "newErrors" }, facts), { met: true, detail: "1 new error: Uncaught Error: boom" });
  assert.equal(judge({ kind: "newErrors", min: 2 }, facts).met, false);
  assert.deepEqual(judge({ kind: "frames", n: 7 }, facts), { met: true, detail: "frame 7 of 7" });
  assert.deepEqual(judge({ kind: "gameState", path: "x", op: "eq", value: 1 }, { ...facts, state: null }).met, false);
  assert.equal(describePredicate({ kind: "gameState", path: "score", op: "eq", value: 3 }), "gameState score eq 3");
  assert.equal(describePredicate({ kind: "gameStateChanged", path: "score", by: 1 }), "gameStateChanged score by +1");
  assert.equal(describePredicate({ kind: "newErrors", min: 2 }), "newErrors >= 2");
  assert.equal(describePredicate({ kind: "frames", n: 300 }), "frames 300");
  assert.deepEqual(changedPaths({ a: 1, b: { c: 2, d: { e: 1 } } }, { a: 2, b: { c: 2, d: { e: 2 } } }), { a: [1, 2] });
});

test("the error buffer: a ring of 200, since, clear, run marks", () => {
  let now = 0;
  const buffer = new ErrorBuffer({ clock: () => (now += 1) });
  for (let i = 0; i < 205; i += 1) buffer.push({ source: "console.error", message: `e${i}`, origin: "page" });
  assert.equal(buffer.length, 200);
  assert.equal(buffer.list()[0].message, "e5");
  assert.deepEqual(buffer.list(204).map((e) => e.message), ["e204"]);
  const mark = buffer.pushed;
  buffer.frameOf = () => 12;
  buffer.push({ source: "window.onerror", message: "late", origin: "game", stack: "at x" });
  assert.deepEqual(buffer.since(mark), [{ at: 206, source: "window.onerror", message: "late", stack: "at x", origin: "game", frame: 12 }]);
  buffer.clear();
  assert.deepEqual(buffer.list(), []);
  assert.deepEqual(buffer.since(mark), []);
});

test("a tool called before the page's scene list arrived waits for it", async () => {
  const { Workbench } = await import("../../pix3net/devserver/page/workbench.js");
  let release;
  const arrived = new Promise((resolve) => { release = resolve; });
  const fetched = [];
  globalThis.fetch = async (url) => {
    fetched.push(url);
    await arrived;
    return { json: async () => ({ scenes: ["scenes/main.pix3scene"], defaultScene: "scenes/main.pix3scene" }) };
  };
  const started = [];
  const player = {
    playing: false,
    session: null,
    status: () => ({ playing: false, status: "stopped", playOwner: null }),
    start: async (scene) => { started.push(scene); return true; },
  };
  const bench = new Workbench({ host: { unsaved: new Map() }, player, errors: new ErrorBuffer() });
  const tools = bench.executes(() => false);
  const listing = bench.firstList(); // as main.js does when the page loads
  const answer = tools.pix3_play({ action: "start" }); // the agent's first call, before the list
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(started, []); // still waiting for the list, not refused
  release();
  const played = await answer;
  assert.equal(played.ok, true, JSON.stringify(played));
  assert.deepEqual(started, ["res://scenes/main.pix3scene"]);
  assert.equal(bench.firstList(), listing); // read once
  assert.deepEqual(fetched, ["/__pix3/api/scenes"]);
  delete globalThis.fetch;
});

test("the Agents view: the owner's push is checked field by field, pix3_agents waits for it or says no_owner", async () => {
  const thumbnail = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ==";
  const push = {
    clients: [{
      client: 3, name: "alpha", userAgent: "Puppeteer", since: "2026-12-07T07:00:00Z", keep: false, calls: 12, errors: 1,
      callsPerSecond: 4.5, lastMethod: "Runtime.evaluate", lastAgoMs: 20, recent: [{ params: { token: "x" } }],
      tabs: [{ title: "red", url: "data:text/html,red", editor: false, thumbnail, targetId: "T1" }],
    }],
    editorTab: { answering: true, url: "http://x" },
  };
  const body = checkPush(JSON.stringify(push));
  assert.deepEqual(body, {
    clients: [{
      client: 3, name: "alpha", userAgent: "Puppeteer", since: "2026-12-07T07:00:00Z", keep: false, calls: 12, errors: 1,
      callsPerSecond: 4.5, lastMethod: "Runtime.evaluate", lastAgoMs: 20,
      tabs: [{ title: "red", url: "data:text/html,red", editor: false, thumbnail }],
    }],
    editorTab: { answering: true },
  });
  // markup in a name, a thumbnail that is not a JPEG data URL, a client without a number
  const odd = { clients: [{ client: 4, name: "<b>x</b>", tabs: [{ title: "t", thumbnail: "javascript:alert(1)" }] }] };
  assert.deepEqual(checkPush(JSON.stringify(odd)).clients[0].name, null);
  assert.equal(checkPush(JSON.stringify(odd)).clients[0].tabs[0].thumbnail, null);
  for (const bad of ["nope", "{}", JSON.stringify({ clients: [{ client: "1", tabs: [] }] }), JSON.stringify({ clients: [{ client: 0, tabs: [] }] })]) {
    assert.equal(checkPush(bad), null, bad);
  }

  assert.deepEqual([ago(null), ago(12), ago(3400)], ["", " 12 ms ago", " 3.4 s ago"]);
  assert.deepEqual([ago(12_900), ago(59_999), ago(150_000)], [" 12 s ago", " 59 s ago", " 2 min ago"]);

  let now = 0;
  let changed = 0;
  let bound = true; // the owner's binding is there
  const told = [];
  const send = (text) => { if (bound) told.push(JSON.parse(text)); return bound; };
  const agents = new Agents({ clock: () => now, onChange: () => { changed += 1; }, send });
  agents.kick(3); agents.kick(-1); agents.kick(2.5);
  assert.deepEqual(told, [{ wanted: false, kicks: [3] }]); // a kick is told at once, nothing else
  const waiting = agents.tool();
  assert.deepEqual(told.at(-1), { wanted: true, kicks: [] }); // a call waits: the owner is told
  const second = agents.tool();
  assert.equal(told.length, 2); // already told
  assert.equal(agents.receive("not json"), true); // ignored; still wanted
  assert.equal(agents.receive(JSON.stringify(push)), false); // answered: the owner may stop
  assert.deepEqual(await waiting, { ok: true, ...body });
  assert.deepEqual(await second, { ok: true, ...body });
  assert.equal(changed, 1);
  now = 500; // fresh: answered at once, the owner not told
  assert.deepEqual(await agents.tool(), { ok: true, ...body });
  assert.equal(told.length, 2);
  agents.setOpen(true);
  assert.deepEqual(told.at(-1), { wanted: true, kicks: [] });
  assert.equal(agents.receive(JSON.stringify(push)), true); // the panel shows: keep pushing
  agents.setOpen(false);
  assert.deepEqual(told.at(-1), { wanted: false, kicks: [] });
  // No binding yet (the page just loaded): tried again until it comes.
  bound = false;
  now = 5000;
  const early = agents.tool();
  await new Promise((resolve) => setTimeout(resolve, RETRY_MS + 50));
  const before = told.length;
  bound = true;
  await new Promise((resolve) => setTimeout(resolve, RETRY_MS + 50));
  assert.deepEqual(told.slice(before), [{ wanted: true, kicks: [] }]);
  agents.receive(JSON.stringify(push));
  assert.equal((await early).ok, true);
  // An owner heard the page but is slow: the call waits past ANSWER_MS for its push.
  now = 7000;
  const slow = agents.tool();
  setTimeout(() => agents.receive(JSON.stringify(push)), ANSWER_MS + 200);
  assert.equal((await slow).ok, true);
  // Stale and nobody pushes: no_owner after ANSWER_MS when no binding took the call, and after
  // ownerMs when one did; either way the owner is told the page no longer waits.
  const lonely = new Agents({ clock: () => now, send: () => false });
  now = 9000;
  let started = Date.now();
  let refused = await lonely.tool();
  assert.equal(refused.reason, "no_owner");
  assert.match(refused.detail, /No pix3 Chrome owner answered within 2000 ms/);
  assert.ok(Date.now() - started >= ANSWER_MS - 50 && Date.now() - started < ANSWER_MS + 500);
  const busy = new Agents({ clock: () => now, send, ownerMs: ANSWER_MS + 300 });
  started = Date.now();
  refused = await busy.tool();
  assert.match(refused.detail, /heard this page but sent no agents within 2300 ms/);
  assert.ok(Date.now() - started >= ANSWER_MS + 250);
  assert.deepEqual(told.at(-1), { wanted: false, kicks: [] });
});

test("the Agents view: a tab the owner sends without a picture keeps the one the page holds for its key", () => {
  const red = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ==";
  const blue = "data:image/jpeg;base64,/9j/4BBB";
  const push = (tabs) => JSON.stringify({ clients: [{ client: 1, tabs }], editorTab: null });
  const pictures = (body) => body.clients[0].tabs.map((t) => t.thumbnail);
  const held = new Map();
  assert.deepEqual(pictures(checkPush(push([{ key: 1, thumbnail: red }, { key: 2, thumbnail: null }]), held)), [red, null]);
  assert.deepEqual(pictures(checkPush(push([{ key: 1 }, { key: 2 }]), held)), [red, null]); // both held
  assert.deepEqual(pictures(checkPush(push([{ key: 1, thumbnail: blue }, { key: 3 }]), held)), [blue, null]);
  assert.deepEqual([...held], [[1, blue], [3, null]]); // 2 left: forgotten
  assert.equal(checkPush("nope", held), null);
  assert.deepEqual([...held], [[1, blue], [3, null]]); // a push refused changes nothing held
  assert.deepEqual(pictures(checkPush(push([{ key: 1 }]))), [null]); // nothing held: no picture

  let changed = 0;
  const agents = new Agents({ clock: () => 0, onChange: () => { changed += 1; } });
  agents.receive(push([{ key: 7, thumbnail: red }]));
  agents.receive(push([{ key: 7 }]));
  assert.equal(agents.last.body.clients[0].tabs[0].thumbnail, red);
  assert.equal(changed, 2);
});
