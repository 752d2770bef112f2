// pix3_game_run's loop (docs/bridge.md, "pix3_game_run"): frame 0 is the moment the run starts;
// frame n is the n-th frame the game drew after it (an animation frame in which its own
// requestAnimationFrame callbacks ran), judged once that frame's callbacks ran. Real time, not
// stepped: the game runs at its own pace and the run watches. The game page as a whole is judged
// by the shared rules (judge.js, as `pix3 smoke` judges it): a page whose game never ran, that
// left or reloaded, ends the run with ERROR; their codes are in the answer's `judged`.

import { judgeContext } from "./play.js";
import { STATE_SAMPLE_EVERY, changedPaths, describePredicate, judge } from "./predicates.js";

const JUDGE = globalThis.__PIX3_JUDGE__;
const TIMELINE_LIMIT = 20;
const JUDGED_LIMIT = 20; // errors and warnings the answer's `judged` lists (it counts them all)
const WATCHDOG_MS = 100; // how often a run with no frames coming checks its wall budget

const seconds = (ms) => `${(ms / 1000).toFixed(2)}s`;

// A sample the game's frame sent with a frame, as the run keeps it.
const asSample = (sample) => (sample ? { provider: sample.provider, snapshot: sample.snapshot, error: sample.error } : null);

class Timeline {
  constructor() {
    this.entries = [];
    this.truncated = false;
  }

  // Consecutive entries with the same key fold into one with a count (a counter that changes
  // every frame is one entry, not twenty).
  add(frame, kind, note, key = note) {
    const last = this.entries[this.entries.length - 1];
    if (last && last.kind === kind && last.key === key) {
      last.count = (last.count ?? 1) + 1;
      return;
    }
    if (this.entries.length >= TIMELINE_LIMIT) {
      this.truncated = true;
      return;
    }
    this.entries.push({ frame, kind, note, key });
  }

  list() {
    return this.entries.map(({ key, ...entry }) => entry);
  }
}

function verdictOf(outcome, errs, untilCount) {
  const at = `frame ${outcome.frame}, ${seconds(outcome.gameTimeMs)} real time`;
  const slot = outcome.assertion ? `${outcome.channel}[${outcome.index}] ${outcome.assertion}` : "";
  const errors = errs > 0 ? ` ${errs} new runtime error(s).` : "";
  switch (outcome.kind) {
    case "until": return `PASS ${slot} (${at}) — ${outcome.detail}.${errors}`;
    case "fail": return `FAIL ${slot} (${at}) — ${outcome.detail}.${errors}`;
    case "precondition-already-met":
      return `PRECONDITION ALREADY MET: ${slot} is ALREADY TRUE at frame 0 — ${outcome.detail}. Nothing ` +
        "was proven: restart the game (pix3_play restart), choose a condition that is false at the " +
        "start, or assert the change (gameStateChanged).";
    case "timeout":
      return `TIMEOUT after ${outcome.frame} frames (${seconds(outcome.gameTimeMs)} real time): ${outcome.detail}.${errors} ` +
        "Raise maxFrames (at most 3600) or maxWallMs (at most 60000), or check the predicate.";
    default:
      return `ERROR: ${outcome.detail} (${at}).${errors} The run was abandoned; ${untilCount} until predicate(s) were never decided.`;
  }
}

// An entry of the error list that is an error, not a warning (console.warn, a W_ code: a dialog,
// a stall, a missing file): warnings never fail a run, in pix3 smoke either.
const isError = (entry) => entry.source !== "console.warn" && !(typeof entry.code === "string" && entry.code.startsWith("W_"));

// Why the run cannot judge the page as a game (the rules' `fatal`), in the verdict's words.
function fatalDetail(fatal, scripts) {
  if (fatal.code !== "E_SMOKE_LOAD") return fatal.message.replace(/\.$/, "");
  const which = scripts.ran === 0 ? "the game never ran" : `${scripts.failed} of ${scripts.total} entry scripts of the game page did not run`;
  return `${which} — ${fatal.message.replace(/\.$/, "")}`;
}

