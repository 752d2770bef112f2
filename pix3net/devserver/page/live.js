// Live edits (docs/game-page.md, "Live edits"): a game page that declares
// `__PIX3_GAME_DEBUG__.filesChanged(paths)` takes changed files while it plays; the editor page
// offers it the files a sync (or a file event) changed and waits for its answer. A game without
// the hook keeps the old contract: every changed file is pending for it (`stale`) until play
// restarts. Pure: the provider and the clock come in.

export const LIVE_WAIT_MS = 5000; // how long a sync waits for the game's answer
const PATHS_SHOWN = 100; // a game answering with a huge list is cut here

function strings(value, offered) {
  if (!Array.isArray(value)) return [];
  const known = new Set(offered);
  return [...new Set(value.filter((item) => typeof item === "string" && known.has(item)))].slice(0, PATHS_SHOWN);
}

// True when the game page offers the hook.
export function takesFilesLive(provider) {
  return Boolean(provider) && typeof provider.filesChanged === "function";
}

// Offers `paths` to the game. → {live: false} without the hook; else {live: true, applied, stale,
// ms} from the game's answer ({applied?, stale?}: the paths it took, the paths it cannot take
// without a restart; paths in neither are files it does not use), or {live: true, error, ms} when
// the hook threw, rejected, answered something else or did not answer within `waitMs`.
export async function offerFiles(provider, paths, { waitMs = LIVE_WAIT_MS, clock = () => performance.now() } = {}) {
  if (!takesFilesLive(provider)) return { live: false };
  const started = clock();
  let timer;
  try {
    const answer = await Promise.race([
      Promise.resolve().then(() => provider.filesChanged([...paths])),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${waitMs} ms`)), waitMs); }),
    ]);
    if (!answer || typeof answer !== "object" || Array.isArray(answer)) {
      throw new Error("its answer is not an object {applied, stale}");
    }
    return { live: true, applied: strings(answer.applied, paths), stale: strings(answer.stale, paths), ms: Math.round(clock() - started) };
  } catch (error) {
    const message = error && typeof error.message === "string" ? error.message : String(error);
    return { live: true, error: message, ms: Math.round(clock() - started) };
  } finally {
    clearTimeout(timer);
  }
}

// The state of one play session's files: `pending` (changed, not taken by the game), `taken` (taken
// live since the last sync answered), `ms` (the last offer's answer time), `error` (the last offer
// failed). One offer's outcome folded in:
export function afterOffer(state, paths, offered) {
  const all = [...new Set([...state.pending, ...paths])];
  if (!offered.live) return { ...state, pending: all };
  if (offered.error !== undefined) return { ...state, pending: all, error: offered.error, ms: offered.ms };
  return {
    pending: all.filter((path) => offered.stale.includes(path)),
    taken: [...new Set([...state.taken, ...offered.applied])],
    ms: offered.ms,
    error: null,
  };
}

export const NO_FILES = Object.freeze({ pending: [], taken: [], ms: null, error: null });

// The editor page's reply to a sync while a game plays (`owner`: who started it).
export function syncReply(owner, state) {
  const game = state.ms === null ? null : { applied: state.taken, stale: state.pending, ms: state.ms };
  const withGame = (reply) => (game ? { ...reply, game } : reply);
  if (state.pending.length && state.error) {
    return {
      ok: false, reason: "reload_failed", playing: owner, paths: state.pending, pending: state.pending,
      detail: `The game's filesChanged failed: ${state.error}`,
    };
  }
  if (state.pending.length) return withGame({ ok: false, reason: "stale", playing: owner, pending: state.pending });
  return withGame({ ok: true, playing: owner });
}
