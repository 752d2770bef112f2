// The tab side of the dev server's editor socket (docs/devserver.md): hello with a per-load
// tabId, reconnect 250 ms → 5 s, writer claim, answers to `flush` and `sync`, and the page's own
// sync barrier. Unsaved documents (wire path → text) are written by a flush.

const BASE = "/__pix3/";
export const DEFAULT_TIMEOUT_MS = 10000;
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;
const EVENTS_KEPT = 500;

export async function post(route, body, extraHeaders = {}) {
  const response = await fetch(BASE + route, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Pix3": "1", ...extraHeaders },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

export class Host {
  // applySync(request) → {ok, …}: the editor's verdict on a sync (stale while playing, …).
  constructor({ onChange = () => {}, onFiles = () => {}, applySync = () => ({ ok: true }) } = {}) {
    this.tabId = crypto.randomUUID();
    this.onChange = onChange;
    this.onFiles = onFiles;
    this.applySync = applySync;
    this.connected = false;
    this.welcomed = false;
    this.writerId = null;
    this.readOnly = false;
    this.claimed = false;
    this.seq = null;
    this.revision = null;
    this.projectName = null;
    this.versions = {};
    this.lastFlush = null;
    this.lastSync = null;
    this.flushing = false;
    this.events = [];
    this.unsaved = new Map();
    this.socket = null;
    this.retryMs = RETRY_FIRST_MS;
  }

  get writer() {
    if (this.writerId === null) return "none";
    return this.writerId === this.tabId ? "self" : "other";
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}${BASE}ws`);
    this.socket = socket;
    socket.onopen = () => {
      this.retryMs = RETRY_FIRST_MS;
      this.connected = true;
      socket.send(JSON.stringify({ type: "hello", tabId: this.tabId }));
      this.onChange();
    };
    socket.onclose = () => {
      this.connected = false;
      this.welcomed = false;
      this.socket = null;
      this.onChange();
      setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    };
    socket.onmessage = (message) => {
      let frame;
      try { frame = JSON.parse(message.data); } catch { return; }
      if (frame && typeof frame === "object") this.onFrame(frame);
    };
  }

  onFrame(frame) {
    switch (frame.type) {
      case "welcome":
        this.welcomed = true;
        this.seq = frame.seq;
        this.revision = frame.revision;
        this.projectName = frame.projectName;
        this.versions = frame.versions ?? {};
        this.setWriter(frame.writerId);
        if (!this.claimed) this.claim().catch(() => {});
        if (!performance.getEntriesByName("pix3:connected").length) performance.mark("pix3:connected");
        break;
      case "pix3:writer":
        this.setWriter(frame.writerId);
        break;
      case "pix3:fs":
        this.seq = frame.seq;
        this.revision = frame.revision;
        for (const event of frame.events || []) this.events.push({ ...event, at: Date.now() });
        this.events.splice(0, Math.max(0, this.events.length - EVENTS_KEPT));
        this.onFiles(frame.events || []);
        break;
      case "request":
        this.answer(frame);
        return;
      default:
        return;
    }
    this.onChange();
  }

  setWriter(writerId) {
    this.writerId = writerId ?? null;
    this.readOnly = this.writerId !== null && this.writerId !== this.tabId;
  }

  async claim() {
    this.claimed = true;
    const { status, body } = await post("api/handover/claim", { writerId: this.tabId });
    if (status === 200) this.setWriter(body.writerId);
    this.onChange();
    return body;
  }

  async answer(request) {
    let reply;
    try {
      if (request.kind === "flush") {
        reply = await this.flush(typeof request.timeoutMs === "number" ? request.timeoutMs : DEFAULT_TIMEOUT_MS);
      } else if (request.kind === "sync") {
        const paths = Object.keys(request.changed ?? {});
        reply = { ...(await this.applySync({ rev: request.rev, paths })), rev: request.rev, executed: {} };
        if (window.__PIX3_VITE_CLIENT__ === true) reply.viteClient = true;
        this.lastSync = { ok: reply.ok, reason: reply.reason ?? null, at: Date.now() };
      } else {
        reply = { ok: false, reason: "unknown_request" };
      }
    } catch (error) {
      reply = { ok: false, reason: "page_error", detail: String(error && error.message || error) };
    }
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify({ ...reply, type: "reply", id: request.id }));
    }
    this.onChange();
  }

  // Writes every unsaved document through the file API; the reply has the editor's flush shape.
  async flush(timeoutMs) {
    const saved = [];
    const failed = [];
    const conflicts = [];
    this.flushing = true;
    try {
      for (const [path, text] of [...this.unsaved]) {
        const response = await fetch(`${BASE}api/file?path=${encodeURIComponent(path)}`, {
          method: "PUT",
          headers: { "X-Pix3": "1", "X-Pix3-Writer": this.tabId, "Content-Type": "application/octet-stream" },
          body: new TextEncoder().encode(text),
          signal: AbortSignal.timeout(Math.max(1000, timeoutMs)),
        });
        if (response.ok) {
          if (this.unsaved.get(path) === text) this.unsaved.delete(path);
          saved.push(path);
        } else if (response.status === 412) {
          conflicts.push(path);
        } else if (response.status === 409 && (await response.json()).error === "writer_superseded") {
          this.readOnly = true; // another tab took over writing; the server said so
          failed.push(path);
        } else {
          failed.push(path);
        }
      }
    } finally {
      this.flushing = false;
    }
    let result;
    if (conflicts.length) result = { ok: false, reason: "external_change", saved, conflicts };
    else if (failed.length) result = { ok: false, reason: "write_failed", saved, failed };
    else result = { ok: true, saved };
    this.lastFlush = { ...result, at: Date.now() };
    this.onChange();
    return result;
  }

  // The page's own barrier: flush itself, then POST /api/sync with its tabId (the server then
  // asks this tab to apply the sync, see `answer`).
  async sync({ expect, timeoutMs } = {}) {
    const flushed = await this.flush(timeoutMs ?? DEFAULT_TIMEOUT_MS);
    if (!flushed.ok) return { ...flushed, ok: false, step: "flush" };
    const body = { tabId: this.tabId };
    if (expect !== undefined) body.expect = expect;
    if (timeoutMs !== undefined) body.timeoutMs = timeoutMs;
    const { body: result } = await post("api/sync", body);
    this.lastSync = { ok: result.ok, reason: result.reason ?? null, at: Date.now() };
    this.onChange();
    return result;
  }
}
