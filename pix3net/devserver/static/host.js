// The editor host page's tab side of the dev-server protocol (docs/devserver.md):
// hello with a per-load tabId, reconnect 250 ms → 5 s, writer claim, answers to `flush` and
// `sync`, and window.__PIX3_DEBUG__.call(name, params) for agents and tests.
const BASE = "/__pix3/";
const DEFAULT_TIMEOUT_MS = 10000;
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;
const EVENTS_SHOWN = 50;

const tabId = crypto.randomUUID();
const state = {
  tabId,
  connected: false,
  welcomed: false,
  writerId: null,
  readOnly: false,
  claimed: false,
  seq: null,
  revision: null,
  projectName: null,
  lastFlush: null,
  lastSync: null,
  events: [],
};
// Unsaved documents: wire path → text. A flush writes them through the file API.
const unsaved = new Map();
let socket = null;
let retryMs = RETRY_FIRST_MS;

const $ = (id) => document.getElementById(id);

function render() {
  const conn = $("pix3-connection");
  conn.textContent = state.connected ? "connected" : "disconnected, retrying";
  conn.className = state.connected ? "on" : "off";
  $("pix3-tab").textContent = tabId;
  const writer = $("pix3-writer");
  writer.textContent = state.writerId === null ? "none"
    : state.writerId === tabId ? "this tab" : `${state.writerId} (this tab is read-only)`;
  writer.className = state.readOnly ? "ro" : "";
  $("pix3-unsaved").textContent = unsaved.size ? `${unsaved.size}: ${[...unsaved.keys()].join(", ")}` : "0";
  $("pix3-flush").textContent = state.lastFlush ? describe(state.lastFlush) : "–";
  $("pix3-sync").textContent = state.lastSync ? describe(state.lastSync) : "–";
  $("pix3-seq").textContent = state.seq === null ? "–" : `seq ${state.seq} · ${String(state.revision).slice(0, 12)}`;
  const list = $("pix3-events");
  list.replaceChildren(...state.events.slice(-EVENTS_SHOWN).reverse().map((e) => {
    const item = document.createElement("li");
    item.textContent = `${e.op} ${e.path}${e.from ? ` ← ${e.from}` : ""} (${e.author})`;
    return item;
  }));
}

