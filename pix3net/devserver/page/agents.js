// The Agents view (docs/editor.md, "Watching the agents"): `pix3_agents` and the Agents panel.
// The page holds no token and asks nothing over HTTP. The Chrome owner's watchdog gives this page
// a binding, window.__PIX3_AGENTS_ASK__ (Runtime.addBinding on its own CDP session): the page
// calls it when it starts or stops wanting the agents (the panel opens or closes, a pix3_agents
// call waits) and to end a client (the panel's Kick). While the page wants them, the owner pushes
// their facts and a thumbnail of each one's tabs once a second (window.__PIX3_OWNER_AGENTS__,
// defined by main.js); the push's answer tells the owner whether the page still wants them.

export const ANSWER_MS = 2000; // pix3_agents without a push by then: no owner looks at this page
export const OWNER_MS = 6000; // an owner that heard the page pushes by then (thumbnails of a loaded machine)
export const FRESH_MS = 1000; // a push this recent answers pix3_agents at once (the owner's pace)
const NAME = /^[a-z0-9][a-z0-9._-]{0,31}$/;
const THUMBNAIL = /^data:image\/jpeg;base64,[A-Za-z0-9+/]+=*$/;
const MAX_TEXT = 500;

const text = (value) => (typeof value === "string" ? value.slice(0, MAX_TEXT) : "");
const count = (value) => (Number.isInteger(value) && value >= 0 ? value : null);
const number = (value) => (typeof value === "number" && Number.isFinite(value) ? value : null);

// The owner's push, checked and copied field by field: only these reach the tool and the panel.
// Returns null for anything that is not the shape the owner sends. `held` (a Map: a tab's key →
// its thumbnail) is what the page holds: a tab the owner sends without a thumbnail keeps the one
// held for its key (the owner leaves out a picture the page already has); it is replaced by this
// push's keys when the push is taken.
export function checkPush(json, held = null) {
  let body;
  try {
    body = JSON.parse(json);
  } catch {
    return null;
  }
  if (!body || typeof body !== "object" || !Array.isArray(body.clients)) return null;
  const clients = [];
  const holding = new Map();
  const picture = (t) => {
    const key = Number.isInteger(t.key) ? t.key : null;
    let thumbnail = null;
    if (typeof t.thumbnail === "string") thumbnail = THUMBNAIL.test(t.thumbnail) ? t.thumbnail : null;
    else if (!("thumbnail" in t) && key !== null && held) thumbnail = held.get(key) ?? null;
    if (key !== null) holding.set(key, thumbnail);
    return thumbnail;
  };
  for (const c of body.clients) {
    if (!c || typeof c !== "object" || !Number.isInteger(c.client) || c.client < 1 || !Array.isArray(c.tabs)) return null;
    clients.push({
      client: c.client,
      name: typeof c.name === "string" && NAME.test(c.name) ? c.name : null,
      userAgent: text(c.userAgent) || null,
      since: text(c.since),
      keep: c.keep === true,
      calls: count(c.calls),
      errors: count(c.errors),
      callsPerSecond: number(c.callsPerSecond),
      lastMethod: text(c.lastMethod) || null,
      lastAgoMs: count(c.lastAgoMs),
      tabs: c.tabs.filter((t) => t && typeof t === "object").map((t) => ({
        title: text(t.title),
        url: text(t.url),
        editor: t.editor === true,
        thumbnail: picture(t),
      })),
    });
  }
  const editorTab = body.editorTab && typeof body.editorTab === "object" ? { answering: body.editorTab.answering === true } : null;
  if (held) {
    held.clear();
    for (const [key, thumbnail] of holding) held.set(key, thumbnail);
  }
  return { clients, editorTab };
}

export const RETRY_MS = 250; // a binding not given yet (the page just loaded) is tried again this often

export class Agents {
  // send(text): calls the owner's binding; false when the page has none (no owner watches it).
  constructor({ clock = Date.now, onChange = () => {}, send = () => false, ownerMs = OWNER_MS } = {}) {
    this.clock = clock;
    this.ownerMs = ownerMs;
    this.reached = false; // the binding took a call: an owner watches this page
    this.onChange = onChange;
    this.send = send;
    this.open = false; // the panel shows
    this.waiting = new Set(); // pix3_agents calls waiting for a push
    this.last = null; // {at, body} of the last push
    this.held = new Map(); // a tab's key → the thumbnail this page holds (the owner sends each once)
    this.retry = null;
  }

