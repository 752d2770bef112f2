// The error buffer behind pix3_errors (docs/bridge.md, "pix3_errors"): the last 200 errors and
// warnings of the editor page and of the game frame, each {at, source, message, stack?, origin,
// frame?, code?, url?, reason?}. `frame` is the game_run frame the entry arrived in while a run is
// on; `code` is the shared rules' code for a game's entry (judge.js), `url` and `reason` say which
// file did not load and why. The game's entries come from its probe (play.js); captureWindow
// watches the editor page itself.

export const ERROR_LIMIT = 200;

// Errors from the game frame are instances of the frame's own Error: recognise them by shape.
function isError(value) {
  return value !== null && typeof value === "object" && typeof value.message === "string" &&
    typeof value.name === "string" && "stack" in value;
}

export function describeValue(value) {
  if (isError(value)) return `${value.name}: ${value.message}`;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export class ErrorBuffer {
  constructor({ limit = ERROR_LIMIT, clock = Date.now } = {}) {
    this.limit = limit;
    this.clock = clock;
    this.entries = [];
    this.pushed = 0; // every entry ever pushed: a run counts its new errors with it (the ring drops)
    this.frameOf = () => undefined;
    this.listeners = new Set();
  }

  push({ source, message, stack, origin, code, url, reason }) {
    const entry = { at: this.clock(), source, message: String(message) };
    if (typeof stack === "string" && stack) entry.stack = stack;
    entry.origin = origin;
    const frame = this.frameOf();
    if (frame !== undefined) entry.frame = frame;
    if (typeof code === "string") entry.code = code;
    if (typeof url === "string") entry.url = url;
    if (typeof reason === "string") entry.reason = reason;
    this.entries.push(entry);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    this.pushed += 1;
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  list(since) {
    const copy = this.entries.map((entry) => ({ ...entry }));
    return since === undefined ? copy : copy.filter((entry) => entry.at > since);
  }

  // The entries pushed after the count `mark` (as read from `pushed`), those still held.
  since(mark) {
    const fresh = this.pushed - mark;
    return fresh <= 0 ? [] : this.entries.slice(-Math.min(fresh, this.entries.length));
  }

  clear() {
    this.entries = [];
    for (const listener of this.listeners) listener(null);
  }

  get length() {
    return this.entries.length;
  }
}

// Wraps console.error / console.warn of the editor page's own window and listens for its uncaught
// errors, failed resource loads and unhandled rejections (the game is watched by its probe).
export function captureWindow(win, buffer, origin) {
  for (const level of ["error", "warn"]) {
    const original = win.console[level];
    win.console[level] = function (...args) {
      const first = args.find(isError);
      buffer.push({
        source: `console.${level}`,
        message: args.map(describeValue).join(" "),
        stack: first ? first.stack : undefined,
        origin,
      });
      return original.apply(this, args);
    };
  }
  win.addEventListener("error", (event) => {
    const target = event.target;
    if (target && target !== win && typeof target.tagName === "string") {
      const url = target.src || target.href || "";
      buffer.push({ source: "resource", message: `Failed to load ${target.tagName.toLowerCase()} ${url}`, origin });
      return;
    }
    buffer.push({
      source: "window.onerror",
      message: event.message || describeValue(event.error),
      stack: isError(event.error) ? event.error.stack : undefined,
      origin,
    });
  }, true);
  win.addEventListener("unhandledrejection", (event) => {
    const reason = event.reason;
    buffer.push({
      source: "unhandledrejection",
      message: describeValue(reason),
      stack: isError(reason) ? reason.stack : undefined,
      origin,
    });
  });
}
