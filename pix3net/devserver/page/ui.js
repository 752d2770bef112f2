// The editor page for a person: header facts, scenes, node tree and properties, the game frame
// with Play / Pause / Stop, Check, errors and file events. Plain DOM; render() is cheap and
// coalesced, the tree is rebuilt only when the open scene's outline changes.

import { post } from "./tabsocket.js";
import { componentsOf, resPath, walk } from "./scenetool.js";

const $ = (id) => document.getElementById(id);
const EVENTS_SHOWN = 60;
const ERRORS_SHOWN = 200;
const ERRORS_REDRAW_MS = 100; // new errors show within this, however many arrive
const OPEN_LEVELS = 3; // tree levels shown expanded when a scene opens
const AGENTS_POLL_MS = 3000; // the header's agent count: the dev server asks the CDP proxy

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function clock(at) {
  return new Date(at).toLocaleTimeString([], { hour12: false });
}

function compact(value) {
  if (typeof value === "string") return JSON.stringify(value);
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
}

function describe(result) {
  if (!result) return "–";
  return `${clock(result.at)} ${result.ok ? "ok" : `failed: ${result.reason}`}`;
}

export class Ui {
  constructor(bench) {
    this.bench = bench;
    this.scheduled = false;
    this.treeKey = null;
    this.rows = new Map();
    this.errorsShown = -1;
    this.eventsShown = -1;
    this.check = { state: "idle", report: null, error: null };
    this.agents = null; // {agents: n | null, detail?} from GET /__pix3/api/agents
    this.wire();
    this.watchAgents();
  }

  async watchAgents() {
    try {
      const response = await fetch("/__pix3/api/agents", { headers: { "X-Pix3": "1" } });
      this.agents = await response.json();
    } catch {
      this.agents = null; // the dev server is away: the socket's pill says so
    }
    this.schedule();
    setTimeout(() => this.watchAgents(), AGENTS_POLL_MS);
  }

