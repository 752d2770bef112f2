// Play sessions: the project's game page (`/?scene=<res path>`, docs/game-page.md) in a frame
// of the editor page, watched by the shared probe (probe.js) and judged by the shared rules
// (judge.js) — the same two files `pix3 smoke` runs in its page.
//
// The frame is same-origin, so the probe is evaluated in the frame's own realm and installed on
// its first window, which the browser keeps for the game document (a same-origin first navigation
// reuses the initial about:blank window): it sees the game's first script. The frame is sandboxed
// without allow-modals: it shares the editor page's renderer and main thread, and a dialog of the
// game must never block the workbench (the probe answers alert/confirm/prompt itself and reports
// them; a dialog it does not see, e.g. from a nested frame, is refused by the browser).

import "./probe.js";
import "./judge.js";

const PROBE = globalThis.__PIX3_PROBE__;
const JUDGE = globalThis.__PIX3_JUDGE__;

export const LOAD_WAIT_MS = 15000;
// What a game may do in its frame: everything but open dialogs and navigate the editor page.
export const GAME_SANDBOX = "allow-scripts allow-same-origin allow-forms allow-pointer-lock allow-popups " +
  "allow-downloads allow-orientation-lock allow-presentation";
const GAME_ALLOW = "fullscreen; autoplay; gamepad";
const RELOAD_GAP_MS = 1000; // a game that reloads itself faster than this is not followed (a reload loop)

export function gameUrl(scene) {
  return `/?scene=${encodeURIComponent(scene)}`;
}

// The context the rules are given for a game in this page.
export function judgeContext(session) {
  return { origin: location.origin, pageUrl: new URL(session.url, location.href).href };
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

// One frame running the game. Its probe counts the page's animation frames (`frame`) and the
// frames the game drew (`drawn`); `frameEnd` listeners run once a frame's callbacks are done,
// `facts` listeners get every fact of the game as it happens.
class Session {
  constructor({ stage, scene, owner, errors, clock, onChange }) {
    this.stage = stage;
    this.scene = scene;
    this.owner = owner;
    this.errors = errors;
    this.onChange = onChange;
    this.startedAt = clock();
    this.url = gameUrl(scene);
    this.paused = false;
    this.ended = false;
    this.navigations = []; // the game's own navigation attempts (errors), kept across its reloads
    this.lastReload = 0;
    this.frameEnd = new Set();
    this.facts = new Set();
    this.mount();
  }

  // A fresh frame and probe: at start, and when the game page reloads (Vite after a file change,
  // or the game itself), so that the new document is watched from its first script as well.
  mount() {
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", GAME_SANDBOX);
    iframe.setAttribute("allow", GAME_ALLOW);
    iframe.src = this.url;
    iframe.title = `Game: ${this.scene}`;
    iframe.className = "pix3-game-frame";
    this.stage.replaceChildren(iframe);
    this.iframe = iframe;
    this.loaded = false;
    this.reported = new Set(); // load failures already listed (by URL)
    const win = iframe.contentWindow; // still the window the game document will keep
    this.win = win;
    this.probe = win.eval(PROBE.source()).install(win, { report: (fact) => this.onFact(fact) });
    if (this.paused) this.probe.pause();
    this.probe.onFrameEnd((frame) => {
      for (const listener of [...this.frameEnd]) listener(frame);
    });
    this.loadedPromise = new Promise((resolve) => {
      iframe.addEventListener("load", () => {
        if (this.ended || this.iframe !== iframe) return;
        if (iframe.contentWindow !== win) this.leftUnwatched(iframe);
        this.loaded = true;
        this.reportLoads();
        this.onChange();
        resolve(true);
      });
    });
  }

  onFact(fact) {
    if (this.ended || fact.kind === "beat") return;
    if (fact.kind === "element" || fact.kind === "loaded") {
      setTimeout(() => this.reportLoads(), 0); // the failed answers reach the probe's observer a task later
    } else if (fact.kind === "navigation") {
      this.navigated(fact);
    } else {
      const entry = errorEntry(fact, JUDGE.classify(fact, judgeContext(this)));
      if (entry) this.errors.push({ ...entry, origin: "game" });
    }
    for (const listener of [...this.facts]) listener(fact);
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
  leftUnwatched(iframe) {
    let url = "another page";
    try { url = iframe.contentWindow.location.href; } catch { /* another origin */ }
    const fact = { kind: "navigation", url, type: "traverse", by: "page", blocked: false, frame: this.probe.frame };
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

  snapshotProvider() {
    const provider = this.probe.provider();
    return provider && typeof provider.snapshot === "function" ? provider : null;
  }

  end() {
    this.lastFacts = this.probe.facts(); // the frame goes: what it saw stays readable
    this.ended = true;
    this.frameEnd.clear();
    this.facts.clear();
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
    let timer;
    const loaded = await Promise.race([
      session.loadedPromise,
      new Promise((resolve) => { timer = setTimeout(() => resolve(false), LOAD_WAIT_MS); }),
    ]);
    clearTimeout(timer);
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
