// Play sessions: the project's game page (`/?scene=<res path>`, docs/game-page.md) run apart from
// the workbench, watched by the shared probe (recorder.js) and judged by the shared rules (judge.js)
// — the same two files `pix3 smoke` runs in its page.
//
// The game's frame is the dev server's /__pix3/game/ (gameframe.js) under the other loopback name
// (localhost ⇄ 127.0.0.1): another site, so Chrome runs it in a renderer process of its own. A
// loop, a memory blow-up or a crash in the game stops that process, never this page's thread, and
// the game cannot reach this page's objects (another origin). gameframe.js holds the game page in
// a frame of its own origin, installs the probe there before the game's first script, and tells
// this page what it saw over postMessage: both sides pin the other's origin, and every message is
// checked (type, shape, size) before it is used. This page keeps a mirror of the probe (frames,
// facts, the snapshot) and judges from it, so a game that stopped answering is judged all the same.
// The frame is sandboxed without allow-modals: no dialog of the game is ever shown.

import "./judge.js";

const JUDGE = globalThis.__PIX3_JUDGE__;

export const LOAD_WAIT_MS = 15000;
// What a game may do in its frame: everything but open dialogs and navigate the editor page.
export const GAME_SANDBOX = "allow-scripts allow-same-origin allow-forms allow-pointer-lock allow-popups " +
  "allow-downloads allow-orientation-lock allow-presentation";
const GAME_ALLOW = "fullscreen; autoplay; gamepad";
const LIVE_CALL_WAIT_MS = 60000; // live.js bounds the game's filesChanged itself (LIVE_WAIT_MS)
const RELOAD_GAP_MS = 1000; // a game that reloads itself faster than this is not followed (a reload loop)
export const CHANNEL = "pix3-game"; // gameframe.js tags every message with it
export const CALL_WAIT_MS = 1000;
// A frame silent this long is busy (the probe's heartbeat beats every 250 ms; its stall is 2 s):
// pix3_play start stops waiting for its load.
export const SILENT_MS = 2000; // a question to the game's frame (facts, a snapshot) waits this long, then the mirror answers
// Bounds of what the game's frame may send: a message past them is dropped whole.
const MESSAGE_LIMITS = { nodes: 200000, chars: 8 * 1024 * 1024, depth: 12 }; // a probe's 5 000 events, stacks included
const MAX_EVENTS = 5000; // as the probe keeps per document
const BATCH_LIMIT = 100; // facts per message (gameframe.js sends at most this many)

// The game's origin: the editor's own with the other loopback name, so another site. The pair is
// fixed (pix3net/wire/hostrule.py): the editor page under localhost (the dev server sends a browser asking
// for it under any other loopback name there), the game under 127.0.0.1, where the dev server
// refuses a browser's API calls. A page opened under a public name has no second name: the game
// shares its origin (and process).
export const EDITOR_NAME = "localhost";
export const GAME_NAME = "127.0.0.1";
export function otherLoopbackName(name) {
  if (name === EDITOR_NAME) return GAME_NAME;
  if (name === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) return EDITOR_NAME;
  return null;
}

export function gameOrigin(loc = location) {
  const other = otherLoopbackName(loc.hostname);
  return other ? `${loc.protocol}//${other}${loc.port ? `:${loc.port}` : ""}` : loc.origin;
}

export function gameUrl(scene) {
  return `/?scene=${encodeURIComponent(scene)}`;
}

// The context the rules are given for a game in this page (the game's own origin: its files).
export function judgeContext(session) {
  return { origin: session.origin, pageUrl: new URL(session.url, session.origin).href };
}