  get wanted() {
    return this.open || this.waiting.size > 0;
  }

  // Tell the owner what the page wants (and which clients to end); tried again while the binding
  // is missing and the page still wants something.
  tell(kicks = []) {
    clearTimeout(this.retry);
    this.retry = null;
    const told = this.send(JSON.stringify({ wanted: this.wanted, kicks }));
    if (told) this.reached = true;
    if (!told && (this.wanted || kicks.length)) this.retry = setTimeout(() => this.tell(kicks), RETRY_MS);
    return told;
  }

  // The owner's push; returns whether the page still wants the agents (the owner stops when not).
  receive(json) {
    const body = checkPush(json, this.held);
    if (body === null) return this.wanted;
    this.last = { at: this.clock(), body };
    for (const resolve of [...this.waiting]) resolve(body);
    this.waiting.clear();
    this.onChange();
    return this.wanted;
  }

  setOpen(open) {
    if (this.open === open) return;
    this.open = open;
    this.tell();
  }

  kick(client) {
    if (Number.isInteger(client) && client > 0) this.tell([client]);
  }

  // pix3_agents: the last push when it is fresh, else the next one. No binding within ANSWER_MS:
  // no owner watches this page (no_owner). A binding but no push within OWNER_MS: the owner is
  // there but too busy to answer (no_owner too, saying so).
  tool() {
    if (this.last && this.clock() - this.last.at < FRESH_MS) return Promise.resolve({ ok: true, ...this.last.body });
    return new Promise((resolve) => {
      const waiter = (body) => {
        clearTimeout(timer);
        resolve({ ok: true, ...body });
      };
      const refuse = (detail) => {
        this.waiting.delete(waiter);
        if (!this.wanted) this.tell();
        resolve({ ok: false, reason: "no_owner", detail });
      };
      let timer = setTimeout(() => {
        if (!this.reached) {
          refuse(
            `No pix3 Chrome owner answered within ${ANSWER_MS} ms: the agents are known to the Chrome owner ` +
            "that `pix3 editor` starts, and this page is not its editor tab.",
          );
          return;
        }
        timer = setTimeout(() => refuse(
          `pix3's Chrome owner heard this page but sent no agents within ${this.ownerMs} ms (it is busy): ask again.`,
        ), this.ownerMs - ANSWER_MS);
      }, ANSWER_MS);
      const first = this.waiting.size === 0 && !this.open;
      this.waiting.add(waiter);
      if (first) this.tell();
    });
  }
}

const STALE_MS = 3000; // the panel says the owner is away when no push came for this long

// "12 ms ago", "3.4 s ago", "12 s ago", "3 min ago", "" when unknown. Coarser as it grows: an agent
// that stopped calling leaves its card's text the same between pushes (nothing to repaint).
export function ago(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 1000) return ` ${ms} ms ago`;
  if (ms < 10_000) return ` ${(ms / 1000).toFixed(1)} s ago`;
  return ms < 60_000 ? ` ${Math.floor(ms / 1000)} s ago` : ` ${Math.floor(ms / 60_000)} min ago`;
}

function el(tag, className, content) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (content !== undefined) node.textContent = content;
  return node;
}

