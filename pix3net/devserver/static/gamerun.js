// pix3_game_run's loop (docs/bridge.md, "pix3_game_run"): frame 0 is the moment the run starts;
// frame n is the n-th animation frame of the game page after it, judged once that frame's own
// callbacks ran. Real time, not stepped: the game runs at its own pace and the run watches.

import { STATE_SAMPLE_EVERY, changedPaths, describePredicate, judge } from "./predicates.js";
import { safeSerialize } from "./scene.js";

const TIMELINE_LIMIT = 20;
const WATCHDOG_MS = 100; // how often a run with no frames coming checks its wall budget

const seconds = (ms) => `${(ms / 1000).toFixed(2)}s`;

function sample(session) {
  const provider = session.snapshotProvider();
  if (!provider) return null;
  const name = typeof provider.name === "string" ? provider.name : "game";
  try {
    return { provider: name, snapshot: safeSerialize(provider.snapshot(), 5), error: null };
  } catch (error) {
    return { provider: name, snapshot: null, error: String(error && error.message || error) };
  }
}

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

// Runs `spec` (normalised) against the player's current session; resolves the answer of docs/bridge.md, "6.3 The answer".
export async function runGame({ spec, player, errors, notes: givenNotes = [] }) {
  const session = player.session;
  const notes = [...givenNotes];
  const time = { ranIn: "realtime", frameSource: "the game page's requestAnimationFrame", fixedDeltaSec: null, restoredMode: null };
  if (spec.settleMs > 0) {
    const framesBefore = session.frames;
    await new Promise((resolve) => setTimeout(resolve, spec.settleMs));
    time.settledMs = spec.settleMs;
    if (session.frames === framesBefore) notes.push("No frame ran during settleMs (the game was paused or hidden).");
  }
  const wasPaused = session.paused;
  if (wasPaused) {
    player.setPaused(false);
    notes.push("The game was paused when the run started; it was resumed so that its frames run.");
  }
  const gated = spec.until.concat(spec.fail).some((p) => p.kind.startsWith("gameState"));
  const startFrames = session.frames;
  const errorsMark = errors.pushed;
  const wallStart = performance.now();
  const timeline = new Timeline();
  errors.frameOf = () => session.frames - startFrames;
  const baseline = sample(session);
  let state = baseline;
  let seenErrors = 0;

  const facts = (frame) => ({ frame, state, baseline, newErrors: errors.since(errorsMark) });
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

  let outcome = decide(0, 0);
  if (!outcome) {
    outcome = await new Promise((resolve) => {
      let done = false;
      const finish = (result) => {
        if (done) return;
        done = true;
        clearInterval(watchdog);
        session.frameEnd.delete(onFrame);
        resolve(result);
      };
      const wall = () => performance.now() - wallStart;
      const overBudget = (frame) => ({
        kind: "timeout", frame, gameTimeMs: Math.round(wall()),
        detail: `wall-clock budget of ${spec.maxWallMs}ms spent after ${frame} of ${spec.maxFrames} frames — the game's frames came slower than that (a hidden or paused game runs none)`,
      });
      const onFrame = (sessionFrame) => {
        try {
          const frame = sessionFrame - startFrames;
          if (frame <= 0) return;
          const gameTimeMs = Math.round(wall());
          if (gated || frame % STATE_SAMPLE_EVERY === 0) {
            const next = sample(session);
            const changed = changedPaths(state?.snapshot, next?.snapshot);
            const shown = Object.entries(changed).slice(0, 3);
            if (shown.length) {
              const note = shown.map(([p, [a, b]]) => `${p} ${JSON.stringify(a)}→${JSON.stringify(b)}`).join(", ");
              timeline.add(frame, "state", note, shown.map(([p]) => p).join(","));
            }
            state = next;
          }
          const fresh = errors.since(errorsMark);
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
          finish({ kind: "error", frame: session.frames - startFrames, gameTimeMs: Math.round(wall()), detail: `the run failed: ${error && error.message || error}` });
        }
        return undefined;
      };
      const watchdog = setInterval(() => {
        const frame = session.frames - startFrames;
        if (player.session !== session) {
          finish({ kind: "error", frame, gameTimeMs: Math.round(wall()), detail: `the game stopped at frame ${frame} (the play session ended)` });
        } else if (wall() > spec.maxWallMs) {
          finish(overBudget(frame));
        }
      }, WATCHDOG_MS);
      session.frameEnd.add(onFrame);
    });
  }

  errors.frameOf = () => undefined;
  const wallMs = Math.round(performance.now() - wallStart);
  const newErrors = errors.since(errorsMark).map(({ source, message }) => ({ source, message }));
  if (player.session === session && (spec.pauseOnOutcome || wasPaused)) player.setPaused(true);
  time.leftPaused = player.session === session && session.paused;

  const { unmet, ...shownOutcome } = outcome;
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
    },
  };
  const final = outcome.frame === 0 ? baseline : sample(session);
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
  if (notes.length) answer.notes = notes;
  return answer;
}