  wire() {
    const bench = this.bench;
    $("pix3-play").addEventListener("click", () => {
      if (!bench.player.playing) bench.play({ action: "start" }, "designer").then(() => this.render());
    });
    $("pix3-stop").addEventListener("click", () => bench.play({ action: "stop" }, "designer"));
    $("pix3-pause").addEventListener("click", () => {
      const paused = bench.player.session?.paused;
      bench.play({ action: paused ? "resume" : "pause" }, "designer");
    });
    $("pix3-game-back").addEventListener("click", () => bench.setView("workbench"));
    $("pix3-errors-clear").addEventListener("click", () => bench.errors.clear());
    $("pix3-check-run").addEventListener("click", () => this.runCheck());
    $("pix3-tree").addEventListener("click", (event) => {
      const row = event.target.closest(".row");
      if (!row) return;
      if (event.target.classList.contains("twisty")) {
        row.parentElement.classList.toggle("collapsed");
        return;
      }
      bench.select(row.dataset.id);
    });
    $("pix3-scenes").addEventListener("click", (event) => {
      const item = event.target.closest("li[data-path]");
      if (item) bench.openScene(item.dataset.path).catch(() => {});
    });
    // A burst of errors (a game logging every frame) redraws the page at most every
    // ERRORS_REDRAW_MS, not once per entry: a full redraw per message of the game's frame kept the
    // page's thread busy (`1+1` took 1 s at 300 errors a second; tests/e2e/test_game_apart.py).
    bench.errors.listeners.add(() => {
      if (this.errorsRedraw !== undefined) return;
      this.errorsRedraw = setTimeout(() => {
        this.errorsRedraw = undefined;
        this.schedule();
      }, ERRORS_REDRAW_MS);
    });
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.render();
    });
  }

  async runCheck() {
    this.check = { state: "running", report: this.check.report, error: null, started: performance.now() };
    this.render();
    try {
      const { status, body } = await post("api/check", {});
      if (status !== 200) throw new Error(body.message ?? `HTTP ${status}`);
      this.check = { state: "done", report: body, error: null, ms: performance.now() - this.check.started };
    } catch (error) {
      this.check = { state: "failed", report: null, error: String(error && error.message || error) };
    }
    this.render();
  }

  render() {
    const { bench } = this;
    const host = bench.host;
    document.body.classList.toggle("view-game", bench.view === "game" && bench.player.playing);
    document.body.classList.toggle("view-scene", bench.view === "scene");
    const conn = $("pix3-connection");
    conn.textContent = host.connected ? "connected" : "disconnected, retrying";
    conn.className = `pill ${host.connected ? "on" : "off"}`;
    $("pix3-tab").textContent = host.tabId;
    $("pix3-tab").title = `this tab's id on the editor socket: ${host.tabId}`;
    const agents = $("pix3-agents");
    agents.textContent = this.agents?.agents ?? "–";
    agents.title = this.agents?.detail ?? "";
    const writer = $("pix3-writer");
    writer.textContent = host.writerId === null ? "none"
      : host.writerId === host.tabId ? "this tab" : `${host.writerId} (this tab is read-only)`;
    writer.className = host.readOnly ? "ro" : "";
    $("pix3-unsaved").textContent = host.unsaved.size ? `${host.unsaved.size}: ${[...host.unsaved.keys()].join(", ")}` : "0";
    $("pix3-flush").textContent = describe(host.lastFlush);
    $("pix3-sync").textContent = describe(host.lastSync);
    $("pix3-seq").textContent = host.seq === null ? "–" : `${host.seq} · ${String(host.revision).slice(0, 8)}`;
    this.renderScenes();
    this.renderTree();
    this.renderNode();
    this.renderView();
    this.renderPlay();
    this.renderCheck();
    this.renderErrors();
    this.renderEvents();
  }

  renderScenes() {
    const { bench } = this;
    const list = $("pix3-scenes");
    const active = bench.activeScene;
    const key = `${bench.scenes.join("\n")}|${active}|${[...bench.host.unsaved.keys()].join(",")}`;
    if (list.dataset.key === key) return;
    list.dataset.key = key;
    $("pix3-scene-count").textContent = String(bench.scenes.length);
    list.replaceChildren(...bench.scenes.map((path) => {
      const item = el("li", path === active ? "active" : "");
      item.dataset.path = path;
      item.title = path;
      const slash = path.lastIndexOf("/");
      item.append(el("span", "dir", path.slice(0, slash + 1)), el("span", "file", path.slice(slash + 1)));
      if (bench.host.unsaved.has(path)) item.append(el("span", "badge", "unsaved"));
      if (path === bench.defaultScene) item.append(el("span", "badge main", "main"));
      return item;
    }));
    if (!bench.scenes.length) list.replaceChildren(el("li", "muted", "No .pix3scene in this project."));
  }

  renderTree() {
    const { bench } = this;
    const open = bench.open;
    const key = open ? `${open.path}|${open.version}|${open.error ?? ""}` : "none";
    if (key !== this.treeKey) {
      this.treeKey = key;
      this.rows = new Map();
      const tree = $("pix3-tree");
      const title = $("pix3-tree-title");
      title.textContent = "";
      title.title = open ? resPath(open.path) : "";
      if (!open) {
        tree.replaceChildren(el("p", "muted", "No scene open."));
      } else if (open.error) {
        tree.replaceChildren(el("p", "problem", open.error));
      } else {
        let count = 0;
        for (const _ of walk(open.outline.nodes)) count += 1;
        title.textContent = `${count} node${count === 1 ? "" : "s"}`;
        tree.replaceChildren(...open.outline.nodes.map((node) => this.branch(node, 0)));
      }
    }
    const selected = bench.selection.primaryNodeId;
    for (const [id, row] of this.rows) row.classList.toggle("selected", id === selected);
    if (selected !== this.shownSelection) {
      this.shownSelection = selected;
      const row = this.rows.get(selected);
      // selected in the scene view: open its branch and bring its row into sight
      for (let box = row?.parentElement; box && box.id !== "pix3-tree"; box = box.parentElement) {
        box.classList.remove("collapsed");
      }
      row?.scrollIntoView({ block: "nearest" });
    }
  }

  branch(node, depth) {
    const box = el("div", depth >= OPEN_LEVELS && node.children.length ? "branch collapsed" : "branch");
    const row = el("div", "row");
    row.dataset.id = node.id;
    row.title = `${node.type} ${node.name ?? node.id} #${node.id}`;
    row.style.setProperty("--depth", String(depth));
    row.append(el("span", node.children.length ? "twisty" : "twisty leaf", ""));
    row.append(el("span", `type t-${String(node.type).replace(/[^A-Za-z0-9]/g, "")}`, node.type));
    row.append(el("span", "name", node.name ?? node.id));
    if (node.name !== undefined && node.name !== node.id) row.append(el("span", "nid", `#${node.id}`));
    if (node.hidden) row.append(el("span", "badge", "hidden"));
    if (node.instance) row.append(el("span", "badge", "instance"));
    if (node.components.length) {
      const badge = el("span", "badge comp", `⚙ ${node.components.length}`);
      badge.title = node.components.map((c) => c.type).join(", ");
      row.append(badge);
    }
    if (!this.rows.has(node.id)) this.rows.set(node.id, row);
    box.append(row);
    if (node.children.length) {
      const kids = el("div", "kids");
      kids.append(...node.children.map((child) => this.branch(child, depth + 1)));
      box.append(kids);
    }
    return box;
  }

  renderNode() {
    const { bench } = this;
    const panel = $("pix3-node");
    const id = bench.selection.primaryNodeId;
    const open = bench.open;
    const key = `${this.treeKey}|${id}`;
    if (panel.dataset.key === key) return;
    panel.dataset.key = key;
    const node = open?.outline && id ? [...walk(open.outline.nodes)].find((n) => n.id === id) : null;
    if (!node) {
      panel.replaceChildren(el("p", "muted", "Click a node to see its properties."));
      return;
    }
    const head = el("div", "node-head");
    head.append(el("span", "type", node.type), el("b", "", node.name ?? node.id), el("span", "nid", `#${node.id}`));
    const table = el("table", "props");
    const addRow = (name, value, cls = "") => {
      const tr = el("tr", cls);
      tr.append(el("th", "", name), el("td", "", compact(value)));
      table.append(tr);
    };
    const saved = node.saved ?? {};
    const properties = saved.properties && typeof saved.properties === "object" ? saved.properties : {};
    for (const [name, value] of Object.entries(properties)) {
      if (name === "transform" && value && typeof value === "object") {
        for (const [part, v] of Object.entries(value)) addRow(`transform.${part}`, v);
      } else {
        addRow(name, value);
      }
    }
    if (!Object.keys(properties).length) addRow("(no properties in the file)", "", "muted");
    const parts = [head, el("h3", "", "Properties"), table];
    const components = componentsOf(node);
    if (components.length) {
      const list = el("ul", "components");
      for (const c of components) {
        const item = el("li", c.enabled ? "" : "off");
        item.append(el("b", "", c.type ?? "?"));
        if (Object.keys(c.config).length) item.append(el("code", "", ` ${compact(c.config)}`));
        list.append(item);
      }
      parts.push(el("h3", "", "Components"), list);
    }
    if (node.groups?.length) parts.push(el("h3", "", "Groups"), el("p", "mono", node.groups.join(", ")));
    if (node.instance) parts.push(el("h3", "", "Instance"), el("p", "mono", compact(node.instance)));
    panel.replaceChildren(...parts);
  }

  renderView() {
    const { bench } = this;
    const open = bench.open;
    const label = $("pix3-view-scene");
    label.textContent = open ? resPath(open.path) : "";
    label.title = label.textContent;
    bench.sceneView?.show(open, bench.selection.primaryNodeId);
  }

  renderPlay() {
    const { bench } = this;
    const status = bench.player.status();
    const active = bench.activeScene;
    const scene = $("pix3-play-scene");
    scene.textContent = status.playing ? status.scene : active ? resPath(active) : "no scene";
    scene.title = scene.textContent;
    document.querySelector(".center").classList.toggle("playing", status.playing);
    const state = $("pix3-play-status");
    state.textContent = status.playing ? `${status.status} · ${status.playOwner === "agent" ? "agent" : "you"}` : "stopped";
    state.className = `pill ${status.playing ? (status.status === "paused" ? "warn" : "on") : "idle"}`;
    $("pix3-play").disabled = status.playing || !active;
    $("pix3-stop").disabled = !status.playing;
    $("pix3-pause").disabled = !status.playing;
    $("pix3-pause").textContent = status.status === "paused" ? "Resume" : "Pause";
    $("pix3-game-empty").hidden = status.playing;
  }

  renderCheck() {
    const { check } = this;
    const summary = $("pix3-check-summary");
    const list = $("pix3-check");
    const button = $("pix3-check-run");
    button.disabled = check.state === "running";
    button.textContent = check.state === "running" ? "Checking…" : "Check";
    if (list.dataset.key === check.state + (check.report ? check.report.errorCount : "")) return;
    list.dataset.key = check.state + (check.report ? check.report.errorCount : "");
    if (check.state === "idle") {
      summary.textContent = "";
      list.replaceChildren(el("li", "muted", "Check runs pix3 check on the project (scenes, scripts, versions)."));
      return;
    }
    if (check.state === "running") {
      summary.textContent = "running…";
      return;
    }
    if (check.state === "failed") {
      summary.textContent = "could not run";
      list.replaceChildren(el("li", "sev-error", check.error));
      return;
    }
    const report = check.report;
    summary.textContent = `${report.ok ? "ok" : "failed"} · ${report.errorCount} error${report.errorCount === 1 ? "" : "s"} · ` +
      `${report.warningCount} warning${report.warningCount === 1 ? "" : "s"} · ${(check.ms / 1000).toFixed(1)} s`;
    summary.className = report.ok ? "good" : "bad";
    const items = report.diagnostics.map((d) => {
      const item = el("li", `sev-${d.severity}`);
      const where = d.file ? `${d.file}${d.line ? `:${d.line}` : ""}` : "";
      item.append(el("span", "where", where), el("span", "code", d.code), el("span", "msg", d.message));
      return item;
    });
    list.replaceChildren(...(items.length ? items : [el("li", "good", "No diagnostics.")]));
  }

  renderErrors() {
    const { errors } = this.bench;
    $("pix3-error-count").textContent = errors.length ? String(errors.length) : "";
    const key = `${errors.pushed}|${errors.length}`;
    if (this.errorsShown === key) return;
    this.errorsShown = key;
    const entries = errors.entries.slice(-ERRORS_SHOWN).reverse();
    $("pix3-errors").replaceChildren(...(entries.length ? entries.map((e) => {
      const warning = e.source === "console.warn" || (typeof e.code === "string" && e.code.startsWith("W_"));
      const item = el("li", warning ? "sev-warning" : "sev-error");
      item.append(el("span", "when", clock(e.at)), el("span", `badge ${e.origin}`, e.origin), el("span", "code", e.source));
      if (e.code) item.append(el("span", "code", e.code));
      if (e.frame !== undefined) item.append(el("span", "code", `frame ${e.frame}`));
      item.append(el("span", "msg", e.message)); // a load failure's message names its URL and why
      if (e.url) item.title = `${e.url}${e.reason ? ` (${e.reason})` : ""}`;
      return item;
    }) : [el("li", "muted", "No errors.")]));
  }

  renderEvents() {
    const events = this.bench.host.events;
    if (this.eventsShown === events.length && events.length < 500) return;
    this.eventsShown = events.length;
    const shown = events.slice(-EVENTS_SHOWN).reverse().map((e) => {
      const item = el("li");
      item.append(el("span", "when", clock(e.at)), el("span", `op op-${e.op}`, e.op));
      item.append(el("span", "msg", `${e.path}${e.from ? ` ← ${e.from}` : ""}`), el("span", "code", e.author));
      return item;
    });
    $("pix3-events").replaceChildren(...(shown.length ? shown : [el("li", "muted", "No file changes yet.")]));
  }
}
