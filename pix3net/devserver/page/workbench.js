// The editor page's state (project scenes, the open scene, selection, view) and the seven tools'
// implementations over it (docs/bridge.md). The UI (ui.js) and the bridge read the same state.

import { refusal } from "./bridge.js";
import { runGame } from "./gamerun.js";
import { NO_FILES, afterOffer, offerFiles, syncReply } from "./live.js";
import { LOAD_WAIT_MS, SILENT_MS } from "./play.js";
import { normalizeSpec } from "./predicates.js";
import { NO_SCREEN, resPath, shapeScene, toProjectPath } from "./scenetool.js";
import { has2D, sceneNodes } from "./scene2d.js";

const NOT_OWNER =
  "The person at the editor page started this play session: wait for them to stop it, or ask " +
  "them. force does not override this.";

export class Workbench {
  constructor({ host, player, errors, sceneView = null, onChange = () => {} }) {
    this.host = host;
    this.sceneView = sceneView; // the drawn view of the active scene (sceneview.js), when there is a page
    this.player = player;
    this.errors = errors;
    this.onChange = onChange;
    this.scenes = [];
    this.defaultScene = null;
    this.chosenScene = null;
    this.selection = { nodeIds: [], primaryNodeId: null };
    this.view = "workbench";
    this.open = null; // {path, outline, version} | {path, error} for the UI
    this.running = false;
    this.listing = null; // the first read of the scene list, once started (firstList)
    this.files = { session: null, ...NO_FILES }; // the playing game's changed files (live.js)
    this.offers = Promise.resolve(); // offers to the game, one at a time, in the order files changed
  }

  // The person's choice, else scenes/main.pix3scene, else the manifest's default (project path).
  get activeScene() {
    return this.chosenScene ?? this.defaultScene;
  }

  // The first read of the scene list (main.js starts it as the page loads). A tool called before
  // it arrived waits for it: an agent's first call right after the page opened would otherwise
  // find no active scene.
  firstList() {
    this.listing ??= this.loadScenes();
    return this.listing;
  }

  async loadScenes() {
    const response = await fetch("/__pix3/api/scenes");
    const body = await response.json();
    this.scenes = body.scenes;
    this.defaultScene = body.defaultScene;
    if (this.chosenScene && !this.scenes.includes(this.chosenScene) && !this.host.unsaved.has(this.chosenScene)) {
      this.chosenScene = null;
    }
    this.onChange();
  }

  async hasScene(path) {
    if (this.host.unsaved.has(path) || this.scenes.includes(path)) return true;
    await this.loadScenes(); // created since the list was read?
    return this.scenes.includes(path);
  }

