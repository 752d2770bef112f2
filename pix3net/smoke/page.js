// pix3 smoke's page script (docs/smoke.md, "A run (one scene)"). Evaluated in the game page before
// any of the page's own scripts, with __PIX3_SMOKE_FRAMES__ replaced by the --frames count.
//
// Frame 0 is the page loading and starting; frame N is the N-th animation frame after `load`.
// The game's requestAnimationFrame callbacks are held back until then, so the game's first tick
// is frame 1. Every frame start and every console call is reported through the CDP binding
// (delivered in order with Runtime.exceptionThrown, which stamps exceptions with their frame).
// Once the frames are done the game's animation callbacks stop running.
(() => {
  'use strict';
  const FRAMES = __PIX3_SMOKE_FRAMES__;
  const BINDING = '__pix3Smoke';
  const send = globalThis[BINDING];
  try { delete globalThis[BINDING]; } catch (_) { /* a non-configurable binding stays visible */ }
  if (typeof send !== 'function') return;
  const report = (message) => { try { send(JSON.stringify(message)); } catch (_) { /* page closing */ } };

  const nativeRaf = globalThis.requestAnimationFrame.bind(globalThis);
  const now = () => performance.now();
  let started = false;
  let done = false;
  let frame = 0;
  let lastStamp = null;
  let loadMs = null;
  const steps = [];
  let callbackFrames = 0; // frames in which at least one of the game's callbacks ran
  let lastCallbackFrame = 0;

  // A new animation frame: the first callback that runs after the previous frame's callbacks
  // ended (a task posted from a frame runs after all of its callbacks), or one with a new
  // timestamp. Timestamps alone are not enough: under load Chrome may run a missed frame with
  // the time of the one before.
  let inFrame = false;
  const afterFrame = new MessageChannel();
  afterFrame.port1.onmessage = () => {
    inFrame = false;
    if (frame >= FRAMES && !done) { // the last frame's callbacks have all run: stop here
      done = true;
      report({ kind: 'done', frame });
    }
  };
  const beginFrame = (stamp) => {
    if (!started || done || (inFrame && stamp === lastStamp)) return;
    lastStamp = stamp;
    inFrame = true;
    afterFrame.port2.postMessage(0);
    if (frame >= FRAMES) {
      done = true;
      report({ kind: 'done', frame });
      return;
    }
    frame += 1;
    steps.push(0);
    if (frame === 1) loadMs = now();
    report({ kind: 'frame', frame });
  };

  const clock = (stamp) => {
    beginFrame(stamp);
    if (!done) nativeRaf(clock);
  };

  // Ids handed to the game stay valid while a held callback is re-registered frame after frame.
  const nativeCancel = globalThis.cancelAnimationFrame.bind(globalThis);
  const pending = new Map();
  let nextId = 0;
  globalThis.requestAnimationFrame = function requestAnimationFrame(callback) {
    const id = ++nextId;
    const run = (stamp) => {
      if (!started) { // held until the page has loaded
        pending.set(id, nativeRaf(run));
        return undefined;
      }
      pending.delete(id);
      beginFrame(stamp);
      if (done || typeof callback !== 'function') return undefined;
      if (lastCallbackFrame !== frame) {
        lastCallbackFrame = frame;
        callbackFrames += 1;
      }
      const t0 = now();
      try {
        return callback(stamp);
      } finally {
        steps[steps.length - 1] += now() - t0;
      }
    };
    pending.set(id, nativeRaf(run));
    return id;
  };
  globalThis.cancelAnimationFrame = function cancelAnimationFrame(id) {
    const native = pending.get(id);
    if (native !== undefined) {
      pending.delete(id);
      nativeCancel(native);
    }
  };

  // A <script> element that did not run (its fetch failed, its type was refused, a module it
  // imports failed) gets an `error` event that does not bubble: a capturing listener sees it.
  globalThis.addEventListener('error', (event) => {
    const element = event.target;
    if (typeof HTMLScriptElement === 'function' && element instanceof HTMLScriptElement) {
      report({ kind: 'script-error', frame, src: element.src || '' });
    }
  }, true);

  globalThis.addEventListener('load', () => {
    started = true;
    nativeRaf(clock);
  }, { once: true });

  const text = (value) => {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return `${value.name}: ${value.message}`;
    if (value === undefined) return 'undefined';
    if (typeof value === 'function') return String(value);
    if (typeof value === 'bigint' || typeof value === 'symbol') return value.toString();
    try {
      const json = JSON.stringify(value);
      return json === undefined ? String(value) : json;
    } catch (_) {
      return String(value);
    }
  };
  for (const level of ['log', 'info', 'warn', 'error']) {
    const original = console[level];
    console[level] = function (...args) {
      const error = args.find((a) => a instanceof Error);
      report({ kind: 'console', level, frame, text: args.map(text).join(' '), stack: error ? String(error.stack) : undefined });
      return original.apply(this, args);
    };
  }

  Object.defineProperty(globalThis, '__pix3SmokeCollect', {
    configurable: true,
    enumerable: false,
    value: async () => {
      const out = { frames: frame, steps, loadMs, game: null, callbackFrames, scripts: document.scripts.length };
      const provider = globalThis.__PIX3_GAME_DEBUG__;
      if (provider && typeof provider === 'object') {
        const name = typeof provider.name === 'string' ? provider.name : null;
        let snapshot = null;
        if (typeof provider.snapshot === 'function') {
          try {
            const value = await provider.snapshot();
            const json = JSON.stringify(value);
            snapshot = json === undefined ? null : JSON.parse(json);
          } catch (error) {
            snapshot = { error: error instanceof Error ? error.message : text(error) };
          }
        }
        out.game = { name, snapshot };
      }
      return out;
    },
  });
})();
//# sourceURL=pix3-smoke://page.js