function describe(result) {
  const at = new Date(result.at).toLocaleTimeString();
  return `${at} ${result.ok ? "ok" : `failed: ${result.reason}`}`;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}${BASE}ws`);
  socket.onopen = () => {
    retryMs = RETRY_FIRST_MS;
    state.connected = true;
    socket.send(JSON.stringify({ type: "hello", tabId }));
    render();
  };
  socket.onclose = () => {
    state.connected = false;
    state.welcomed = false;
    socket = null;
    render();
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };
  socket.onmessage = (message) => {
    let frame;
    try { frame = JSON.parse(message.data); } catch { return; }
    if (frame && typeof frame === "object") onFrame(frame);
  };
}

function onFrame(frame) {
  switch (frame.type) {
    case "welcome":
      state.welcomed = true;
      state.seq = frame.seq;
      state.revision = frame.revision;
      state.projectName = frame.projectName;
      setWriter(frame.writerId);
      if (!state.claimed) claim().catch(() => {});
      break;
    case "pix3:writer":
      setWriter(frame.writerId);
      break;
    case "pix3:fs":
      state.seq = frame.seq;
      state.revision = frame.revision;
      for (const event of frame.events || []) state.events.push(event);
      state.events.splice(0, Math.max(0, state.events.length - 500));
      break;
    case "request":
      answer(frame);
      return;
    default:
      return;
  }
  render();
}

function setWriter(writerId) {
  state.writerId = writerId ?? null;
  state.readOnly = state.writerId !== null && state.writerId !== tabId;
}

async function post(route, body, extraHeaders = {}) {
  const response = await fetch(BASE + route, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Pix3": "1", ...extraHeaders },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function claim() {
  state.claimed = true;
  const { status, body } = await post("api/handover/claim", { writerId: tabId });
  if (status === 200) setWriter(body.writerId);
  render();
  return body;
}

async function answer(request) {
  let reply;
  try {
    if (request.kind === "flush") {
      reply = await flush(typeof request.timeoutMs === "number" ? request.timeoutMs : DEFAULT_TIMEOUT_MS);
    } else if (request.kind === "sync") {
      reply = { ok: true, rev: request.rev, executed: {} };
      if (window.__PIX3_VITE_CLIENT__ === true) reply.viteClient = true;
      state.lastSync = { ok: true, at: Date.now(), reason: null };
    } else {
      reply = { ok: false, reason: "unknown_request" };
    }
  } catch (error) {
    reply = { ok: false, reason: "page_error", detail: String(error && error.message || error) };
  }
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ ...reply, type: "reply", id: request.id }));
  }
  render();
}

// Writes every unsaved document through the file API; the reply has the editor's shape (§5.1).
async function flush(timeoutMs) {
  const saved = [];
  const failed = [];
  const conflicts = [];
  for (const [path, text] of [...unsaved]) {
    const response = await fetch(`${BASE}api/file?path=${encodeURIComponent(path)}`, {
      method: "PUT",
      headers: { "X-Pix3": "1", "X-Pix3-Writer": tabId, "Content-Type": "application/octet-stream" },
      body: new TextEncoder().encode(text),
      signal: AbortSignal.timeout(Math.max(1000, timeoutMs)),
    });
    if (response.ok) {
      if (unsaved.get(path) === text) unsaved.delete(path);
      saved.push(path);
    } else if (response.status === 412) {
      conflicts.push(path);
    } else if (response.status === 409 && (await response.json()).error === "writer_superseded") {
      state.readOnly = true; // another tab took over writing; the server said so
      failed.push(path);
    } else {
      failed.push(path);
    }
  }
  let result;
  if (conflicts.length) result = { ok: false, reason: "external_change", saved, conflicts };
  else if (failed.length) result = { ok: false, reason: "write_failed", saved, failed };
  else result = { ok: true, saved };
  state.lastFlush = { ...result, at: Date.now() };
  render();
  return result;
}

async function sync(params = {}) {
  const flushed = await flush(DEFAULT_TIMEOUT_MS);
  if (!flushed.ok) return { ...flushed, ok: false, step: "flush" };
  const body = { tabId };
  if (params.expect !== undefined) body.expect = params.expect;
  if (params.timeoutMs !== undefined) body.timeoutMs = params.timeoutMs;
  const { body: result } = await post("api/sync", body);
  state.lastSync = { ...result, at: Date.now() };
  render();
  return result;
}

const tools = {
  pix3_status: () => ({
    tabId,
    connected: state.connected,
    welcomed: state.welcomed,
    writerId: state.writerId,
    readOnly: state.readOnly,
    seq: state.seq,
    revision: state.revision,
    projectName: state.projectName,
    unsaved: [...unsaved.keys()],
    lastFlush: state.lastFlush,
    lastSync: state.lastSync,
    events: state.events.slice(-EVENTS_SHOWN),
  }),
  pix3_sync: (params) => sync(params || {}),
  pix3_flush: (params) => flush(params && typeof params.timeoutMs === "number" ? params.timeoutMs : DEFAULT_TIMEOUT_MS),
  pix3_claim: () => claim(),
  pix3_add_unsaved: (params) => {
    if (!params || typeof params.path !== "string" || typeof params.text !== "string") {
      throw new Error("pix3_add_unsaved needs {path: string, text: string}");
    }
    unsaved.set(params.path, params.text);
    render();
    return { ok: true, unsaved: [...unsaved.keys()] };
  },
};

window.__PIX3_DEBUG__ = {
  tools: Object.keys(tools),
  async call(name, params) {
    const tool = tools[name];
    if (!tool) throw new Error(`unknown tool ${name}; known: ${Object.keys(tools).join(", ")}`);
    return await tool(params);
  },
};

render();
connect();