  // The outline of a scene as the page holds it: an unsaved text wins over the file. `draw`: with
  // what the 2D renderer draws (the scene view, `screen`).
  async readOutline(path, { draw = false } = {}) {
    const text = this.host.unsaved.get(path);
    const response = text === undefined
      ? await fetch(`/__pix3/api/scene?path=${encodeURIComponent(path)}&saved=1${draw ? "&draw=1" : ""}`)
      : await fetch("/__pix3/api/scene", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Pix3": "1" },
        body: JSON.stringify({ path, text, saved: true, draw }),
      });
    const body = await response.json();
    if (response.status === 404) return { error: refusal("no_scene", `"${path}" is not a scene of this project.`) };
    if (!response.ok) return { error: refusal("error", body.message ?? `HTTP ${response.status}`) };
    return { outline: body, version: (response.headers.get("ETag") || "").replaceAll('"', "") || null };
  }

  async openScene(path) {
    this.chosenScene = path;
    this.selection = { nodeIds: [], primaryNodeId: null };
    await this.refreshOpen();
  }

  async refreshOpen() {
    const path = this.activeScene;
    if (!path) {
      this.open = null;
    } else {
      const read = await this.readOutline(path, { draw: true });
      if (path !== this.activeScene) return; // another scene was chosen meanwhile
      this.open = read.error ? { path, error: read.error.detail } : { path, outline: read.outline, version: read.version };
    }
    this.onChange();
  }

  select(nodeId) {
    this.selection = nodeId ? { nodeIds: [nodeId], primaryNodeId: nodeId } : { nodeIds: [], primaryNodeId: null };
    this.onChange();
  }

  setView(view) {
    this.view = view;
    this.onChange();
  }

  // Files that changed while a game plays: offered to it when it takes them live (filesChanged),
  // else pending for it (docs/game-page.md, "Live edits"). Queued: one offer at a time.
  offer(paths) {
    this.offers = this.offers.then(() => this.offerNow(paths)).catch(() => {});
    return this.offers;
  }

  async offerNow(paths) {
    const player = this.player;
    const session = player.session;
    if (!session) return;
    if (this.files.session !== session) this.files = { session, ...NO_FILES, pending: player.pendingPaths };
    const all = [...new Set([...this.files.pending, ...paths])];
    if (!all.length) return;
    const offered = await offerFiles(session.snapshotProvider(), all);
    if (player.session !== session) return; // stopped meanwhile: nothing is pending for a new one
    this.files = { session, ...afterOffer(this.files, paths, offered) };
    player.pendingPaths = this.files.pending;
    this.onChange();
  }

  // The reply to the server's `sync` request: while a game plays, what it made of the changed files.
  async applySync({ paths }) {
    if (!this.player.playing) return { ok: true };
    await this.offer(paths);
    const session = this.player.session;
    if (!session) return { ok: true };
    if (this.files.session !== session) this.files = { session, ...NO_FILES, pending: this.player.pendingPaths };
    const reply = syncReply(session.owner, this.files);
    this.files = { ...this.files, taken: [], ms: null }; // the next sync says what was taken after this one
    return reply;
  }

  onFiles(events) {
    const files = events.filter((e) => e.kind !== "dir").flatMap((e) => (e.from ? [e.path, e.from] : [e.path]));
    if (this.player.playing && files.length) this.offer([...new Set(files)]);
    if (events.some((e) => e.op !== "modify" && (e.path.endsWith(".pix3scene") || e.from?.endsWith(".pix3scene")))) {
      this.loadScenes().then(() => this.refreshOpen()).catch(() => {});
    } else if (events.some((e) => e.path === this.activeScene)) {
      this.refreshOpen().catch(() => {});
    }
  }

  status(keepalive) {
    const host = this.host;
    const active = this.activeScene;
    const dirty = [...host.unsaved.keys()];
    const openScenes = [...new Set([active, ...dirty].filter(Boolean))];
    const pending = {};
    for (const path of dirty) pending[path] = ["text"];
    const play = this.player.status();
    return {
      ok: true,
      versions: host.versions,
      project: host.projectName,
      activeScene: active ? resPath(active) : null,
      openScenes: openScenes.map(resPath),
      scriptsStatus: "not-loaded",
      writer: host.writer,
      connection: host.connected ? "open" : "closed",
      dirty: dirty.filter((p) => p.endsWith(".pix3scene")).map(resPath),
      pending,
      flushing: host.flushing,
      gestureInProgress: false,
      pendingExternal: [],
      play: { playing: play.playing, status: play.status, playOwner: play.playOwner, startedAt: play.startedAt },
      selection: this.selection,
      errorCount: this.errors.length,
      keepalive,
      viteClient: window.__PIX3_VITE_CLIENT__ === true ||
        performance.getEntriesByType("resource").some((e) => e.name.split("?")[0].endsWith("/@vite/client")),
      tabId: host.tabId,
      writerId: host.writerId,
      seq: host.seq,
    };
  }

  async scene(params) {
    const given = typeof params.path === "string" && params.path !== "";
    const path = given ? toProjectPath(params.path) : this.activeScene;
    if (!path) return refusal("no_scene", "No active scene.");
    if (!(await this.hasScene(path))) return refusal("no_scene", `"${params.path}" is not a scene of this project.`);
    const shown = this.sceneView && path === this.activeScene && this.view !== "game";
    const read = await this.readOutline(path, { draw: Boolean(shown && typeof params.nodeId === "string") });
    if (read.error) return read.error;
    const screenOf = (nodeId) => (shown ? this.sceneView.screenOf(read.outline, nodeId) : {
      screen: null,
      note: this.sceneView && path === this.activeScene
        ? "No `screen`: the game fills the page now; pix3_screenshot {target:\"viewport\"} brings the scene view back."
        : NO_SCREEN,
    });
    return shapeScene(read.outline, params, { path: resPath(path), version: read.version, selection: this.selection, screenOf });
  }

  async play(params, owner = "agent") {
    const player = this.player;
    const merge = (answer) => ({ ...answer, ...player.status() });
    const designer = player.playing && player.session.owner === "designer" && owner !== "designer";
    switch (params.action) {
      case "status":
        return { ok: true, ...player.status() };
      case "start": {
        if (player.playing) return merge(refusal("already_playing", `Play is running (owner: ${player.session.owner ?? "unknown"}).`));
        return this.startScene(params.scenePath, owner);
      }
      case "stop":
        if (designer) return merge(refusal("not_owner", NOT_OWNER));
        if (!player.playing) return merge(refusal("not_playing", "Nothing is playing."));
        player.stop();
        if (this.view === "game") this.setView("workbench");
        return merge({ ok: true });
      case "restart":
        if (designer) return merge(refusal("not_owner", NOT_OWNER));
        if (!player.playing) return merge(refusal("not_playing", "Nothing is playing; use start."));
        player.stop();
        return this.startScene(undefined, owner);
      case "pause":
      case "resume": {
        if (designer) return merge(refusal("not_owner", NOT_OWNER));
        if (!player.playing) return merge(refusal("not_playing", "Nothing is playing."));
        const paused = params.action === "pause"; // both idempotent: pausing a paused game keeps it paused
        player.setPaused(paused);
        return merge({ ok: true, paused });
      }
      default:
        return merge(refusal("invalid_params", `params.action must be one of "start", "stop", "restart", "pause", "resume", "status"`));
    }
  }

  async startScene(scenePath, owner) {
    const player = this.player;
    const given = typeof scenePath === "string" && scenePath !== "";
    const scene = given ? toProjectPath(scenePath) : this.activeScene;
    if (!scene) return { ...refusal("no_scene", "No active scene."), ...player.status() };
    if (!(await this.hasScene(scene))) {
      return { ...refusal("no_scene", `"${scenePath}" is not a scene of this project.`), ...player.status() };
    }
    const loaded = await player.start(resPath(scene), owner);
    return { ok: true, loaded, url: player.session?.url ?? null, ...player.status() };
  }

  async gameRun(params) {
    const player = this.player;
    if (!player.playing) return refusal("not_playing", 'Start play first: pix3_play {action:"start"}.');
    const session = player.session;
    // A page that went silent before `load` (a loop in its first script, a renderer gone) is run
    // all the same: the run ends on its budget and says what was seen.
    const loaded = await session.waitLoaded(LOAD_WAIT_MS);
    if (player.session !== session) return refusal("refused", "The play session ended before the run could start.");
    if (!loaded && session.probe.silentMs < SILENT_MS) return refusal("refused", "The game page is still loading; retry in a moment.");
    const { spec, notes, error } = normalizeSpec(params);
    if (error) return refusal("refused", error);
    if (this.running) return refusal("refused", "Another pix3_game_run is in progress; wait for its answer.");
    this.running = true;
    try {
      return await runGame({ spec, notes, player, errors: this.errors });
    } finally {
      this.running = false;
      this.onChange();
    }
  }

  async screenshot(params) {
    if (params.target === "game") {
      if (!this.player.playing) return refusal("not_playing", "Nothing is playing; start play first, or screenshot the viewport.");
      this.setView("game");
      return {
        ok: true, target: "game", next: "take_screenshot",
        prepared: `The game frame (${this.player.session.scene}) fills the page; pix3_screenshot {target:"viewport"} brings the editor back.`,
      };
    }
    const active = this.activeScene;
    if (!active) return refusal("no_scene", "No active scene.");
    if (params.target === "scene") {
      if (!this.open || this.open.path !== active) await this.refreshOpen();
      if (this.open?.error) return refusal("error", this.open.error);
      if (!this.sceneView || !has2D(sceneNodes(this.open.outline))) {
        return refusal("refused", `The scene view draws 2D scenes only; ${resPath(active)} has no 2D node. Screenshot the viewport (its node tree) instead.`);
      }
      this.setView("scene");
      await this.sceneView.ready();
      return {
        ok: true, target: "scene", next: "take_screenshot",
        prepared: `The scene view of ${resPath(active)} (as stored, the selected node outlined) fills the page; pix3_screenshot {target:"viewport"} brings the editor back.`,
      };
    }
    this.setView("workbench");
    if (this.sceneView) await this.sceneView.ready();
    return {
      ok: true, target: "viewport", next: "take_screenshot",
      prepared: `The editor page with the node tree and the scene view of ${resPath(active)}.`,
    };
  }

  errorList(params) {
    const list = this.errors.list(params.since);
    if (params.clear === true) this.errors.clear();
    return { ok: true, count: list.length, errors: list };
  }

  executes(keepalive) {
    const listed = (tool) => async (params) => {
      await this.firstList().catch(() => {}); // not listed: the tool says there is no scene
      return tool(params);
    };
    return {
      pix3_status: listed(() => this.status(keepalive())),
      pix3_sync: (params) => this.host.sync(params),
      pix3_scene: listed((params) => this.scene(params)),
      pix3_play: listed((params) => this.play(params, "agent")),
      pix3_game_run: listed((params) => this.gameRun(params)),
      pix3_screenshot: listed((params) => this.screenshot(params)),
      pix3_errors: async (params) => this.errorList(params),
    };
  }
}