// The shared rules' verdict, shortened for the answer: {ok, summary, scripts, frames, errors,
// warnings, more?}; a run that stopped seeing frames adds E_SMOKE_TIMEOUT with what was seen.
function judgedOf(verdict, timeout, found) {
  const errors = verdict.errors.map(({ stack, ...entry }) => entry);
  if (timeout) errors.push({ code: "E_SMOKE_TIMEOUT", message: timeout.detail, frame: timeout.frame });
  for (const f of found) { // the Chrome owner's watchdog: a loop it stopped (where), a crash
    const entry = { code: f.code, message: f.message, frame: f.frame, reason: f.reason };
    if (f.where) entry.where = f.where;
    errors.push(entry);
  }
  const judged = {
    ok: errors.length === 0,
    summary: verdict.summary,
    scripts: verdict.scripts,
    frames: verdict.frames,
    errors: errors.slice(0, JUDGED_LIMIT),
    warnings: verdict.warnings.slice(0, JUDGED_LIMIT),
  };
  const more = Math.max(0, errors.length - JUDGED_LIMIT) + Math.max(0, verdict.warnings.length - JUDGED_LIMIT);
  if (more) judged.more = more;
  return judged;
}

// Runs `spec` (normalised) against the player's current session; resolves the answer of docs/bridge.md, "6.3 The answer".
export async function runGame({ spec, player, errors, notes: givenNotes = [] }) {
  const session = player.session;
  const probe = session.probe;
  const notes = [...givenNotes];
  const time = { ranIn: "realtime", frameSource: "the frames the game drew (its requestAnimationFrame callbacks ran)", fixedDeltaSec: null, restoredMode: null };
  if (spec.settleMs > 0) {
    const drawnBefore = probe.drawn;
    await new Promise((resolve) => setTimeout(resolve, spec.settleMs));
    time.settledMs = spec.settleMs;
    if (probe.drawn === drawnBefore) notes.push("No frame was drawn during settleMs (the game was paused, hidden or idle).");
  }
  const wasPaused = session.paused;
  if (wasPaused) {
    player.setPaused(false);
    notes.push("The game was paused when the run started; it was resumed so that its frames run.");
  }
  const gated = spec.until.concat(spec.fail).some((p) => p.kind.startsWith("gameState"));
  // The snapshot comes with the frames it is sampled in; the run starts from the one now. The
  // opening verdict reads the mirror (the facts the game page sent when it loaded, and since).
  const baseline = await session.watch(gated ? 1 : STATE_SAMPLE_EVERY);
  // What the owner's watchdog did to the game before this run (a loop in its entry module ended,
  // its renderer gone): the game is not whole, and a run would only time out on its silence.
  const stoppedBefore = session.ownerFindings.filter((f) => f.target === "game").at(-1);
  const foundBefore = stoppedBefore ? session.ownerFindings.lastIndexOf(stoppedBefore) : session.ownerFindings.length;
  const startDrawn = probe.drawn;
  const startClock = probe.frame;
  const errorsMark = errors.pushed;
  const wallStart = performance.now();
  const timeline = new Timeline();
  const runFrame = () => (session.probe === probe ? probe.drawn - startDrawn : 0);
  errors.frameOf = runFrame;
  let state = baseline;
  let seenErrors = 0;
  let lastFrame = 0;
  // A page that is no game (it never ran, it left or reloaded itself) is not judged by predicates.
  const opening = session.verdict();
  const left = session.navigations[0];

  const newSince = () => errors.since(errorsMark).filter(isError);
  const facts = (frame) => ({ frame, state, baseline, newErrors: newSince() });
  // At frame 0 `until` is looked at first (either channel met makes the run pointless); on
  // later frames `fail` first, so a failure in the frame that also meets `until` is a FAIL.
  const decide = (frame, gameTimeMs) => {
    const current = facts(frame);
    const order = frame === 0 ? [["until", spec.until], ["fail", spec.fail]] : [["fail", spec.fail], ["until", spec.until]];
    for (const [channel, list] of order) {
      for (let index = 0; index < list.length; index += 1) {
        const { met, detail } = judge(list[index], current);
        if (met) {
          const kind = frame === 0 ? "precondition-already-met" : channel;
          return { kind, index, channel, frame, gameTimeMs, assertion: describePredicate(list[index]), detail };
        }
      }
    }
    return null;
  };

  let outcome = null;
  let decidedSample;
  if (opening.fatal || left) {
    const detail = opening.fatal ? fatalDetail(opening.fatal, opening.scripts) : JUDGE.classify(left, judgeContext(session)).message.replace(/\.$/, "");
    outcome = { kind: "error", frame: 0, gameTimeMs: 0, detail };
  }
  if (!outcome && stoppedBefore) {
    const detail = `before this run, ${stoppedBefore.message.replace(/\.$/, "")}; start the game again (pix3_play start) once it is fixed`;
    outcome = { kind: "error", frame: 0, gameTimeMs: 0, detail };
  }
  if (!outcome) outcome = decide(0, 0);
  if (!outcome) {
    outcome = await new Promise((resolve) => {
      let done = false;
      const finish = (result) => {
        if (done) return;
        done = true;
        clearInterval(watchdog);
        session.frameEnd.delete(onFrame);
        session.facts.delete(onFact);
        session.reports.delete(onReport);
        resolve(result);
      };
      const wall = () => performance.now() - wallStart;
      const overBudget = (frame) => {
        const why = JUDGE.timeoutReason(probe.facts(), { timedOut: (spec.maxWallMs / 1000).toFixed(1) });
        return {
          kind: "timeout", frame, gameTimeMs: Math.round(wall()), wall: true,
          detail: `wall-clock budget of ${spec.maxWallMs}ms spent after ${frame} of ${spec.maxFrames} frames — ${why}`,
        };
      };
      // The page reloaded or tried to leave: the run ends (a reload makes a new document).
      const onFact = (fact) => {
        if (fact.kind !== "navigation") return;
        decidedSample = undefined;
        const detail = fact.by === "vite"
          ? `${JUDGE.classify(fact, judgeContext(session)).message} Run again once it has loaded`
          : JUDGE.classify(fact, judgeContext(session)).message;
        finish({ kind: "error", frame: runFrame(), gameTimeMs: Math.round(wall()), detail: detail.replace(/\.$/, "") });
      };
      // The Chrome owner's watchdog stopped a loop (saying where) or saw the game's renderer die.
      const onReport = (finding) => {
        decidedSample = undefined;
        finish({ kind: "error", frame: runFrame(), gameTimeMs: Math.round(wall()), detail: finding.message.replace(/\.$/, "") });
      };
      const onFrame = (clockFrame, sampled) => {
        decidedSample = sampled; // a decision in this frame keeps the snapshot taken in it
        try {
          const frame = runFrame();
          const drewNew = frame > lastFrame;
          lastFrame = frame;
          const gameTimeMs = Math.round(wall());
          if (!drewNew) { // an animation frame the game did not draw: only errors and the budget count
            const decided = frame > 0 ? decide(frame, gameTimeMs) : null;
            if (decided) return finish(decided);
            if (gameTimeMs > spec.maxWallMs) return finish(overBudget(frame));
            return undefined;
          }
          if (sampled !== undefined) {
            const next = asSample(sampled);
            const changed = changedPaths(state?.snapshot, next?.snapshot);
            const shown = Object.entries(changed).slice(0, 3);
            if (shown.length) {
              const note = shown.map(([p, [a, b]]) => `${p} ${JSON.stringify(a)}→${JSON.stringify(b)}`).join(", ");
              timeline.add(frame, "state", note, shown.map(([p]) => p).join(","));
            }
            state = next;
          }
          const fresh = newSince();
          if (fresh.length > seenErrors) {
            timeline.add(frame, "error", fresh[seenErrors].message.slice(0, 120));
            seenErrors = fresh.length;
          }
          const decided = decide(frame, gameTimeMs);
          if (decided) return finish(decided);
          if (gameTimeMs > spec.maxWallMs) return finish(overBudget(frame));
          if (frame >= spec.maxFrames) {
            const unmet = spec.until.map((p) => judge(p, facts(frame)).detail).join("; ");
            return finish({ kind: "timeout", frame, gameTimeMs, detail: `no until predicate fired within the ${spec.maxFrames}-frame budget`, unmet });
          }
        } catch (error) {
          finish({ kind: "error", frame: runFrame(), gameTimeMs: Math.round(wall()), detail: `the run failed: ${error && error.message || error}` });
        }
        return undefined;
      };
      const watchdog = setInterval(() => {
        decidedSample = undefined;
        const frame = runFrame();
        if (player.session !== session) {
          finish({ kind: "error", frame, gameTimeMs: Math.round(wall()), detail: `the game stopped at frame ${frame} (the play session ended)` });
        } else if (wall() > spec.maxWallMs) {
          finish(overBudget(frame));
        }
      }, WATCHDOG_MS);
      session.frameEnd.add(onFrame);
      session.facts.add(onFact);
      session.reports.add(onReport);
    });
  }

  errors.frameOf = () => undefined;
  if (player.session === session) probe.tell("watch", { every: 0 });
  const wallMs = Math.round(performance.now() - wallStart);
  const newErrors = newSince().map(({ source, message }) => ({ source, message }));
  if (player.session === session && (spec.pauseOnOutcome || wasPaused)) player.setPaused(true);
  time.leftPaused = player.session === session && session.paused;

  const { unmet, wall, ...shownOutcome } = outcome;
  if (unmet) shownOutcome.detail = `${outcome.detail}. ${unmet}`;
  const answer = {
    ok: true,
    verdict: verdictOf(shownOutcome, newErrors.length, spec.until.length),
    outcome: shownOutcome,
    metrics: {
      frames: outcome.frame,
      gameTimeMs: outcome.gameTimeMs,
      wallMs,
      newErrors: newErrors.length,
      framesPerSecond: wallMs ? Math.round((outcome.frame / wallMs) * 1000) : 0,
      animationFrames: session.probe === probe ? probe.frame - startClock : null,
    },
  };
  // The snapshot of the frame that decided, when one came with it (the game ran on while the
  // answer was put together); else the game's snapshot now.
  const atEnd = outcome.frame === 0 ? baseline : decidedSample !== undefined ? asSample(decidedSample) : session.sample();
  const [final] = await Promise.all([atEnd, session.refresh()]);
  if (final) {
    answer.game = { provider: final.provider, snapshot: final.snapshot };
    const changed = baseline && !baseline.error && !final.error ? changedPaths(baseline.snapshot, final.snapshot) : {};
    if (Object.keys(changed).length) answer.game.changed = changed;
    if (final.error) answer.game.error = final.error;
  } else {
    notes.push("The game offers no debug snapshot: set globalThis.__PIX3_GAME_DEBUG__ = {name, snapshot} in the game page (docs/game-page.md).");
  }
  if (timeline.entries.length) answer.timeline = timeline.list();
  if (timeline.truncated) answer.timelineTruncated = true;
  answer.time = time;
  answer.newErrors = newErrors;
  answer.assertions = { until: spec.until.map(describePredicate), fail: spec.fail.map(describePredicate) };
  answer.judged = judgedOf(session.verdict(), wall ? outcome : null, session.ownerFindings.slice(foundBefore));
  for (const navigation of session.navigations) { // kept across the game's reloads
    const finding = JUDGE.classify(navigation, judgeContext(session));
    if (!answer.judged.errors.some((e) => e.code === finding.code && e.url === finding.url)) {
      answer.judged.errors.push({ code: finding.code, message: finding.message, frame: finding.frame, url: finding.url, reason: finding.reason });
      answer.judged.ok = false;
    }
  }
  if (notes.length) answer.notes = notes;
  return answer;
}
