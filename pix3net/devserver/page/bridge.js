// The one dispatcher behind both transports (docs/bridge.md): chrome-devtools-mcp's tool
// discovery (`devtoolstooldiscovery` → the `pix3` group) and window.__PIX3_DEBUG__.call.

import { GROUP_DESCRIPTION, GROUP_NAME, TOOL_NAMES, TOOLS, toolEntry } from "./tools.js";
import { validateParams } from "./paramschema.js";

export const BRIDGE_VERSION = 2;
export const KEEPALIVE_MS = 60000; // an agent counts as connected this long after its last call

export function refusal(reason, detail, extra = {}) {
  const answer = { ok: false, reason };
  if (detail !== undefined) answer.detail = detail;
  return Object.assign(answer, extra);
}

// `executes`: tool name → async (params) → answer. `clock` for the keepalive window.
export function createDispatcher(executes, { clock = Date.now } = {}) {
  const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));
  const keepalive = { inFlight: new Set(), lastEnd: null, counter: 0 };

  async function call(name, params = {}) {
    const tool = byName.get(name);
    if (!tool || typeof executes[name] !== "function") {
      return refusal("unknown_tool", `No tool "${name}"; the tools are ${TOOL_NAMES.join(", ")}.`);
    }
    const value = params ?? {};
    const problem = validateParams(tool.inputSchema, value);
    if (problem) return refusal("invalid_params", problem);
    keepalive.counter += 1;
    const id = `bridge-${keepalive.counter}`;
    keepalive.inFlight.add(id);
    try {
      return await executes[name](value);
    } catch (error) {
      return refusal("error", error && typeof error.message === "string" ? error.message : String(error));
    } finally {
      keepalive.inFlight.delete(id);
      keepalive.lastEnd = clock();
    }
  }

  // True while a call runs, for KEEPALIVE_MS after the last one, or while `agentPlaying()`.
  function keepaliveActive(agentPlaying = false) {
    if (keepalive.inFlight.size || agentPlaying) return true;
    return keepalive.lastEnd !== null && clock() - keepalive.lastEnd < KEEPALIVE_MS;
  }

  return { call, keepaliveActive };
}

// The group handed to chrome-devtools-mcp; a fresh object for every discovery.
export function toolGroup(call) {
  return {
    name: GROUP_NAME,
    description: GROUP_DESCRIPTION,
    tools: TOOLS.map((tool) => ({ ...toolEntry(tool), execute: (params) => call(tool.name, params) })),
  };
}

// chrome-devtools-mcp looks for a real listener on window (DOMDebugger.getEventListeners), then
// dispatches the event with a `respondWith` it reads synchronously.
export function installDiscovery(win, call) {
  win.addEventListener("devtoolstooldiscovery", (event) => {
    if (typeof event.respondWith === "function") event.respondWith(toolGroup(call));
  });
}

// window.__PIX3_DEBUG__: `call` plus the short forms. `page` gives the synchronous reads.
export function debugObject(call, page) {
  const answerOr = async (name, params, pick, fallback) => {
    const answer = await call(name, params);
    return answer.ok ? pick(answer) : fallback;
  };
  return {
    version: BRIDGE_VERSION,
    tools: () => TOOLS.map(toolEntry),
    call,
    help: () => {
      const help = {
        "call(name, params)": "Run a pix3 tool by name; the answer is {ok:true, …} or {ok:false, reason, detail}.",
        "short forms": {
          "status()": "pix3_status", "sync(options)": "pix3_sync", "scene(maxDepth)": "pix3_scene",
          "node(nodeId)": "pix3_scene", "find(text)": "pix3_scene", "screen(nodeId)": "pix3_scene",
          "play.start|stop|restart|pause|resume|status": "pix3_play", "errors() / clearErrors()": "pix3_errors",
        },
      };
      for (const tool of TOOLS) help[tool.name] = tool.description;
      return help;
    },
    status: () => call("pix3_status", {}),
    sync: (options) => call("pix3_sync", options ?? {}),
    scene: (maxDepth = 3) => answerOr("pix3_scene", { maxDepth }, (a) => a.scene, null),
    node: (nodeId) => answerOr("pix3_scene", { nodeId }, (a) => ({ ...a.node, saved: a.saved }), null),
    find: (text) => answerOr("pix3_scene", { find: text }, (a) => a.matches, []),
    screen: (nodeId) => answerOr("pix3_scene", { nodeId }, (a) => a.screen ?? null, null),
    pending: () => answerOr("pix3_status", {}, (a) => a.pending, {}),
    selection: () => page.selection(),
    errors: () => page.errors(),
    clearErrors: () => page.clearErrors(),
    play: {
      status: () => page.playStatus(),
      start: (scenePath) => call("pix3_play", { action: "start", scenePath }),
      stop: (options) => call("pix3_play", { action: "stop", force: options?.force }),
      restart: () => call("pix3_play", { action: "restart" }),
      pause: () => call("pix3_play", { action: "pause" }),
      resume: () => call("pix3_play", { action: "resume" }),
    },
  };
}