// Whether `value` is plain data within the bounds (no more than `nodes` values, `chars` string
// characters, `depth` levels): what a structured clone from the game's frame may hold.
export function withinBounds(value, limits = MESSAGE_LIMITS) {
  let nodes = 0;
  let chars = 0;
  const walk = (v, depth) => {
    nodes += 1;
    if (nodes > limits.nodes || depth > limits.depth) return false;
    if (v === null || typeof v === "number" || typeof v === "boolean" || v === undefined) return true;
    if (typeof v === "string") {
      chars += v.length;
      return chars <= limits.chars;
    }
    if (typeof v !== "object") return false;
    const proto = Object.getPrototypeOf(v);
    if (Array.isArray(v)) return v.every((item) => walk(item, depth + 1));
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.keys(v).every((key) => {
      chars += key.length;
      return walk(v[key], depth + 1);
    });
  };
  return walk(value, 0);
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isCount = (v) => Number.isInteger(v) && v >= 0;

// A probe's facts() as the rules read them, or null.
function factsOk(f) {
  return isObject(f) && typeof f.url === "string" && isObject(f.document) && typeof f.loaded === "boolean" &&
    Array.isArray(f.scripts) && f.scripts.every(isObject) && isObject(f.frames) && isCount(f.frames.clock) &&
    isCount(f.frames.drawn) && isObject(f.beat) && Array.isArray(f.events) && f.events.length <= MAX_EVENTS &&
    f.events.every((e) => isObject(e) && typeof e.kind === "string") && isObject(f.loads) &&
    Array.isArray(f.loads.elements) && Array.isArray(f.loads.resources) &&
    f.loads.resources.every((r) => isObject(r) && typeof r.url === "string");
}

function sampleOk(s) {
  return s === null || (isObject(s) && typeof s.provider === "string" && (s.error === null || typeof s.error === "string") &&
    typeof s.live === "boolean");
}

const factsBatchOk = (data) => Array.isArray(data.facts) && data.facts.length <= BATCH_LIMIT && isCount(data.dropped) &&
  data.facts.every((f) => isObject(f) && typeof f.kind === "string");

// One message from the game's frame, checked: the message, or null (dropped).
export function checkMessage(data) {
  if (!isObject(data) || data.channel !== CHANNEL || typeof data.type !== "string") return null;
  if (!withinBounds(data)) return null;
  switch (data.type) {
    case "hello": return data;
    case "beat": return isCount(data.frame) ? data : null;
    case "frame":
      return isCount(data.clock) && isCount(data.drawn) && (data.sample === undefined || sampleOk(data.sample)) &&
        factsBatchOk(data) ? data : null;
    case "facts":
      return factsBatchOk(data) ? data : null;
    case "loaded": return factsOk(data.facts) ? data : null;
    case "left": return typeof data.url === "string" && isCount(data.frame) ? data : null;
    case "reply": return isCount(data.id) && typeof data.ok === "boolean" ? data : null;
    default: return null;
  }
}

const EMPTY_FACTS = (url) => ({
  url, document: { status: null, type: null }, loaded: false, visible: true, scripts: [],
  frames: { clock: 0, drawn: 0, last: 0, requested: false, waiting: 0, paused: false, ended: false },
  beat: { sinceMs: 0, lastGapMs: 0, stallMs: 2000 }, events: [], dropped: 0, loads: { elements: [], resources: [] },
});

// This page's side of one game frame: the channel, and a mirror of the frame's probe (what it
// last said), which answers when the game does not.
class GameFrame {
  constructor(iframe, origin, url) {
    this.iframe = iframe;
    this.origin = origin;
    this.url = url;
    this.clock = 0;
    this.drawnCount = 0;
    this.known = EMPTY_FACTS(new URL(url, origin).href); // the latest facts() the frame sent
    this.events = []; // facts reported since (the mirror's events beyond `known`)
    this.dropped = 0;
    this.sampled = null; // the latest snapshot sample
    this.heard = performance.now(); // when the frame last said anything
    this.asked = false; // the game asked for another frame when the latest one ended
    this.hello = false; // the frame's document of ours runs (it said so before the game's first script)
    this.nextId = 0;
    this.waiting = new Map(); // call id → {resolve, reject}
    this.endListeners = new Set();
    this.ended = false;
  }

  get frame() { return this.clock; }
  // How long the frame has said nothing since it ran (0 before it said hello): a game stuck in a
  // loop, or a renderer gone, is silent; a running or idle one beats every 250 ms.
  get silentMs() { return this.hello ? performance.now() - this.heard : 0; }
  get drawn() { return this.drawnCount; }

  // The facts as the rules read them: the latest the frame sent, the events reported since, the
  // frames counted since, and how long the frame has been silent (a busy or dead renderer says
  // nothing: the heartbeat's `sinceMs`).
  facts() {
    const known = this.known;
    const last = known.events.length ? known.events[known.events.length - 1].seq : 0;
    const events = [...known.events, ...this.events.filter((e) => e.seq > last)].slice(0, MAX_EVENTS);
    const silent = Math.round(performance.now() - this.heard);
    // Silent after a frame that asked for the next one: the game is stuck in that next frame (the
    // probe in the game counts a frame when it begins; a message sent in a task that never ends is
    // never delivered, so the frame's own word cannot come).
    const stuck = silent >= SILENT_MS && this.asked ? 1 : 0;
    const clock = Math.max(known.frames.clock, this.clock + stuck);
    return {
      ...known,
      frames: { ...known.frames, clock, drawn: Math.max(known.frames.drawn, this.drawnCount) },
      beat: { ...known.beat, sinceMs: Math.max(silent, 0) },
      events,
      dropped: known.dropped + this.dropped,
    };
  }

  // Asks the frame; rejects after `waitMs` (a busy or dead game answers nothing).
  call(method, args, waitMs = CALL_WAIT_MS) {
    if (this.ended) return Promise.reject(new Error("the game frame is gone"));
    if (this.silentMs >= SILENT_MS) return Promise.reject(new Error("the game is not answering (busy, or its renderer is gone)"));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the game did not answer within ${waitMs} ms`));
      }, waitMs);
      this.waiting.set(id, {
        resolve: (value) => { clearTimeout(timer); resolve(value); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      });
      this.iframe.contentWindow?.postMessage({ channel: CHANNEL, type: "call", id, method, args }, this.origin);
    });
  }

  tell(method, args) {
    this.call(method, args).catch(() => {});
  }

  // The latest facts, asked for (the mirror's when the game does not answer).
  async refresh() {
    try {
      const facts = await this.call("facts");
      if (factsOk(facts)) this.known = facts;
    } catch { /* the mirror answers */ }
    return this.facts();
  }

  async sampleNow() {
    try {
      const sample = await this.call("sample");
      if (sampleOk(sample)) this.sampled = sample;
    } catch { /* the last sample stands */ }
    return this.sampled;
  }

  pause() { this.tell("pause"); }
  resume() { this.tell("resume"); }
  end() {
    if (this.ended) return;
    this.tell("end");
    this.ended = true;
    for (const { reject } of this.waiting.values()) reject(new Error("the game frame is gone"));
    this.waiting.clear();
  }

  onFrameEnd(listener) {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  take({ facts, dropped }, session) {
    this.dropped += dropped;
    for (const fact of facts) {
      if (this.events.length < MAX_EVENTS && fact.kind !== "element") this.events.push(fact);
      session.onFact(fact);
    }
  }

  // A checked message; `session` hears facts, loads and a navigation it could not stop.
  receive(message, session) {
    this.heard = performance.now();
    switch (message.type) {
      case "hello":
        this.hello = true;
        break;
      case "beat":
        this.clock = Math.max(this.clock, message.frame);
        break;
      case "frame":
        this.clock = message.clock;
        this.drawnCount = message.drawn;
        this.asked = message.asked === true;
        if (message.sample !== undefined) this.sampled = message.sample;
        this.take(message, session);
        for (const listener of [...this.endListeners]) listener(message.clock, message.sample);
        break;
      case "facts":
        this.take(message, session);
        break;
      case "loaded":
        this.known = message.facts;
        session.onLoaded();
        break;
      case "left":
        session.leftUnwatched(message.url, message.frame);
        break;
      case "reply": {
        const waiter = this.waiting.get(message.id);
        if (!waiter) break;
        this.waiting.delete(message.id);
        if (message.ok) waiter.resolve(message.value);
        else waiter.reject(new Error(typeof message.error === "string" ? message.error : "the game's call failed"));
        break;
      }
      default:
        break;
    }
  }
}

// What pix3_errors lists for one fact of the game (null: nothing to list).
function errorEntry(fact, finding) {
  const code = finding ? finding.code : undefined;
  switch (fact.kind) {
    case "error": return { source: "window.onerror", message: fact.text, stack: fact.stack, code };
    case "rejection": return { source: "unhandledrejection", message: fact.message, stack: fact.stack, code };
    case "console":
      if (fact.level !== "error" && fact.level !== "warn") return null;
      return { source: `console.${fact.level}`, message: fact.text, stack: fact.stack, code };
    case "dialog": case "navigation": case "stall":
      return { source: fact.kind, message: finding.message, code, url: finding.url, reason: finding.reason };
    default: return null;
  }
}

// One play session: a frame running the game, made again when the game page reloads. Its probe
// (the mirror, GameFrame) counts the page's animation frames (`frame`) and the frames the game
// drew (`drawn`); `frameEnd` listeners run once a frame's callbacks are done (with the snapshot
// sampled in it, if any), `facts` listeners get every fact of the game as it arrives, `reports`
// listeners what the Chrome owner's watchdog found (ownerFinding).
class Session {
  constructor({ stage, scene, owner, errors, clock, onChange }) {
    this.stage = stage;
    this.scene = scene;
    this.owner = owner;
    this.errors = errors;
    this.onChange = onChange;
    this.startedAt = clock();
    this.url = gameUrl(scene);
    this.origin = gameOrigin();
    this.paused = false;
    this.ended = false;
    this.navigations = []; // the game's own navigation attempts (errors), kept across its reloads
    this.lastReload = 0;
    this.frameEnd = new Set();
    this.facts = new Set();
    this.reports = new Set();
    this.ownerFindings = []; // the watchdog's findings during this session
    this.mount();
  }

  // A fresh frame and probe: at start, and when the game page reloads (Vite after a file change,
  // or the game itself), so that the new document is watched from its first script as well.
  mount() {
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", GAME_SANDBOX);
    iframe.setAttribute("allow", GAME_ALLOW);
    iframe.src = `${this.origin}/__pix3/game/?scene=${encodeURIComponent(this.scene)}`;
    iframe.title = `Game: ${this.scene}`;
    iframe.className = "pix3-game-frame";
    this.stage.replaceChildren(iframe);
    this.iframe = iframe;
    this.loaded = false;
    this.reported = new Set(); // load failures already listed (by URL)
    const probe = new GameFrame(iframe, this.origin, this.url);
    this.probe = probe;
    if (this.paused) probe.pause();
    probe.onFrameEnd((frame, sample) => {
      for (const listener of [...this.frameEnd]) listener(frame, sample);
    });
    this.loadedPromise = new Promise((resolve) => { this.resolveLoaded = resolve; });
  }

  // A message from this session's current frame (play.js's one listener checked who sent it).
  receive(message) {
    if (!this.ended) this.probe.receive(message, this);
  }

  onLoaded() {
    if (this.ended) return;
    if (this.paused) this.probe.pause(); // asked before the frame listened
    this.loaded = true;
    this.reportLoads();
    this.onChange();
    this.resolveLoaded(true);
  }

  onFact(fact) {
    if (this.ended) return;
    if (fact.kind === "element" || fact.kind === "loaded") {
      this.probe.refresh().then(() => this.reportLoads()); // the failed answers: from the frame's facts
    } else if (fact.kind === "navigation") {
      this.navigated(fact);
    } else {
      const entry = errorEntry(fact, JUDGE.classify(fact, judgeContext(this)));
      if (entry) this.errors.push({ ...entry, origin: "game" });
    }
    for (const listener of [...this.facts]) listener(fact);
  }

  // What the Chrome owner's watchdog found (a checked finding of judge.js's ownerFinding).
  onReport(finding) {
    if (this.ended) return;
    this.ownerFindings.push(finding);
    for (const listener of [...this.reports]) listener(finding);
  }

  // Vite's reload after a file change is followed quietly; the game's own reload is an error and
  // is followed too (a game may restart itself that way), unless it reloads in a loop; leaving
  // for another page is an error and is not followed (the probe stopped it).
  navigated(fact) {
    if (fact.by !== "vite") {
      this.navigations.push(fact);
      const finding = JUDGE.classify(fact, judgeContext(this));
      this.errors.push({ ...errorEntry(fact, finding), origin: "game" });
    }
    const now = performance.now();
    const follow = fact.by === "vite" || (fact.type === "reload" && now - this.lastReload > RELOAD_GAP_MS);
    if (follow && fact.blocked) {
      if (fact.by !== "vite") this.lastReload = now;
      setTimeout(() => { if (!this.ended) { this.probe.end(); this.mount(); this.onChange(); } }, 0);
    }
  }

  // The frame shows another document than the one watched (a navigation the probe could not stop).
  leftUnwatched(url, frame) {
    const fact = { kind: "navigation", url, type: "traverse", by: "page", blocked: false, frame };
    this.navigations.push(fact);
    const finding = JUDGE.classify(fact, judgeContext(this));
    this.errors.push({ ...errorEntry(fact, finding), origin: "game" });
    for (const listener of [...this.facts]) listener(fact);
  }

  // Load failures (with URL and reason) as the rules explain them, each listed once.
  reportLoads() {
    if (this.ended) return;
    for (const finding of JUDGE.loadFindings(this.probe.facts(), judgeContext(this))) {
      if (this.reported.has(finding.url)) continue;
      this.reported.add(finding.url);
      this.errors.push({
        source: "resource", message: finding.message, origin: "game", code: finding.code, url: finding.url, reason: finding.reason,
      });
    }
  }

  // Whether the game page loaded within `waitMs`; false at once when its frame went silent (a
  // script stuck in a loop before `load`, or a renderer gone).
  async waitLoaded(waitMs) {
    let timer;
    let poll;
    const loaded = await Promise.race([
      this.loadedPromise,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve(false), waitMs);
        poll = setInterval(() => { if (this.ended || this.probe.silentMs >= SILENT_MS) resolve(false); }, 250);
      }),
    ]);
    clearTimeout(timer);
    clearInterval(poll);
    return loaded;
  }

  // The latest facts from the frame (the mirror's when it does not answer in time).
  async refresh() {
    if (!this.ended) await this.probe.refresh();
  }

  // The rules' verdict on the game page since it loaded (this frame's document).
  verdict(extra = {}) {
    this.reportLoads();
    return JUDGE.judge(this.ended ? this.lastFacts : this.probe.facts(), { ...judgeContext(this), ...extra });
  }

  setPaused(paused) {
    this.paused = paused;
    if (paused) this.probe.pause();
    else this.probe.resume();
  }

  // The game's snapshot, {provider, snapshot, error}, asked for now (the latest one when the game
  // does not answer in time); null without a provider.
  async sample() {
    const sample = this.ended ? this.probe.sampled : await this.probe.sampleNow();
    return sample ? { provider: sample.provider, snapshot: sample.snapshot, error: sample.error } : null;
  }

  // A run watches the game: the snapshot comes with the frames it is sampled in (every `every`-th
  // animation frame; 0 stops). Resolves to the snapshot now, as sample() does.
  async watch(every) {
    if (this.ended) return null;
    try {
      const sample = await this.probe.call("watch", { every });
      if (sampleOk(sample)) this.probe.sampled = sample;
    } catch { /* the last sample stands */ }
    const sample = this.probe.sampled;
    return sample ? { provider: sample.provider, snapshot: sample.snapshot, error: sample.error } : null;
  }

  // What live.js offers changed files to: the game's filesChanged, across the channel; null when
  // the game does not take files live (or has said nothing yet).
  snapshotProvider() {
    const sample = this.probe.sampled;
    if (!sample || !sample.live) return null;
    const probe = this.probe;
    return { name: sample.provider, filesChanged: (paths) => probe.call("filesChanged", { paths }, LIVE_CALL_WAIT_MS) };
  }

  end() {
    this.lastFacts = this.probe.facts(); // the frame goes: what it saw stays readable
    this.ended = true;
    this.frameEnd.clear();
    this.facts.clear();
    this.reports.clear();
    this.probe.end();
    this.iframe.remove();
  }
}

export class Player {
  constructor({ stage, errors, onChange = () => {}, clock = Date.now }) {
    this.stage = stage;
    this.errors = errors;
    this.onChange = onChange;
    this.clock = clock;
    this.session = null;
    this.pendingPaths = []; // files changed on disk while playing (pix3_sync answers `stale`)
    this.dropped = 0; // messages that claimed to come from the game's frame and did not pass the checks
    // The channel: only the current frame's window, from the game's origin, with a message that
    // passes the checks, is heard.
    window.addEventListener("message", (event) => {
      const session = this.session;
      if (!session || event.source !== session.iframe.contentWindow || event.origin !== session.origin) return;
      const message = checkMessage(event.data);
      if (message) session.receive(message);
      else this.dropped += 1;
    });
  }

  // What the Chrome owner's watchdog reports (window.__PIX3_OWNER_REPORT__, main.js): listed in
  // pix3_errors and the Errors panel, and it ends a run in progress. False when the report has
  // not the shape of docs/game-page.md (dropped).
  ownerReport(report) {
    const session = this.session;
    const frame = session && !session.ended ? session.probe.facts().frames.clock : undefined; // a frame stuck counts
    const finding = JUDGE.ownerFinding(report, { frame });
    if (!finding) return false;
    this.errors.push({
      source: "watchdog", message: finding.message, origin: finding.target === "editor" ? "page" : "game",
      code: finding.code, reason: finding.reason, stack: finding.frames?.length
        ? finding.frames.map((f) => `    at ${f.functionName || "(anonymous)"} (${f.url}:${f.line}:${f.column})`).join("\n") : undefined,
    });
    if (session) session.onReport(finding);
    this.onChange();
    return true;
  }

  get playing() {
    return this.session !== null;
  }

  status() {
    const s = this.session;
    let status = "stopped";
    if (s) status = s.paused ? "paused" : s.loaded ? "running" : "loading";
    return {
      playing: s !== null,
      status,
      playOwner: s ? s.owner : null,
      startedAt: s ? s.startedAt : null,
      scene: s ? s.scene : null,
    };
  }

  // Starts `scene` (a res:// path) for `owner` and waits for the game page's load event.
  async start(scene, owner) {
    this.stop();
    const session = new Session({
      stage: this.stage, scene, owner, errors: this.errors, clock: this.clock, onChange: () => this.onChange(),
    });
    this.session = session;
    this.onChange();
    const loaded = await session.waitLoaded(LOAD_WAIT_MS);
    this.onChange();
    return loaded;
  }

  stop() {
    if (!this.session) return false;
    this.session.end();
    this.session = null;
    this.pendingPaths = [];
    this.stage.replaceChildren();
    this.onChange();
    return true;
  }

  setPaused(paused) {
    if (!this.session) return;
    this.session.setPaused(paused);
    this.onChange();
  }
}
