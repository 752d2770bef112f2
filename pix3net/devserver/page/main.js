// The editor page's entry (docs/devserver.md, "The editor page"): error capture first, then the
// socket, the bridge (window.__PIX3_DEBUG__ and the `pix3` tool group), the UI.

import { Agents, AgentsPanel } from "./agents.js";
import { createDispatcher, debugObject, installDiscovery } from "./bridge.js";
import { ErrorBuffer, captureWindow } from "./errorspanel.js";
import { Host } from "./tabsocket.js";
import { Player } from "./play.js";
import { SceneView } from "./sceneview.js";
import { Ui } from "./ui.js";
import { registerWebMcp } from "./webmcp.js";
import { Workbench } from "./workbench.js";

const errors = new ErrorBuffer();
captureWindow(window, errors, "page");
// The workbench never waits on a dialog: its own (none) or one a game opens through `parent`
// (the game's own dialogs are answered by its probe, docs/game-page.md).
for (const [name, answer] of [["alert", () => undefined], ["confirm", () => true], ["prompt", (_, value) => value ?? ""]]) {
  window[name] = (message, value) => {
    errors.push({ source: "dialog", message: `a ${name} dialog was answered without showing it: "${message ?? ""}"`, origin: "page", code: "W_SMOKE_DIALOG" });
    return answer(message, value);
  };
}

let ui = null;
const changed = () => ui?.schedule();
let bench = null;
const host = new Host({
  onChange: changed,
  onFiles: (events) => bench?.onFiles(events),
  applySync: (request) => bench.applySync(request),
});
const player = new Player({ stage: document.getElementById("pix3-game-stage"), errors, onChange: changed });
// The Chrome owner's watchdog tells this page what it found through its own CDP session
// (Runtime.evaluate): a script it stopped, and where it spun, or the game's renderer gone
// (docs/game-page.md, "Who adds what"). Not enumerable: no agent finds it among the page's names.
Object.defineProperty(window, "__PIX3_OWNER_REPORT__", {
  value: (report) => player.ownerReport(report),
  enumerable: false, configurable: false, writable: false,
});
// The Agents view (agents.js): the page tells the owner through the binding its watchdog gives
// it (window.__PIX3_AGENTS_ASK__, looked up at each call: it comes after this script starts), and
// the owner hands the agents over through __PIX3_OWNER_AGENTS__ (not enumerable, like the report).
const agents = new Agents({
  onChange: () => agentsPanel?.render(),
  send: (text) => {
    const binding = window.__PIX3_AGENTS_ASK__;
    if (typeof binding !== "function") return false;
    binding(text);
    return true;
  },
});
let agentsPanel = null;
Object.defineProperty(window, "__PIX3_OWNER_AGENTS__", {
  value: (json) => agents.receive(json),
  enumerable: false, configurable: false, writable: false,
});
const sceneView = new SceneView({
  canvas: document.getElementById("pix3-view"),
  note: document.getElementById("pix3-view-note"),
  onSelect: (nodeId) => bench.select(nodeId),
});
bench = new Workbench({ host, player, errors, sceneView, onChange: changed });

const dispatcher = createDispatcher({
  ...bench.executes(() => dispatcher.keepaliveActive(player.playing && player.session.owner === "agent")),
  pix3_agents: () => agents.tool(),
});
if (!window.__PIX3_DEBUG__) {
  window.__PIX3_DEBUG__ = debugObject(dispatcher.call, {
    selection: () => ({ nodeIds: [...bench.selection.nodeIds], primaryNodeId: bench.selection.primaryNodeId }),
    errors: () => errors.list(),
    clearErrors: () => errors.clear(),
    playStatus: () => {
      const { playing, status, playOwner, startedAt } = player.status();
      return { playing, status, playOwner, startedAt };
    },
  });
  installDiscovery(window, dispatcher.call);
  window.__pix3WebMcp = registerWebMcp(document, dispatcher.call); // resolves to the names registered
}

// Test hooks (adding an unsaved document, the page's own flush, a writer claim): only on a page
// opened with ?test, so that no agent finds them among the tools.
if (new URLSearchParams(location.search).has("test")) {
  window.__PIX3_TEST__ = {
    addUnsaved(path, text) {
      host.unsaved.set(path, text);
      changed();
      if (path === bench.activeScene) bench.refreshOpen().catch(() => {});
      return [...host.unsaved.keys()];
    },
    flush: (timeoutMs = 10000) => host.flush(timeoutMs),
    claim: () => host.claim(),
    bench,
  };
}

ui = new Ui(bench);
ui.render();
agentsPanel = new AgentsPanel(agents, {
  panel: document.getElementById("pix3-agents-panel"),
  list: document.getElementById("pix3-agents-list"),
  toggle: document.getElementById("pix3-agents-toggle"),
  close: document.getElementById("pix3-agents-close"),
});
host.connect();
bench.firstList().then(() => bench.refreshOpen()).catch((error) => {
  console.warn("pix3: the project's scenes could not be listed:", error);
});
