// Play sessions: the project's game page (`/?scene=<res path>`, docs/game-page.md) in a frame
// of the editor page. The frame is same-origin, so the page watches it directly: the hooks go
// on the frame's first window, which the browser keeps for the game document (the initial
// about:blank window is reused by a same-origin first navigation), so they see its first script.

import { captureWindow } from "./errors.js";

export const LOAD_WAIT_MS = 15000;
const HELD_ID_BASE = 0x40000000; // ids handed out for held callbacks; Chrome's own count from 1

export function gameUrl(scene) {
  return `/?scene=${encodeURIComponent(scene)}`;
}

// One frame running the game. `frames` counts the game page's animation frames while not
// paused; `onFrameEnd(frame)` listeners run once the frame's own callbacks are done.
class Session {
  constructor({ stage, scene, owner, errors, clock }) {
    this.scene = scene;
    this.owner = owner;
    this.startedAt = clock();
    this.url = gameUrl(scene);
    this.frames = 0;
    this.paused = false;
    this.loaded = false;
    this.ended = false;
    this.frameEnd = new Set();
    this.held = new Map(); // id handed out while paused → the game's callback
    this.resumed = new Map(); // those ids → the browser's id once registered again on resume
    this.nextHeld = HELD_ID_BASE;
    this.ensureTick = () => {};
    this.iframe = document.createElement("iframe");
    this.iframe.src = this.url;
    this.iframe.title = `Game: ${scene}`;
    this.iframe.className = "pix3-game-frame";
    stage.replaceChildren(this.iframe);
    this.watch(errors); // synchronously: the window is still the one the game page will keep
    this.loadedPromise = new Promise((resolve) => {
      this.iframe.addEventListener("load", () => {
        try {
          if (!this.iframe.contentWindow.__pix3Watched) this.watch(errors); // a reload made a new window
          this.ensureTick();
        } catch (error) {
          // The game page went to another origin: nothing of it can be watched from here.
          errors.push({ source: "play", message: `The game frame left this origin; it is not watched (${error.message}).`, origin: "page" });
        }
        this.loaded = true;
        resolve(true);
      });
    });
    const channel = new MessageChannel();
    channel.port1.onmessage = (message) => {
      for (const listener of [...this.frameEnd]) listener(message.data);
    };
    this.endOfFrame = channel.port2;
  }

  watch(errors) {
    const win = this.iframe.contentWindow;
    if (!win) return;
    win.__pix3Watched = true;
    this.win = win;
    captureWindow(win, errors, "game");
    const rawRequest = win.requestAnimationFrame.bind(win);
    const rawCancel = win.cancelAnimationFrame.bind(win);
    this.rawRequest = rawRequest;
    // Our tick counts the frames. Animation frame callbacks belong to a document, and the game
    // document replaces the initial one in this same window, so the tick is (re)registered for
    // the current document: by the game's first request (ahead of it, so the tick runs first in
    // every frame) or at load.
    let tickDocument = null;
    const tick = () => {
      if (this.ended || this.win !== win) return;
      if (!this.paused) {
        this.frames += 1;
        this.endOfFrame.postMessage(this.frames); // delivered after the frame's callbacks ran
      }
      rawRequest(tick);
    };
    this.ensureTick = () => {
      if (tickDocument === win.document || this.ended) return;
      tickDocument = win.document;
      rawRequest(tick);
    };
    // The game's own callbacks are passed through untouched (their errors stay the frame's);
    // while paused, new requests are held and registered again on resume.
    win.requestAnimationFrame = (callback) => {
      this.ensureTick();
      if (!this.paused) return rawRequest(callback);
      const id = (this.nextHeld += 1);
      this.held.set(id, callback);
      return id;
    };
    win.cancelAnimationFrame = (id) => {
      if (this.held.delete(id)) return undefined;
      return rawCancel(this.resumed.get(id) ?? id);
    };
  }

  setPaused(paused) {
    if (this.paused === paused) return;
    this.paused = paused;
    if (!paused) {
      this.resumed = new Map([...this.held].map(([id, callback]) => [id, this.rawRequest(callback)]));
      this.held.clear();
    }
  }

  snapshotProvider() {
    try {
      const provider = this.win?.__PIX3_GAME_DEBUG__;
      return provider && typeof provider.snapshot === "function" ? provider : null;
    } catch {
      return null;
    }
  }

  end() {
    this.ended = true;
    this.frameEnd.clear();
    this.endOfFrame.close();
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
    const session = new Session({ stage: this.stage, scene, owner, errors: this.errors, clock: this.clock });
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
