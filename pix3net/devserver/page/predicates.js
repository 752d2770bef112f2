// pix3_game_run's spec and predicates (docs/bridge.md, "pix3_game_run"): what a browser can
// judge from outside the game — its debug snapshot, the errors it logged, its frame count.
// Pure functions; gamerun.js drives them frame by frame.

export const LIMITS = {
  maxFrames: { fallback: 600, min: 1, max: 3600 },
  maxWallMs: { fallback: 20000, min: 100, max: 60000 },
  settleMs: { fallback: 0, min: 0, max: 30000 },
};
export const STATE_SAMPLE_EVERY = 10; // frames between snapshot reads when no predicate needs them

const OPS = {
  eq: "eq", ne: "ne", gt: "gt", gte: "gte", lt: "lt", lte: "lte", contains: "contains",
  "==": "eq", "!=": "ne", ">": "gt", ">=": "gte", "<": "lt", "<=": "lte",
};
const NODE_KINDS = ["nodeGone", "nodeMoved", "nodeAppeared", "nodeProperty"];
const RUNTIME_KINDS = { axis: "the runtime's input axes", command: "the scene's command registry", signal: "the runtime's node signals" };
const JUDGED = "this page judges gameState, gameStateChanged, newErrors and frames";

function clampInt(value, { fallback, min, max }) {
  if (typeof value !== "number" || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}

const json = (value) => (value === undefined ? "undefined" : JSON.stringify(value));
const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function predicateProblem(p, where) {
  if (!isObject(p) || typeof p.kind !== "string") return `${where} must be an object with a string "kind".`;
  if (NODE_KINDS.includes(p.kind)) {
    return `${where} ${p.kind} needs the Pix3 runtime's live node graph, which this editor page does not ` +
      "have (the game runs as a page in a frame); judge the game through the snapshot it offers " +
      "({kind:\"gameState\", path, op, value}, docs/game-page.md) or with newErrors / frames.";
  }
  if (RUNTIME_KINDS[p.kind]) {
    return `${where} ${p.kind} needs ${RUNTIME_KINDS[p.kind]}, which this editor page does not have; ${JUDGED}.`;
  }
  switch (p.kind) {
    case "gameState":
      if (typeof p.path !== "string") return `${where} gameState needs a string "path".`;
      if (!OPS[p.op]) return `${where} gameState "op" must be one of ${Object.keys(OPS).join(", ")}.`;
      if (!("value" in p)) return `${where} gameState needs a "value".`;
      return null;
    case "gameStateChanged":
      if (typeof p.path !== "string") return `${where} gameStateChanged needs a string "path".`;
      if (p.by !== undefined && (typeof p.by !== "number" || !Number.isFinite(p.by))) {
        return `${where} gameStateChanged "by" must be a number.`;
      }
      return null;
    case "newErrors":
      if (p.min !== undefined && !(Number.isInteger(p.min) && p.min >= 1)) return `${where} newErrors "min" must be an integer >= 1.`;
      return null;
    case "frames":
      if (!Number.isInteger(p.n) || p.n < 0) return `${where} frames needs an integer "n" >= 0.`;
      return null;
    default:
      return `${where} has an unknown predicate kind ${json(p.kind)}; ${JUDGED}.`;
  }
}

// {spec, notes} or {error}: the reference's checks, then ours (what this page cannot judge is
// refused, never ignored).
export function normalizeSpec(params) {
  if (params.input !== undefined) {
    return { error: "`input` is refused: send input to the game first (chrome-devtools-mcp's click/press tools), then run with only until/fail." };
  }
  if (params.bot !== undefined && params.monkey !== undefined) {
    return { error: "`bot` and `monkey` cannot be combined; run them separately." };
  }
  const until = params.until;
  if (params.bot === undefined && (!Array.isArray(until) || until.length === 0)) {
    return { error: "pix3_game_run needs at least one `until` predicate (use {kind:\"frames\", n:300} to just run a while)." };
  }
  if (params.fixedDeltaSec !== undefined && !(typeof params.fixedDeltaSec === "number" && params.fixedDeltaSec > 0 && Number.isFinite(params.fixedDeltaSec))) {
    return { error: "`fixedDeltaSec` must be a finite number greater than 0." };
  }
  for (const key of ["bot", "monkey", "control"]) {
    if (params[key] !== undefined) return { error: `\`${key}\` needs the Pix3 runtime (it drives the game from inside), which this editor page does not have.` };
  }
  const fail = params.fail ?? [];
  if (!Array.isArray(fail)) return { error: "`fail` must be an array of predicates." };
  for (const [channel, list] of [["until", until], ["fail", fail]]) {
    for (let i = 0; i < list.length; i += 1) {
      const problem = predicateProblem(list[i], `${channel}[${i}]`);
      if (problem) return { error: problem };
    }
  }
  const notes = [];
  if (params.fixedDeltaSec !== undefined) notes.push("fixedDeltaSec was ignored: the game runs its own frames in real time here.");
  if (Array.isArray(params.watch) && params.watch.length) notes.push("watch was ignored: watching nodes needs the Pix3 runtime's node graph.");
  return {
    notes,
    spec: {
      until: until.map((p) => ({ ...p, op: p.op === undefined ? undefined : OPS[p.op] })),
      fail: fail.map((p) => ({ ...p, op: p.op === undefined ? undefined : OPS[p.op] })),
      maxFrames: clampInt(params.maxFrames, LIMITS.maxFrames),
      maxWallMs: clampInt(params.maxWallMs, LIMITS.maxWallMs),
      settleMs: clampInt(params.settleMs, LIMITS.settleMs),
      pauseOnOutcome: params.pauseOnOutcome !== false,
    },
  };
}

export function describePredicate(p) {
  switch (p.kind) {
    case "gameState": return `gameState ${p.path} ${p.op} ${json(p.value)}`;
    case "gameStateChanged": return `gameStateChanged ${p.path}${p.by === undefined ? "" : ` by ${p.by >= 0 ? "+" : ""}${p.by}`}`;
    case "newErrors": return p.min && p.min !== 1 ? `newErrors >= ${p.min}` : "newErrors";
    case "frames": return `frames ${p.n}`;
    default: return String(p.kind);
  }
}

// A dot path into a snapshot; numeric segments index arrays. Missing → undefined.
export function readPath(value, path) {
  if (path === "") return value;
  let current = value;
  for (const segment of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else {
      current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    }
  }
  return current;
}

const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function compare(op, actual, expected) {
  switch (op) {
    case "eq": return same(actual, expected);
    case "ne": return !same(actual, expected);
    case "gt": case "gte": case "lt": case "lte": {
      if (typeof actual !== "number" || typeof expected !== "number") return false;
      if (op === "gt") return actual > expected;
      if (op === "gte") return actual >= expected;
      if (op === "lt") return actual < expected;
      return actual <= expected;
    }
    case "contains":
      if (typeof actual === "string") return actual.includes(String(expected));
      if (Array.isArray(actual)) return actual.some((item) => same(item, expected));
      return false;
    default: return false;
  }
}

// One predicate against the frame's facts: {met, detail}. `facts` = {frame, state, baseline,
// newErrors: [entries]}; state/baseline = {provider, snapshot, error} or null (no provider).
export function judge(p, facts) {
  switch (p.kind) {
    case "gameState":
    case "gameStateChanged": {
      const state = facts.state;
      if (!state) return { met: false, detail: "the game offers no snapshot (no globalThis.__PIX3_GAME_DEBUG__)" };
      if (state.error) return { met: false, detail: `the game's snapshot() threw: ${state.error}` };
      const now = readPath(state.snapshot, p.path);
      if (p.kind === "gameState") {
        return { met: compare(p.op, now, p.value), detail: `${p.path} = ${json(now)} (wanted ${p.op} ${json(p.value)})` };
      }
      const before = facts.baseline && !facts.baseline.error ? readPath(facts.baseline.snapshot, p.path) : undefined;
      if (p.by === undefined) return { met: !same(before, now), detail: `${p.path} ${json(before)} → ${json(now)}` };
      const delta = typeof now === "number" && typeof before === "number" ? now - before : null;
      const met = delta !== null && (p.by >= 0 ? delta >= p.by : delta <= p.by);
      return { met, detail: `${p.path} ${json(before)} → ${json(now)} (wanted a change of ${p.by >= 0 ? "+" : ""}${p.by})` };
    }
    case "newErrors": {
      const count = facts.newErrors.length;
      const first = facts.newErrors[0];
      const detail = `${count} new error${count === 1 ? "" : "s"}${first ? `: ${first.message}` : ""}`;
      return { met: count >= (p.min ?? 1), detail };
    }
    case "frames":
      return { met: facts.frame >= p.n, detail: `frame ${facts.frame} of ${p.n}` };
    default:
      return { met: false, detail: `unknown predicate kind ${json(p.kind)}` };
  }
}

// Scalar dot paths (two levels deep, at most `limit`) whose values differ: {path: [before, after]}.
export function changedPaths(before, after, limit = 20) {
  const out = {};
  const visit = (a, b, prefix, depth) => {
    const keys = new Set([...(isObject(a) ? Object.keys(a) : []), ...(isObject(b) ? Object.keys(b) : [])]);
    for (const key of keys) {
      if (Object.keys(out).length >= limit) return;
      const path = prefix ? `${prefix}.${key}` : key;
      const x = isObject(a) ? a[key] : undefined;
      const y = isObject(b) ? b[key] : undefined;
      if ((isObject(x) || isObject(y)) && depth < 2) visit(x, y, path, depth + 1);
      else if (!isObject(x) && !isObject(y) && !same(x, y)) out[path] = [x ?? null, y ?? null];
    }
  };
  visit(before, after, "", 1);
  return out;
}
