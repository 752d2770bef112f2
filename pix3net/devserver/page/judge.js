// The rules of a game run (docs/game-page.md, "The judge"): the facts the probe collected
// (recorder.js) in, codes and a verdict out. `pix3 smoke` and the editor page's pix3_game_run /
// pix3_errors judge with these rules and no others, so the same page gets the same codes and
// verdict in both. Pure: no DOM, no clock (tested under node:test).
//
// Valid as a classic script and as a module (no import, no export): it defines one global,
// globalThis.__PIX3_JUDGE__ = {judge, classify, loadFindings, timeoutReason, ownerFinding}.
globalThis.__PIX3_JUDGE__ = (function pix3Judge() {
  "use strict";

  const LOG_LINES = 40; // console.log/info lines a report keeps (all are counted)
  const DEFAULT_ADVICE = "TypeScript needs the project's Vite: run npm install in the project";

  // What the Pix3 runtime writes when it catches a script's throw, a tick's or a game command's.
  const SCRIPT_THREW = /^\[NodeBase\] Script "([^"]+)" threw in (\w+)\s*:?\s*([\s\S]*)$/;
  const TICK_THREW = "[SceneRunner] Error during game update";
  const COMMAND_THREW = "[GameCommands]";
  const PENDING = /^Component type "(.+?)" is not registered yet — kept as pending on node "(.+?)"/;
  const LOADER_PREFIXES = ["[SceneLoader]", "[AssetLoader]", "[ResourceManager]", "[SceneRunner]", "[SceneService]"];
  // Warnings every browser run of a dev build prints that say nothing about the game.
  const DROPPED_WARNINGS = ["Lit is in dev mode", "THREE.Clock: "];
  // Requests that are not the project's files: Vite's own modules, the dev server's API, packages.
  const NOT_PROJECT = ["@vite/", "@id/", "@fs/", "@react-refresh", "__pix3/", "node_modules/"];
  // Script source a browser cannot run as it is (the dev server serves these as text/plain).
  const COMPILED_SOURCE = [".ts", ".tsx", ".mts", ".cts", ".jsx"];
  const JAVASCRIPT_TYPES = ["text/javascript", "application/javascript", "application/x-javascript",
    "text/ecmascript", "application/ecmascript", "application/x-ecmascript", "application/wasm"];
  // Module types an import may legitimately ask for (`with {type: "json"}`, CSS modules).
  const MODULE_DATA_TYPES = ["application/json", "text/json", "text/css"];
  const RESOURCE_KINDS = { img: "image", image: "image", fetch: "fetch", xmlhttprequest: "xhr", link: "link",
    css: "stylesheet", audio: "media", video: "media", track: "media", script: "script", other: "other" };

  const essence = (type) => String(type || "").split(";", 1)[0].trim().toLowerCase();
  const isJavaScript = (type) => JAVASCRIPT_TYPES.includes(essence(type));
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const seconds = (ms) => (ms / 1000).toFixed(1);

  // The rules. Pure: facts in (a probe's facts(), as data), findings out. `ctx`: origin (the dev
  // server's, for project paths), pageUrl, advice (what to do about TypeScript served
  // uncompiled), network ({url: reason} a CDP client saw, e.g. "net::ERR_CONNECTION_REFUSED"),
  // dialogs ([{type, text, frame}] opened before the probe could answer them), framesRequested.

  function projectPath(url, ctx) {
    const origin = ctx && ctx.origin;
    if (!origin || !url.startsWith(`${origin}/`)) return null;
    let path = url.slice(origin.length + 1).split("#", 1)[0].split("?", 1)[0];
    try { path = decodeURIComponent(path); } catch (_) { /* kept as sent */ }
    if (!path || NOT_PROJECT.some((prefix) => path.startsWith(prefix))) return null;
    return path;
  }

  const nameOf = (url, ctx) => {
    const path = projectPath(url, ctx);
    return path !== null ? `res://${path}` : url;
  };

  function refusedMessage(url, type, ctx) {
    const served = essence(type) || "no type";
    const path = url.split("?", 1)[0].split("#", 1)[0].toLowerCase();
    if (COMPILED_SOURCE.some((suffix) => path.endsWith(suffix))) {
      const language = path.endsWith(".jsx") ? "JSX" : "TypeScript";
      return `the page's script ${nameOf(url, ctx)} did not run: it is ${language}, which a browser cannot run,` +
        ` and the dev server sent it uncompiled (${served}); ${(ctx && ctx.advice) || DEFAULT_ADVICE}.`;
    }
    return `the page's script ${nameOf(url, ctx)} did not run: the browser runs a module only when it is` +
      ` served as JavaScript, and the dev server sent ${served}.`;
  }

  // An answer that failed: an HTTP error, or none at all (status 0; from another origin a script
  // that loaded fine reads 0 too, so only the page's own origin counts there).
  const failedAnswer = (resource, origin) => Boolean(resource) && resource.status !== null &&
    (resource.status >= 400 || (resource.status === 0 && (origin === undefined || resource.url.startsWith(`${origin}/`))));
  const originOf = (url) => {
    try { return new URL(url).origin; } catch (_) { return undefined; }
  };

  // Why an answer failed: what a CDP client saw of it, else its HTTP status, else "no answer".
  function failReason(url, resource, ctx) {
    const seen = ctx && ctx.network && ctx.network[url];
    return seen || (resource && resource.status >= 400 ? `HTTP ${resource.status}` : "no answer");
  }

  const didNotLoad = (url, resource, ctx) => `the page's script ${nameOf(url, ctx)} did not load (${failReason(url, resource, ctx)}).`;

  // The entry script elements that did not run: those whose `error` the probe saw, and those
  // whose own answer says so (a window's listener can miss the first document's element errors:
  // recorder.js) — an error status, no answer, or a module not served as JavaScript.
  function failedElements(facts, ctx) {
    const seen = facts.loads.elements.filter((e) => e.script);
    const byUrl = new Map(facts.loads.resources.map((r) => [r.url, r]));
    const found = [...seen];
    for (const entry of facts.scripts) {
      if (!entry.url || found.some((e) => e.url === entry.url)) continue;
      const own = byUrl.get(entry.url);
      const refused = entry.module && own && own.status > 0 && own.status < 400 && own.type !== null && !isJavaScript(own.type);
      if (failedAnswer(own) || refused || (ctx.network && ctx.network[entry.url])) {
        found.push({ seq: own ? own.seq : 0, frame: own ? own.frame : 0, tag: "script", url: entry.url, script: true });
      }
    }
    return found.sort((a, b) => a.seq - b.seq);
  }

  // Entry scripts: how many, how many ran. A failed import fails its module graph, so a page
  // that drew nothing and whose module imports failed counts its modules as not run when no
  // element said which one (the editor's probe may not have heard it).
  function entryScripts(facts, ctx, findings) {
    const failedUrls = new Set(failedElements(facts, ctx).map((e) => e.url));
    const total = facts.scripts.length;
    let failed = facts.scripts.filter((e) => e.failed || (e.url && failedUrls.has(e.url))).length;
    const imported = findings.some((f) => f.code === "E_SMOKE_LOAD" && !facts.scripts.some((e) => e.url === f.url));
    if (failed === 0 && imported && facts.frames.drawn === 0) failed = facts.scripts.filter((e) => e.module).length;
    return { total, failed, ran: facts.loaded ? total - failed : 0 };
  }

  // Load failures → findings {level, code, message, frame, seq, url, reason}. Each failing URL once.
  function loadFindings(facts, ctx = {}) {
    const findings = [];
    const named = new Set();
    const resources = facts.loads.resources;
    const byUrl = new Map(resources.map((r) => [r.url, r]));
    const origin = originOf(facts.url);
    const served = (r) => r.status !== null && r.status > 0 && r.status < 400 && Boolean(r.type);
    const add = (code, level, url, message, at, reason) => {
      named.add(url);
      findings.push({ level, code, message, frame: at.frame, seq: at.seq, url, reason });
    };
    // Scripts that answered an error (an element's, or a module another imports).
    for (const resource of resources) {
      if (resource.initiator === "script" && resource.status >= 400) {
        add("E_SMOKE_LOAD", "error", resource.url, didNotLoad(resource.url, resource, ctx), resource, failReason(resource.url, resource, ctx));
      }
    }
    const scriptElements = failedElements(facts, ctx);
    const elementUrls = new Set(scriptElements.map((e) => e.url));
    let imported = findings.some((f) => !elementUrls.has(f.url));
    for (const element of scriptElements) {
      if (named.has(element.url) || imported) continue;
      const own = element.url ? byUrl.get(element.url) : undefined;
      if (element.url && (failedAnswer(own) || (ctx.network && ctx.network[element.url]))) {
        add("E_SMOKE_LOAD", "error", element.url, didNotLoad(element.url, own, ctx), element, failReason(element.url, own, ctx));
        continue;
      }
      if (own && own.type !== null && own.status > 0 && !isJavaScript(own.type)) {
        add("E_SMOKE_LOAD", "error", element.url, refusedMessage(element.url, own.type, ctx), element, `served as ${essence(own.type) || "no type"}`);
        continue;
      }
      // The element's own answer was fine: a module it imports failed. Which one? A script
      // answer that failed, else one served as something other than JavaScript.
      const scripts = resources.filter((r) => r.initiator === "script" && !named.has(r.url));
      const culprit = scripts.find((r) => failedAnswer(r, origin)) ||
        scripts.find((r) => served(r) && !isJavaScript(r.type) && !MODULE_DATA_TYPES.includes(essence(r.type))) ||
        scripts.find((r) => served(r) && !isJavaScript(r.type));
      if (culprit) {
        if (failedAnswer(culprit, origin)) add("E_SMOKE_LOAD", "error", culprit.url, didNotLoad(culprit.url, culprit, ctx), element, failReason(culprit.url, culprit, ctx));
        else add("E_SMOKE_LOAD", "error", culprit.url, refusedMessage(culprit.url, culprit.type, ctx), element, `served as ${essence(culprit.type)}`);
        imported = true;
        continue;
      }
      if (element.url) {
        add("E_SMOKE_LOAD", "error", element.url, `the page's script ${nameOf(element.url, ctx)} did not run: the browser` +
          " could not load it or a module it imports.", element, "unknown");
      } else {
        const page = ctx.pageUrl || facts.url;
        add("E_SMOKE_LOAD", "error", page, `an inline script of the game page ${page} did not run: the browser could` +
          " not load a module it imports.", element, "unknown");
      }
    }
    // Other project files the page asked for and did not get.
    for (const resource of resources) {
      if (resource.initiator === "script" || !(resource.status >= 400) || named.has(resource.url)) continue;
      const path = projectPath(resource.url, ctx);
      if (path === null || (resource.initiator === "other" && path === "favicon.ico")) continue;
      const kind = RESOURCE_KINDS[resource.initiator] || resource.initiator;
      const what = `the page's ${kind} request got HTTP ${resource.status}`;
      const message = resource.status === 404 || resource.status === 410
        ? `res://${path} does not exist (${what}).` : `res://${path} could not be loaded (${what}).`;
      add("W_SMOKE_MISSING_RESOURCE", "warning", resource.url, message, resource, `HTTP ${resource.status}`);
    }
    return findings.sort((a, b) => a.seq - b.seq);
  }

  const phaseOf = (word) => (/^on[A-Z]/.test(word) ? word[2].toLowerCase() + word.slice(3) : word);

  // One event → a finding {level: "error"|"warning"|"log", code, message, …}, or null.
  function classify(event, ctx = {}) {
    const at = { frame: event.frame, seq: event.seq };
    switch (event.kind) {
      case "error":
        return { level: "error", code: "E_SMOKE_SCRIPT", message: event.message, stack: event.stack, ...at };
      case "rejection":
        return { level: "error", code: "E_SMOKE_UNHANDLED", phase: "promise", message: event.message, stack: event.stack, ...at };
      case "console": {
        const line = event.text;
        if (event.level === "log" || event.level === "info") return { level: "log", message: line, ...at };
        if (event.level === "warn") {
          if (DROPPED_WARNINGS.some((prefix) => line.startsWith(prefix))) return null;
          const pending = PENDING.exec(line);
          if (pending) {
            return { level: "warning", code: "W_SMOKE_PENDING_COMPONENT", message: `${pending[1]} on node "${pending[2]}" is not registered — it never runs.`, ...at };
          }
          const code = LOADER_PREFIXES.some((prefix) => line.startsWith(prefix)) ? "W_SMOKE_LOADER" : "W_SMOKE_CONSOLE_WARN";
          return { level: "warning", code, message: line, ...at };
        }
        const threw = SCRIPT_THREW.exec(line);
        if (threw) {
          return { level: "error", code: "E_SMOKE_SCRIPT", phase: phaseOf(threw[2]), message: threw[3] || line, script: threw[1], stack: event.stack, ...at };
        }
        const code = line.startsWith(TICK_THREW) ? "E_SMOKE_TICK" : line.startsWith(COMMAND_THREW) ? "E_SMOKE_COMMAND" : "E_SMOKE_CONSOLE_ERROR";
        return { level: "error", code, message: line, stack: event.stack, ...at };
      }
      case "dialog": {
        const answer = event.type === "prompt" ? "answered with its default value" : event.type === "alert" ? "answered OK" : "answered OK (accept)";
        return {
          level: "warning", code: "W_SMOKE_DIALOG", reason: event.type,
          message: `the game opened a${event.type === "alert" ? "n" : ""} ${event.type} dialog "${event.text}"; ${answer} so the run went on (a game must not wait on a dialog).`, ...at,
        };
      }
      case "navigation": {
        const stopped = event.blocked ? "it was stopped and the run ended" : "the page could not stop it and the run ended";
        let message;
        if (event.by === "vite") message = `Vite reloaded the game page at frame ${event.frame} (a file changed during the run); ${stopped}.`;
        else if (event.type === "reload") message = `the game page reloaded itself at frame ${event.frame} (${event.url}); ${stopped}.`;
        else message = `the game page tried to leave for ${event.url} at frame ${event.frame}; ${stopped}.`;
        return { level: "error", code: "E_SMOKE_NAVIGATION", message, url: event.url, reason: event.type, ...at };
      }
      case "stall":
        return {
          level: "warning", code: "W_SMOKE_STALL", reason: "busy",
          message: `the main thread was busy for ${seconds(event.ms)} s at frame ${event.frame}: no frame was drawn and no timer ran meanwhile (a long loop or a heavy task).`, ...at,
        };
      default:
        return null;
    }
  }

  // The verdict of a run: {ok, errors, warnings, logs, scripts, frames, firstFrameOk, fatal, summary}.
  // Errors: {code, [phase], message, [script], [stack], frame, [url], [reason]}; warnings: {code,
  // frame, message, [count]} (once per code and message). `fatal` is the first finding that means
  // the game did not run as a game: its page failed, one of its entry scripts did not run, or it
  // left or reloaded.
  function judge(facts, ctx = {}) {
    const findings = [];
    let fatal = null;
    const docStatus = facts.document && facts.document.status;
    if (docStatus !== null && docStatus >= 400) {
      const page = ctx.pageUrl || facts.url;
      const finding = { level: "error", code: "E_SMOKE_LOAD", message: `the game page ${page} answered HTTP ${docStatus}; it needs an index.html that starts the game.`, frame: 0, seq: 0, url: page, reason: `HTTP ${docStatus}` };
      findings.push(finding);
      fatal = finding;
    } else {
      const handled = new Set(facts.events.filter((e) => e.kind === "handled").map((e) => e.of));
      for (const event of facts.events) {
        if (event.kind === "rejection" && handled.has(event.seq)) continue;
        const finding = classify(event, ctx);
        if (finding) findings.push(finding);
      }
      for (const dialog of ctx.dialogs || []) {
        findings.push({ ...classify({ kind: "dialog", ...dialog }, ctx), seq: Infinity });
      }
      if (ctx.left) { // a navigation the probe could not stop (a CDP client saw the page go)
        const left = { kind: "navigation", url: ctx.left, type: "traverse", by: "page", blocked: false, frame: facts.frames.clock };
        findings.push({ ...classify(left, ctx), seq: Infinity });
      }
      findings.push(...loadFindings(facts, ctx));
    }
    findings.sort((a, b) => a.seq - b.seq);

    const errors = [];
    const warnings = [];
    const seen = new Map();
    const logs = { count: 0, lines: [] };
    for (const finding of findings) {
      if (finding.level === "log") {
        logs.count += 1;
        if (logs.lines.length < LOG_LINES) logs.lines.push(`[frame ${finding.frame}] ${finding.message}`);
      } else if (finding.level === "error") {
        const entry = { code: finding.code };
        if (finding.phase !== undefined) entry.phase = finding.phase;
        entry.message = finding.message;
        if (finding.script !== undefined) entry.script = finding.script;
        if (finding.stack) entry.stack = finding.stack;
        entry.frame = finding.frame;
        if (finding.url !== undefined) entry.url = finding.url;
        if (finding.reason !== undefined) entry.reason = finding.reason;
        errors.push(entry);
      } else {
        const key = `${finding.code}\n${finding.message}`;
        const earlier = seen.get(key);
        if (earlier) {
          earlier.count = (earlier.count || 1) + 1;
          continue;
        }
        const entry = { code: finding.code, frame: finding.frame, message: finding.message };
        seen.set(key, entry);
        warnings.push(entry);
      }
    }

    const frames = facts.frames;
    const loadErrors = errors.filter((e) => e.code === "E_SMOKE_LOAD");
    const scripts = entryScripts(facts, ctx, loadErrors);
    if (!fatal && facts.loaded && scripts.total === 0) {
      const page = ctx.pageUrl || facts.url;
      const entry = { code: "E_SMOKE_LOAD", message: `the game page ${page} has no script, so no game code ran; it needs an index.html that starts the game (<script type="module" src="…">).`, frame: 0, url: page, reason: "no script" };
      errors.unshift(entry);
      fatal = entry;
    } else if (!fatal && scripts.failed > 0) { // an entry script of the page did not run: the game is not whole
      fatal = loadErrors[0] || { code: "E_SMOKE_LOAD", message: `${plural(scripts.failed, "entry script")} of the game page did not run.`, frame: 0 };
    } else if (!fatal && facts.loaded && frames.drawn === 0 && frames.clock >= 1 && loadErrors.length === 0) {
      warnings.push({
        code: "W_SMOKE_NO_FRAMES", frame: frames.clock,
        message: `the game never asked for an animation frame: no requestAnimationFrame callback ran in ${plural(frames.clock, "frame")}, so the run saw the page load and no game loop.`,
      });
    }
    if (!fatal) fatal = errors.find((e) => e.code === "E_SMOKE_NAVIGATION") || null;

    const requestedFrames = ctx.framesRequested;
    const enough = frames.clock >= Math.min(1, requestedFrames === undefined ? 1 : requestedFrames);
    const ran = scripts.ran;
    const verdict = {
      ok: errors.length === 0,
      errors,
      warnings,
      logs,
      scripts: { total: scripts.total, ran, failed: scripts.failed },
      frames: { clock: frames.clock, drawn: frames.drawn },
      firstFrameOk: facts.loaded && !fatal && enough && !errors.some((e) => e.frame <= 1),
      fatal: fatal ? { code: fatal.code, message: fatal.message, frame: fatal.frame } : null,
      summary: `${ran} of ${plural(scripts.total, "entry script")} ran, ${plural(frames.drawn, "frame")} drawn`,
    };
    if (ctx.timedOut !== undefined) verdict.timeout = timeoutReason(facts, ctx);
    return verdict;
  }

  // Why no frame came: busy (a loop), blocked by a dialog, idle (nothing asked for a frame, or
  // the page never finished loading), or frames too slow. One sentence, no trailing period.
  function timeoutReason(facts, ctx = {}) {
    const within = ctx.timedOut !== undefined ? `${ctx.timedOut} s` : "the run's time";
    const open = (ctx.dialogs || []).find((d) => d.open);
    if (open) return `no frame for ${within}: the page was blocked by a${open.type === "alert" ? "n" : ""} ${open.type} dialog "${open.text}" that nothing answered`;
    // stopped {afterMs, frame, where}: smoke stopped a script that kept its question waiting afterMs (a
    // loop), at that frame; the heartbeat may have run since, so the gap it closed tells the length.
    const stopped = ctx.stopped;
    const busy = stopped ? Math.max(facts.beat.sinceMs, facts.beat.lastGapMs || 0, stopped.afterMs) : facts.beat.sinceMs;
    if (stopped || busy >= facts.beat.stallMs) {
      const frame = stopped ? stopped.frame : facts.frames.clock;
      // where: the paused loop's place ("frame() at src/game.js:132:31"), in the words the
      // owner's watchdog and smoke share (pix3tools/smoke/_spin.py).
      const where = stopped && stopped.where ? ` in ${stopped.where}` : "";
      return `no frame for ${seconds(busy)} s while the main thread was busy${where}: a script stuck in a loop (at frame ${frame})`;
    }
    const stall = facts.events.filter((e) => e.kind === "stall").pop();
    if (!facts.loaded) {
      return `the page did not finish loading within ${within} and the main thread was idle: its load event never came (a script or resource still loading)`;
    }
    if (!facts.visible) return `no frame for ${within}: the page is hidden, and the browser draws no frames for a hidden page`;
    const asked = facts.frames.waiting > 0;
    const earlier = stall ? `; before that the main thread was busy for ${seconds(stall.ms)} s at frame ${stall.frame} (a loop that was stopped)` : "";
    if (!asked) {
      return `no frame drawn since frame ${facts.frames.last} and the main thread was idle: nothing asked for an animation frame${earlier}`;
    }
    const wanted = ctx.framesRequested !== undefined ? ` of ${ctx.framesRequested}` : "";
    return `only ${facts.frames.clock}${wanted} frames in ${within}: the frames came too slowly (a scene too heavy, or a slow machine)${earlier}`;
  }

  // What the Chrome owner's watchdog saw (docs/game-page.md, "Who adds what"): a script that held
  // a main thread past its bound and was ended, or the game's renderer gone. The report comes
  // from outside the page, so its shape is checked here and anything else is dropped (null).
  // {kind: "hung", target: "game"|"editor", where: "frame() at src/game.js:132:31"|null, frames:
  // [{functionName, url, line, column}], heldMs} → E_SMOKE_TIMEOUT naming where it spun;
  // {kind: "crashed", target: "game", reason} → E_SMOKE_CRASH, as smoke says them.
  const REPORT_TEXT_LIMIT = 500; // a place or a reason is one line
  const REPORT_FRAMES = 50; // call frames kept from a report
  const isText = (value) => typeof value === "string" && value.length <= REPORT_TEXT_LIMIT;
  const isCount = (value) => typeof value === "number" && Number.isFinite(value) && value >= 0;
  function ownerFinding(report, ctx = {}) {
    if (report === null || typeof report !== "object" || Array.isArray(report)) return null;
    if (report.kind === "hung") {
      if (report.target !== "game" && report.target !== "editor") return null;
      if (report.where !== null && report.where !== undefined && !isText(report.where)) return null;
      if (!isCount(report.heldMs)) return null;
      const given = report.frames === undefined ? [] : report.frames;
      if (!Array.isArray(given) || given.length > REPORT_FRAMES * 4) return null;
      const frames = [];
      for (const f of given.slice(0, REPORT_FRAMES)) {
        if (!f || typeof f !== "object" || !isText(f.functionName) || !isText(f.url) || !isCount(f.line) || !isCount(f.column)) return null;
        frames.push({ functionName: f.functionName, url: f.url, line: f.line, column: f.column });
      }
      const where = report.where || null;
      const whose = report.target === "game" ? "the game" : "a script in the editor page";
      // Frames without a file: code evaluated from a string (a CDP client's Runtime.evaluate, eval).
      const evaluated = frames.length > 0 && frames.every((f) => !f.url);
      const place = where ? `busy in ${where}`
        : evaluated ? `busy in ${frames[0].functionName}() of an evaluated script (no source file: a CDP client's Runtime.evaluate or an eval)`
        : "busy in a script the watchdog could not place";
      const frame = ctx.frame !== undefined ? ` at frame ${ctx.frame}` : "";
      return {
        level: "error", code: "E_SMOKE_TIMEOUT", reason: "busy", target: report.target, where, frames,
        heldMs: Math.round(report.heldMs), frame: ctx.frame,
        message: `${place}: ${whose} held its main thread for ${seconds(report.heldMs)} s${frame} (a script stuck in a loop) and the watchdog stopped it.`,
      };
    }
    if (report.kind === "crashed") {
      if (report.target !== "game" || !isText(report.reason)) return null;
      const frame = ctx.frame !== undefined ? ` during frame ${ctx.frame}` : "";
      return {
        level: "error", code: "E_SMOKE_CRASH", reason: report.reason, target: "game", frame: ctx.frame,
        message: `the renderer running the game page crashed${frame} (${report.reason || "no reason given"}); the editor page stays.`,
      };
    }
    return null;
  }

  return Object.freeze({ judge, classify, loadFindings, timeoutReason, ownerFinding, isJavaScript });
})();
