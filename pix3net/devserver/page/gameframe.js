// The game's side of the channel (docs/game-page.md, "4. How the editor page runs the game"):
// the document the dev server serves at /__pix3/game/ under the game's name — the other loopback
// name than the editor page's, so another site, so another renderer process. It holds the game
// page (`/?scene=…`) in a same-origin frame, installs the shared probe (recorder.js) in that frame's
// first window before the game's first script, and tells the editor page what the probe saw over
// postMessage, the editor's origin pinned, every message from it checked. Nothing here is put on
// a global: the game can reach this window (same origin), never the editor page (another origin).

import "./recorder.js";
import { safeSerialize } from "./scenetool.js";

const PROBE = globalThis.__PIX3_PROBE__;
delete globalThis.__PIX3_PROBE__;

export const CHANNEL = "pix3-game"; // every message of the channel carries it
// Facts sent at once: a game that logs or opens dialogs in a loop must not flood the editor page's
// thread; the rest are counted (`dropped`), the probe keeps its own 5 000.
const FACTS_PER_BATCH = 100;
// Facts sent per second, whatever the batches: each costs the editor page a list entry and a
// redraw of its Errors panel (a game logging 2 000 errors a frame slowed its `1+1` to 1 s at 100
// a batch, with no bound per second; measured with tests/e2e/test_game_apart.py's flood row).
const FACTS_PER_SECOND = 300;
const FLUSH_MS = 50; // facts wait at most this long (or the end of the frame) to be sent
// Console calls a second that reach the browser's own console (DevTools, the owner's log): a game
// logging 2 000 errors a frame kept the browser process busy, and the editor tab's CDP answers
// with it (`1+1` up to 1.4 s); the probe records every call all the same.
const CONSOLE_PER_SECOND = 1000;
const SNAPSHOT_DEPTH = 5; // as pix3_game_run has always copied the game's snapshot
const PATHS_LIMIT = 1000; // paths a filesChanged call may carry
const GAME_ALLOW = "fullscreen; autoplay; gamepad";

const editor = window.parent;
const editorOrigin = location.ancestorOrigins && location.ancestorOrigins.length === 1 ? location.ancestorOrigins[0] : null;
const send = editor.postMessage.bind(editor);
const post = (message) => send({ channel: CHANNEL, ...message }, editorOrigin);

function pathsOf(value) {
  return Array.isArray(value) && value.length <= PATHS_LIMIT && value.every((p) => typeof p === "string") ? value : null;
}

function start() {
  const scene = new URLSearchParams(location.search).get("scene");
  const iframe = document.createElement("iframe");
  iframe.setAttribute("allow", GAME_ALLOW);
  iframe.title = "Game";
  iframe.src = scene === null ? "/" : `/?scene=${encodeURIComponent(scene)}`;
  document.body.replaceChildren(iframe);
  const win = iframe.contentWindow; // the window the game document keeps (same-origin first navigation)

  let queue = [];
  let dropped = 0;
  let timer = null;
  const flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (!queue.length && !dropped) return;
    post({ type: "facts", facts: queue, dropped });
    queue = [];
    dropped = 0;
  };
  let second = 0;
  let sentThisSecond = 0;
  const report = (fact) => {
    if (fact.kind === "beat") {
      post({ type: "beat", frame: fact.frame });
      return;
    }
    const now = Math.floor(performance.now() / 1000);
    if (now !== second) {
      second = now;
      sentThisSecond = 0;
    }
    if (queue.length >= FACTS_PER_BATCH || sentThisSecond >= FACTS_PER_SECOND) {
      dropped += 1;
    } else {
      queue.push(fact);
      sentThisSecond += 1;
    }
    if (timer === null) timer = setTimeout(flush, FLUSH_MS);
  };
  const probe = win.eval(PROBE.source()).install(win, { report, consolePerSecond: CONSOLE_PER_SECOND });

  // The game's snapshot as pix3_game_run reads it: {provider, snapshot, error, live}.
  const sample = () => {
    const provider = probe.provider();
    if (!provider || typeof provider.snapshot !== "function") return null;
    const name = typeof provider.name === "string" ? provider.name : "game";
    const live = typeof provider.filesChanged === "function";
    try {
      return { provider: name, snapshot: safeSerialize(provider.snapshot(), SNAPSHOT_DEPTH), error: null, live };
    } catch (error) {
      return { provider: name, snapshot: null, error: String((error && error.message) || error), live };
    }
  };

  // While a run watches, the snapshot goes with the frames it is sampled in (every `every`-th
  // animation frame counted from `from`, and only frames the game drew).
  let watch = null;
  let lastDrawn = probe.drawn;
  probe.onFrameEnd((clock) => {
    const drawn = probe.drawn;
    const message = { type: "frame", clock, drawn, asked: probe.waiting > 0 };
    if (watch && drawn > lastDrawn && (clock - watch.from) % watch.every === 0) message.sample = sample();
    lastDrawn = drawn;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    message.facts = queue; // the frame's facts go with it: the editor counts the frame first
    message.dropped = dropped;
    queue = [];
    dropped = 0;
    post(message);
  });

  iframe.addEventListener("load", () => {
    flush();
    if (iframe.contentWindow !== win) {
      let url = "another page";
      try { url = String(iframe.contentWindow.location.href); } catch { /* another origin */ }
      post({ type: "left", url, frame: probe.frame });
    }
    post({ type: "loaded", facts: probe.facts() });
  });

  const methods = {
    facts: () => probe.facts(),
    sample,
    pause: () => probe.pause(),
    resume: () => probe.resume(),
    watch: (args) => {
      const every = args && Number.isInteger(args.every) && args.every > 0 ? args.every : 0;
      watch = every ? { every, from: probe.frame } : null;
      lastDrawn = probe.drawn;
      return sample(); // the snapshot the run starts from: one round trip for both
    },
    end: () => probe.end(),
    async filesChanged(args) {
      const provider = probe.provider();
      const paths = pathsOf(args && args.paths);
      if (!provider || typeof provider.filesChanged !== "function" || !paths) throw new Error("the game takes no files live");
      const answer = await provider.filesChanged([...paths]);
      if (!answer || typeof answer !== "object" || Array.isArray(answer)) return answer ?? null;
      const strings = (list) => (Array.isArray(list) ? list.filter((p) => typeof p === "string").slice(0, PATHS_LIMIT) : list);
      return { applied: strings(answer.applied), stale: strings(answer.stale) };
    },
  };
  window.addEventListener("message", async (event) => {
    if (event.source !== editor || event.origin !== editorOrigin) return;
    const data = event.data;
    if (!data || typeof data !== "object" || data.channel !== CHANNEL || data.type !== "call") return;
    if (!Number.isInteger(data.id) || !Object.hasOwn(methods, data.method)) return;
    try {
      const value = await methods[data.method](data.args);
      post({ type: "reply", id: data.id, ok: true, value: value === undefined ? null : value });
    } catch (error) {
      post({ type: "reply", id: data.id, ok: false, error: String((error && error.message) || error) });
    }
  });
  post({ type: "hello" });
}

// Opened by anything but the editor page (a tab of its own, a frame in a game), it runs nothing.
if (editor !== window && editor === window.top && editorOrigin) start();
else document.body.textContent = "This page runs the game for the Pix3 editor page; open the editor instead.";
