// The probe of a game run (docs/game-page.md, "The judge"): installed on the game page's window
// before the page's first script, it records what a run is judged on — uncaught errors and
// rejections, console output, elements and resources that failed to load, dialogs (answered),
// navigation away or reload (stopped), the animation frames and the frames the game drew, a
// heartbeat — and judges nothing (judge.js does). `pix3 smoke` and the editor page use this one
// probe, so both see the same facts of the same page.
//
// Valid as a classic script and as a module (no import, no export): it defines one global,
// globalThis.__PIX3_PROBE__ = {install, source}.
// - pix3 smoke evaluates it in the game page before the page's own scripts
//   (Page.addScriptToEvaluateOnNewDocument) and installs it on that window.
// - The editor page evaluates `source()` in the game frame's own realm (its initial window, which
//   the game document keeps) and installs it there: a wrapper from the editor's realm would make
//   the browser report the game's exceptions to the editor page instead of the game's window
//   (measured in Chromium 156).
globalThis.__PIX3_PROBE__ = (function pix3Probe() {
  "use strict";

  const SOURCE_URL = "pix3-probe://recorder.js"; // the probe's frames are dropped from stacks
  const BEAT_MS = 250; // heartbeat period
  // A heartbeat this late means the main thread was busy: a visible page's timers run on time,
  // a hidden page's are aligned to 1 s by Chrome, so 2 s is never mere throttling.
  const STALL_MS = 2000;
  const MAX_EVENTS = 5000; // events kept per document (a game that logs every frame would grow forever)
  const MAX_RESOURCES = 500; // resource answers kept (failures and scripts)
  const TEXT_LIMIT = 2000; // one console/dialog text, cut
  // <script type> values that run (the HTML standard's JavaScript MIME type essences, and module).
  const RUNNING_SCRIPT_TYPES = ["", "module", "text/javascript", "application/javascript", "application/ecmascript",
    "application/x-ecmascript", "application/x-javascript", "text/ecmascript", "text/javascript1.0",
    "text/javascript1.1", "text/javascript1.2", "text/javascript1.3", "text/javascript1.4", "text/javascript1.5",
    "text/jscript", "text/livescript", "text/x-ecmascript", "text/x-javascript"];

  const essence = (type) => String(type || "").split(";", 1)[0].trim().toLowerCase();
  const cut = (text) => (text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}…` : text);

  // Errors from another realm are not instances of this realm's Error: recognise them by shape.
  function isError(value) {
    return value !== null && typeof value === "object" && typeof value.message === "string" &&
      typeof value.name === "string";
  }

  function text(value) {
    if (typeof value === "string") return value;
    if (isError(value)) return `${value.name}: ${value.message}`;
    if (value === undefined) return "undefined";
    if (typeof value === "function") return String(value);
    if (typeof value === "bigint" || typeof value === "symbol") return value.toString();
    try {
      const json = JSON.stringify(value);
      return json === undefined ? String(value) : json;
    } catch (_) {
      try { return String(value); } catch (__) { return Object.prototype.toString.call(value); }
    }
  }

  // A stack without the probe's own frames.
  function cleanStack(stack) {
    if (typeof stack !== "string" || !stack) return undefined;
    return stack.split("\n").filter((line) => !line.includes(SOURCE_URL)).join("\n");
  }

  // Installs the probe on `win` before the game's first script; returns its handle. `options`:
  // report(fact) — called with every fact as it is recorded (its faults never reach the game);
  // holdUntilLoad — the game's animation callbacks wait for `load`, so its first tick is frame 1
  // (smoke); stopAfter — after that many frames the game's callbacks stop and an `end` fact says
  // so (smoke's --frames); endOnNavigation — a stopped navigation is the end too (smoke);
  // timings — keep each frame's callback time (smoke); consolePerSecond — below.
  function install(win, options = {}) {
    const doc = () => win.document;
    const perf = win.performance;
    const now = () => perf.now();
    const reportTo = typeof options.report === "function" ? options.report : null;
    const nativeRaf = win.requestAnimationFrame.bind(win);
    const nativeCancel = win.cancelAnimationFrame.bind(win);
    const NativeMessageChannel = win.MessageChannel;

    const events = [];
    let dropped = 0;
    let seq = 0;
    const elements = []; // elements whose load failed: {seq, frame, tag, url, script}
    const failedScripts = new WeakSet();
    const resources = new Map(); // url → {seq, frame, url, initiator, status, type}
    const frameStarts = []; // performance.now() at the start of each counted frame
    const steps = [];
    let loadMs = null;
    let loaded = false;
    let clock = 0; // animation frames counted (not while paused)
    let drawn = 0; // frames in which a game callback ran
    let requested = false; // the game asked for a frame at least once
    let lastDrawnFrame = 0;
    let paused = Boolean(options.holdUntilLoad);
    let holding = Boolean(options.holdUntilLoad);
    let ended = false;
    let lastBeat = now();
    let lastGap = 0; // the gap the latest heartbeat closed (a stopped loop's length, right after it)
    const endListeners = new Set();

    const emit = (fact) => {
      if (!reportTo) return;
      try { reportTo(fact); } catch (_) { /* the listener's fault is not the game's */ }
    };
    const record = (fact) => {
      fact.seq = ++seq;
      if (fact.frame === undefined) fact.frame = clock;
      fact.t = Math.round(now());
      if (events.length < MAX_EVENTS) events.push(fact);
      else dropped += 1;
      emit(fact);
      return fact;
    };

    // Frames. A new animation frame: the first callback after the previous frame's callbacks
    // ended (a task posted from a frame runs after all of them), or one with a new timestamp
    // (under load Chrome may run a missed frame with the time of the one before).
    let inFrame = false;
    let lastStamp = null;
    const afterFrame = new NativeMessageChannel();
    afterFrame.port1.onmessage = () => {
      inFrame = false;
      if (options.stopAfter !== undefined && clock >= options.stopAfter) finish("done");
      for (const listener of [...endListeners]) {
        try { listener(clock); } catch (_) { /* a listener's fault is not the game's */ }
      }
    };
    const beginFrame = (stamp) => {
      if (paused || ended || (inFrame && stamp === lastStamp)) return;
      lastStamp = stamp;
      inFrame = true;
      afterFrame.port2.postMessage(0);
      if (options.stopAfter !== undefined && clock >= options.stopAfter) {
        finish("done");
        return;
      }
      clock += 1;
      if (frameStarts.length < 100000) frameStarts.push(now());
      if (options.timings) steps.push(0);
      if (clock === 1) loadMs = now();
    };
    const finish = (why) => {
      if (ended) return;
      ended = true;
      paused = true;
      record({ kind: "end", why });
    };

    // Our clock keeps the frames coming whether or not the game asks for them. Animation frame
    // callbacks belong to a document, and a game document replaces the initial one in this same
    // window: the clock is registered for the current document, ahead of the game's first request.
    let clockDocument = null;
    const tick = (stamp) => {
      if (clockDocument !== doc() || ended) return;
      beginFrame(stamp);
      nativeRaf(tick);
    };
    const startClock = () => {
      if (clockDocument === doc() || ended) return;
      clockDocument = doc();
      nativeRaf(tick);
    };
    // Held until `load`, the clock still asks for every frame (counting none while paused): the
    // browser keeps producing frames, so frame 1 comes right after `load` (asking only then cost
    // ~40 ms of a smoke run's load, measured).
    if (options.holdUntilLoad) startClock();

    // The game's callbacks: ids handed out stay valid while a callback waits (paused, held).
    const registered = new Map(); // id → the browser's id
    const held = new Map(); // id → callback, while paused
    let nextId = 0;
    const register = (id, callback) => {
      const run = (stamp) => {
        registered.delete(id);
        if (paused) { // a callback due while paused waits for resume
          held.set(id, callback);
          return undefined;
        }
        beginFrame(stamp);
        if (paused) {
          held.set(id, callback);
          return undefined;
        }
        if (lastDrawnFrame !== clock) {
          lastDrawnFrame = clock;
          drawn += 1;
        }
        const t0 = options.timings ? now() : 0;
        try {
          return callback(stamp);
        } finally {
          if (options.timings && steps.length) steps[steps.length - 1] += now() - t0;
        }
      };
      registered.set(id, nativeRaf(run));
    };
    win.requestAnimationFrame = function requestAnimationFrame(callback) {
      const id = ++nextId;
      requested = true;
      if (typeof callback !== "function") return nativeRaf(callback); // the browser's own TypeError
      if (!holding) startClock();
      if (paused) held.set(id, callback);
      else register(id, callback);
      return id;
    };
    win.cancelAnimationFrame = function cancelAnimationFrame(id) {
      if (held.delete(id)) return;
      const native = registered.get(id);
      if (native !== undefined) {
        registered.delete(id);
        nativeCancel(native);
      }
    };
    const resume = () => {
      if (ended || !paused) return;
      paused = false;
      holding = false;
      startClock();
      const waiting = [...held];
      held.clear();
      for (const [id, callback] of waiting) register(id, callback);
    };

    // The heartbeat: a busy main thread runs no timer, an idle one does.
    win.setInterval(() => {
      listen();
      const t = now();
      const gap = t - lastBeat;
      lastBeat = t;
      lastGap = gap;
      if (gap >= STALL_MS && doc().visibilityState !== "hidden") record({ kind: "stall", ms: Math.round(gap) });
      emit({ kind: "beat", frame: clock });
    }, BEAT_MS);

    // Uncaught errors, and elements whose resource failed (their `error` does not bubble: a
    // capturing listener on the window sees it).
    const onError = (event) => {
      const target = event.target;
      if (target && target !== win && typeof target.tagName === "string") {
        const tag = target.tagName.toLowerCase();
        const url = target.currentSrc || target.src || target.href || "";
        const script = tag === "script";
        if (script) failedScripts.add(target);
        const fact = { seq: ++seq, frame: clock, tag, url: String(url), script };
        elements.push(fact);
        emit({ kind: "element", ...fact });
        return;
      }
      const error = event.error;
      let stack = isError(error) && typeof error.stack === "string" ? error.stack : undefined;
      const message = error !== undefined && error !== null ? text(error) : String(event.message || "an error");
      // A module that does not parse has no stack: the event names where the parse failed.
      if ((!stack || !stack.includes("\n    at ")) && event.filename) {
        stack = `${message}\n    at ${event.filename}:${event.lineno}:${event.colno}`;
      }
      record({ kind: "error", message, text: String(event.message || message), stack: cleanStack(stack) });
    };
    // Chrome calls a window's capturing listeners only for a document that was active when one was
    // added: a listener added to a frame's first window does not see the game document's element
    // errors (measured in Chromium 156). It is added again once the game document is there (at the
    // first heartbeat or `load`); what failed before that, Resource Timing tells (judge.js).
    let listening = null;
    const listen = () => {
      if (listening === doc()) return;
      listening = doc();
      win.removeEventListener("error", onError, true);
      win.addEventListener("error", onError, true);
    };
    listen();

    const rejections = new WeakMap();
    win.addEventListener("unhandledrejection", (event) => {
      const reason = event.reason;
      const fact = record({
        kind: "rejection", message: text(reason), stack: cleanStack(isError(reason) ? reason.stack : undefined),
      });
      if (event.promise) rejections.set(event.promise, fact);
    });
    win.addEventListener("rejectionhandled", (event) => {
      const fact = event.promise ? rejections.get(event.promise) : undefined;
      if (fact) record({ kind: "handled", of: fact.seq });
    });

    // consolePerSecond (the editor's game frame): past that many calls in a second the browser's
    // own console is not called (each call crosses to the browser process, which a flood of them
    // keeps busy for every tab); the probe still records them.
    const consoleLimit = Number.isInteger(options.consolePerSecond) ? options.consolePerSecond : Infinity;
    let consoleSecond = 0;
    let consoleCalls = 0;
    for (const level of ["log", "info", "warn", "error"]) {
      const original = win.console[level];
      win.console[level] = function (...args) {
        const first = args.find(isError);
        record({ kind: "console", level, text: cut(args.map(text).join(" ")), stack: cleanStack(first ? first.stack : undefined) });
        const second = Math.floor(now() / 1000);
        if (second !== consoleSecond) {
          consoleSecond = second;
          consoleCalls = 0;
        }
        consoleCalls += 1;
        return consoleCalls <= consoleLimit ? original.apply(this, args) : undefined;
      };
    }

    // Dialogs are answered here, so a game never waits on one: alert → OK, confirm → OK,
    // prompt → its default value.
    const dialog = (type, answer) => function (message, value) {
      record({ kind: "dialog", type, text: cut(message === undefined ? "" : String(message)) });
      return answer(value);
    };
    win.alert = dialog("alert", () => undefined);
    win.confirm = dialog("confirm", () => true);
    win.prompt = dialog("prompt", (value) => (value === undefined ? "" : String(value)));

    // Navigation away and reload: stopped (the page stays), reported with the URL. The Navigation
    // API's `navigate` event is cancelable for everything a page starts itself except history
    // traversal; the stack names who asked (Vite's client reloads after a file change).
    if (win.navigation && typeof win.navigation.addEventListener === "function") {
      win.navigation.addEventListener("navigate", (event) => {
        const destination = event.destination;
        if (!destination || destination.sameDocument || event.downloadRequest) return;
        if (String(win.location.href).startsWith("about:")) return; // the frame's first navigation
        const caller = new Error().stack || "";
        const by = caller.includes("/@vite/client") ? "vite" : "page";
        const blocked = event.cancelable;
        if (blocked) event.preventDefault();
        record({ kind: "navigation", url: String(destination.url), type: event.navigationType, by, blocked });
        if (blocked && options.endOnNavigation) finish("navigation");
      });
    }

    // Resource answers: the failures, and every script's (its media type explains a refusal).
    const observe = (entry) => {
      const url = entry.name;
      const status = typeof entry.responseStatus === "number" ? entry.responseStatus : null;
      const script = entry.initiatorType === "script";
      const sameOrigin = url.startsWith(`${win.location.origin}/`);
      if (!script && !(status !== null && status >= 400) && !(sameOrigin && status === 0)) return;
      if (resources.has(url) || resources.size >= MAX_RESOURCES) return;
      resources.set(url, {
        seq: ++seq, frame: frameAt(entry.startTime), url, initiator: entry.initiatorType, status,
        type: typeof entry.contentType === "string" ? entry.contentType : null,
      });
    };
    const frameAt = (time) => {
      let n = 0;
      while (n < frameStarts.length && frameStarts[n] <= time) n += 1;
      return n === frameStarts.length ? clock : n;
    };
    let observer = null;
    if (typeof win.PerformanceObserver === "function") {
      observer = new win.PerformanceObserver((list) => list.getEntries().forEach(observe));
      try { observer.observe({ type: "resource", buffered: true }); } catch (_) { observer = null; }
    }
    const flushResources = () => {
      if (observer) observer.takeRecords().forEach(observe);
      // An element's own answer may not have reached the observer yet.
      for (const element of elements) {
        if (element.url && !resources.has(element.url)) perf.getEntriesByName(element.url).forEach(observe);
      }
    };

    win.addEventListener("load", () => {
      if (String(win.location.href).startsWith("about:")) return;
      listen();
      loaded = true;
      record({ kind: "loaded" });
      if (holding) resume();
      else startClock();
      const status = documentAnswer().status;
      if (status !== null && status >= 400) finish("document");
    });

    const documentAnswer = () => {
      const [entry] = perf.getEntriesByType("navigation");
      return {
        status: entry && typeof entry.responseStatus === "number" && entry.responseStatus > 0 ? entry.responseStatus : null,
        type: entry && typeof entry.contentType === "string" ? entry.contentType : null,
      };
    };

    // The document's entry scripts: those that run (not data blocks, not nomodule), and whether
    // their element said it failed.
    const scripts = () => {
      const found = [];
      for (const element of doc().scripts) {
        if (element.noModule) continue;
        const type = essence(element.getAttribute("type"));
        if (!RUNNING_SCRIPT_TYPES.includes(type)) continue;
        found.push({ url: element.src || "", module: type === "module", failed: failedScripts.has(element) });
      }
      return found;
    };

    const provider = () => {
      try {
        const found = win.__PIX3_GAME_DEBUG__;
        return found && typeof found === "object" ? found : null;
      } catch (_) {
        return null;
      }
    };

    const probe = {
      // Everything recorded so far, as plain data (JSON-able).
      facts() {
        flushResources();
        const facts = {
          url: String(win.location.href),
          document: documentAnswer(),
          loaded,
          visible: doc().visibilityState !== "hidden",
          scripts: scripts(),
          frames: { clock, drawn, last: lastDrawnFrame, requested, waiting: registered.size + held.size, paused, ended },
          beat: { sinceMs: Math.round(now() - lastBeat), lastGapMs: Math.round(lastGap), stallMs: STALL_MS },
          events: events.map((event) => ({ ...event })),
          dropped,
          loads: { elements: elements.map((e) => ({ ...e })), resources: [...resources.values()].map((r) => ({ ...r })) },
        };
        if (options.timings) facts.timings = { loadMs, steps: [...steps] };
        return facts;
      },
      // The game's debug snapshot: {name, snapshot} (a JSON round trip; a promise is awaited),
      // {name, snapshot: {error}} when it throws, null when the game offers none.
      async game() {
        const found = provider();
        if (!found) return null;
        const name = typeof found.name === "string" ? found.name : null;
        let snapshot = null;
        if (typeof found.snapshot === "function") {
          try {
            const json = JSON.stringify(await found.snapshot());
            snapshot = json === undefined ? null : JSON.parse(json);
          } catch (error) {
            snapshot = { error: isError(error) ? error.message : text(error) };
          }
        }
        return { name, snapshot };
      },
      provider,
      pause() { paused = true; },
      resume,
      get paused() { return paused; },
      get frame() { return clock; },
      get drawn() { return drawn; },
      get waiting() { return registered.size + held.size; }, // the game's callbacks waiting for a frame
      onFrameEnd(listener) {
        endListeners.add(listener);
        return () => endListeners.delete(listener);
      },
      end() { finish("stopped"); },
    };
    return probe;
  }

  return Object.freeze({
    install,
    // The probe as source text, to evaluate in another realm (the game frame's).
    source: () => `(${pix3Probe})()\n//# sourceURL=${SOURCE_URL}`,
  });
})();