// The panel: a drawer over the right of the page, opened by the header's Agents button.
export class AgentsPanel {
  constructor(agents, { panel, list, toggle, close }) {
    this.agents = agents;
    this.panel = panel;
    this.list = list;
    this.toggle = toggle;
    toggle.addEventListener("click", () => this.show(!agents.open));
    close.addEventListener("click", () => this.show(false));
    this.list.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-kick]");
      if (!button) return;
      agents.kick(Number(button.dataset.kick));
      button.disabled = true;
      button.textContent = "ending…";
    });
    this.timer = null;
  }

  show(open) {
    this.panel.hidden = !open;
    this.toggle.setAttribute("aria-pressed", String(open));
    clearInterval(this.timer);
    this.agents.setOpen(open);
    if (open) {
      // No push for a while (the owner restarted, this document is new to it): say it again.
      this.timer = setInterval(() => {
        const last = this.agents.last;
        if (!last || this.agents.clock() - last.at > STALE_MS) this.agents.tell();
        this.render();
      }, STALE_MS);
    }
    this.render();
  }

  // Redrawn on each push: the cards stay and only what changed is written, so a second's push
  // of the same pictures repaints a few numbers, not the panel (the owner's Chrome does the work).
  render() {
    if (!this.agents.open) return;
    const last = this.agents.last;
    let note = "";
    if (!last) note = "Waiting for pix3's Chrome owner (it shows the agents connected to the Chrome `pix3 editor` started).";
    else if (this.agents.clock() - last.at > STALE_MS) note = "pix3's Chrome owner stopped answering: the agents below are as they were.";
    else if (!last.body.clients.length) note = "No agent is connected.";
    this.note ??= this.list.appendChild(el("p", "muted"));
    setText(this.note, note);
    if (this.note.hidden !== !note) this.note.hidden = !note;
    this.cards ??= new Map();
    const shown = new Set();
    for (const c of last ? last.body.clients : []) {
      shown.add(c.client);
      let card = this.cards.get(c.client);
      if (!card) {
        card = newCard(c.client);
        this.cards.set(c.client, card);
        this.list.append(card.node);
      }
      updateCard(card, c);
    }
    for (const [client, card] of this.cards) {
      if (!shown.has(client)) {
        card.node.remove();
        this.cards.delete(client);
      }
    }
  }
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function newCard(client) {
  const node = el("section", "agent");
  const head = el("div", "agent-head");
  const name = el("b");
  const kick = el("button", "", "Kick");
  kick.dataset.kick = String(client);
  kick.title = `End client #${client} and what it opened, as its disconnect would (pix3 editor --kick ${client})`;
  head.append(name, kick);
  const counts = el("div", "agent-facts mono");
  const lastCall = el("div", "agent-facts mono");
  const who = el("div", "agent-ua muted");
  node.append(head, counts, lastCall, who);
  return { node, name, counts, lastCall, who, tabs: [] };
}

function updateCard(card, c) {
  setText(card.name, `#${c.client} ${c.name ?? "(no name)"}`);
  const rate = c.callsPerSecond === null ? "–" : c.callsPerSecond;
  setText(card.counts, `${rate} calls/s · ${c.calls ?? 0} calls · ${c.errors ?? 0} errors`);
  setText(card.lastCall, `last ${c.lastMethod ?? "–"}${ago(c.lastAgoMs)}`);
  const since = /T(\d\d:\d\d:\d\d)/.exec(c.since)?.[1];
  setText(card.who, [since && `since ${since} UTC`, c.userAgent].filter(Boolean).join(" · "));
  while (card.tabs.length > c.tabs.length) card.tabs.pop().node.remove();
  c.tabs.forEach((tab, i) => {
    let row = card.tabs[i];
    if (!row) {
      row = { node: el("div", "agent-tab"), img: el("img"), none: el("div", "agent-nothumb muted"), title: el("div"), url: el("div", "muted mono") };
      const words = el("div", "agent-tabtext");
      words.append(row.title, row.url);
      row.node.append(row.img, row.none, words);
      card.tabs.push(row);
      card.node.append(row.node);
    }
    if (row.img.hidden !== !tab.thumbnail) row.img.hidden = !tab.thumbnail;
    if (row.none.hidden !== Boolean(tab.thumbnail)) row.none.hidden = Boolean(tab.thumbnail);
    // A picture the owner did not send again is the same string: compared by reference, decoded once.
    if (tab.thumbnail && row.src !== tab.thumbnail) {
      row.src = tab.thumbnail;
      row.img.src = tab.thumbnail;
    }
    if (row.img.alt !== `tab ${tab.title}`) row.img.alt = `tab ${tab.title}`;
    setText(row.none, tab.editor ? "this page" : "no picture");
    setText(row.title, tab.title || "(untitled)");
    setText(row.url, tab.url);
  });
}
