// pix3 smoke's installer (docs/smoke.md, "A run"): evaluated in each game page after recorder.js and
// judge.js, before the page's own scripts. It installs the probe with smoke's options and keeps
// the rules; both globals are removed again, so the game sees neither. `__pix3SmokeResult(ctx)` is
// the end of the run: the verdict with what CDP saw added (ctx), the step timings and the game's
// snapshot.
//
// A template, read (not served) through pix3net/devserver/page/__init__.py: pix3net/commands/smoke/_scenerun.py
// fills in its five placeholders (listed in page_script there) before it is evaluated.
;(() => {
  'use strict';
  const probeApi = globalThis.__PIX3_PROBE__, judgeApi = globalThis.__PIX3_JUDGE__;
  delete globalThis.__PIX3_PROBE__;
  delete globalThis.__PIX3_JUDGE__;
  const send = globalThis.__BINDING__;
  try { delete globalThis.__BINDING__; } catch (_) { /* a non-configurable binding stays visible */ }
  if (typeof send !== 'function' || !probeApi || !judgeApi) return;
  const top = globalThis.top === globalThis;
  const virtual = __VIRTUAL__ && top, capture = __CAPTURE__ && top;
  const hide = (name, value) => Object.defineProperty(globalThis, name, { configurable: true, enumerable: false, value });
  // Virtual frames (docs/smoke.md, "Faster than real time"): under Chrome's virtual time the
  // compositor's frames stay real, so the game's animation frames run on virtual timers, 1/60 s
  // apart, from the page's load on; before that, and without virtual time, they are Chrome's.
  let frames = null;
  if (virtual) {
    const win = globalThis, perf = win.performance, FRAME_MS = 1000 / 60;
    const nativeRaf = win.requestAnimationFrame.bind(win), nativeCancel = win.cancelAnimationFrame.bind(win);
    const setTimer = win.setTimeout.bind(win), report = win.reportError.bind(win);
    let on = false, queue = new Map(), nextId = 0, timer = null, base = 0, count = 0;
    const real = new Map();
    const due = () => base + (count + 1) * FRAME_MS; // frame k at base + k/60 s, no drift
    const schedule = () => {
      if (timer !== null || queue.size === 0) return;
      timer = setTimer(frame, Math.max(0, Math.ceil(due() - perf.now())));
    };
    const frame = () => {
      timer = null;
      const stamp = Math.min(due(), perf.now()); // a frame's time is never after the clock's
      count += 1;
      // A beat a frame: the clock stands still inside a task, so the probe's own heartbeat (a
      // timer) cannot say which frame a busy page is stuck in; this one can (_clock.py).
      send(JSON.stringify({ kind: 'beat', frame: count }));
      const callbacks = queue;
      queue = new Map();
      for (const callback of callbacks.values()) {
        try { callback(stamp); } catch (error) { report(error); }
      }
      schedule();
    };
    win.requestAnimationFrame = function requestAnimationFrame(callback) {
      if (typeof callback !== 'function') return nativeRaf(callback); // the browser's own TypeError
      const id = ++nextId;
      if (on) {
        queue.set(id, callback);
        schedule();
      } else {
        real.set(id, nativeRaf((stamp) => {
          real.delete(id);
          if (!on) return callback(stamp);
          queue.set(id, callback);
          schedule();
          return undefined;
        }));
      }
      return id;
    };
    win.cancelAnimationFrame = function cancelAnimationFrame(id) {
      if (queue.delete(id)) return;
      const native = real.get(id);
      if (native !== undefined) {
        real.delete(id);
        nativeCancel(native);
      } else {
        nativeCancel(id);
      }
    };
    frames = { start() { if (!on) { on = true; base = perf.now(); schedule(); } } };
  }
  // The game held while smoke acts on the page: at load (virtual time turned on) and at the first
  // fault (the screenshot of --output). A probe already paused (held until load) is left alone.
  const holds = new Set();
  let probe = null;
  const hold = (why) => {
    if (holds.size === 0 && probe.paused) return false;
    holds.add(why);
    probe.pause();
    return true;
  };
  let faulted = false;
  const fault = (fact) => fact.kind === 'error' || fact.kind === 'rejection' || (fact.kind === 'console' && fact.level === 'error');
  probe = probeApi.install(globalThis, {
    holdUntilLoad: true, stopAfter: __FRAMES__, timings: true, endOnNavigation: true,
    report: (fact) => {
      if (fact.kind === 'end') send(JSON.stringify({ kind: 'end', why: fact.why, frame: fact.frame }));
      else if (fact.kind === 'beat') send(JSON.stringify(fact));
      else if (capture && !faulted && fault(fact)) {
        faulted = true;
        send(JSON.stringify({ kind: 'fault', frame: fact.frame, held: hold('fault') }));
      }
    },
  });
  if (virtual) {
    globalThis.addEventListener('load', () => {
      if (String(globalThis.location.href).startsWith('about:')) return;
      send(JSON.stringify({ kind: 'loaded', held: hold('load') }));
    });
  }
  hide('__pix3SmokeResume', (makeVirtual) => {
    if (makeVirtual && frames) frames.start();
    holds.clear();
    probe.resume();
  });
  hide('__pix3SmokeResult', async (ctx) => {
    const facts = probe.facts();
    // Under virtual time the page's clock stands still while a task runs, so the heartbeat's age
    // is smoke's to say: how long the grant of virtual time has been running on the wall clock;
    // a grant of a few frames that has not ended in a second is a busy main thread (_clock.py).
    if (virtual && typeof ctx.busyMs === 'number') {
      facts.beat.sinceMs = ctx.busyMs;
      facts.beat.stallMs = Math.min(facts.beat.stallMs, ctx.busyAfterMs);
    }
    const verdict = judgeApi.judge(facts, ctx);
    const game = ctx.timedOut === undefined ? await probe.game() : null;
    const out = { verdict, timings: facts.timings, game };
    if (ctx.console) {
      out.console = facts.events.filter((e) => e.kind === 'console' || e.kind === 'error' || e.kind === 'rejection')
        .map((e) => ({ frame: e.frame, level: e.kind === 'console' ? e.level : e.kind, text: e.kind === 'console' ? e.text : e.message, stack: e.stack }));
    }
    return out;
  });
})();
//# sourceURL=__SOURCE_URL__
