"""The Chrome owner's watchdog over the editor tab and the game frames in it (docs/reliability.md,
"A game or a client that holds a main thread"; docs/chrome-owner.md, "The watchdog").

Sans-IO: fed the messages of its own session (the proxy's internal client attached to the editor
tab, with the tab's out-of-process frames auto-attached below it) and the clock, it returns what
to send and what to tell. The proxy's transport runs it (:mod:`pix3net.owner.proxy.transport`).

Why a session of its own, attached from the start: a renderer whose main thread spins answers
nothing sent on a session attached later (the attach itself waits for that thread), but on a
session that exists already V8 handles ``Debugger.pause`` and ``Runtime.terminateExecution`` in
its interrupt path, between two bytecodes of the spinning script. ``Debugger.enable`` needs the
thread, so it is sent up front, with breakpoints deactivated (a ``debugger;`` statement must not
stop a page because the owner watches it; ``Debugger.pause`` still works).

Each watched target gets one ``Runtime.getIsolateId`` a second (answered on its main thread, no
script compiled, so no ``scriptParsed`` echo); one in flight at most. When none has been answered
for :data:`HUNG_SECONDS`, the script is paused, its frames read (the line
:func:`pix3tools.smoke.spin_frames` words, through the scripts' source maps), then terminated and
resumed, and the editor page is told through ``window.__PIX3_OWNER_REPORT__``. An editor tab still
silent :data:`REOPEN_SECONDS` after that is replaced.

Each editor document also gets :data:`AGENTS_BINDING`, the editor page's way to ask the owner for
the agents (:class:`PageAsks`; the Agents view, :mod:`pix3net.owner.proxy._agentsview`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from pix3net.wire.hostrule import is_loopback_name
from pix3tools.smoke import SourceMap, SourceMapError, decode_data_url, map_location, spin_frames

__all__ = [
    "AGENTS_BINDING",
    "HEARTBEAT_SECONDS",
    "HUNG_SECONDS",
    "MAPS_SECONDS",
    "PAUSE_SECONDS",
    "REOPEN_SECONDS",
    "REPORT_FUNCTION",
    "FetchMap",
    "Log",
    "PageAsks",
    "ReplaceEditor",
    "Send",
    "WatchAction",
    "Watchdog",
    "report_expression",
]

# One heartbeat a second per watched target: the watchdog's whole cost when nothing is wrong.
HEARTBEAT_SECONDS = 1.0
# A main thread that answered nothing for this long is held by a script. A frame is 16 ms and
# the slowest legitimate tasks we measured (a cold editor page parsing its modules, a 2 000-node
# scene view) stay well under 1 s; 2 s is the bound, and leaves an agent's own call
# (chrome-devtools-mcp waits 5 s for a script) time to end first when it can.
HUNG_SECONDS = 2.0
# Debugger.pause is handled between two bytecodes; a thread that has not paused in this long is
# busy outside JavaScript (layout, a GC): it is terminated without frames.
PAUSE_SECONDS = 0.5
# Source maps served over HTTP are loaded while the script stays paused, at most this long.
MAPS_SECONDS = 1.0
# After the script was ended, an editor tab that still does not answer is replaced (the issue:
# the editor tab is back within 2 s).
REOPEN_SECONDS = 2.0
# An editor tab whose scripts had to be ended this many times within the window is replaced: a
# page that re-enters its loop at once (a timer, a frame callback) answers between two ends but
# is no use to anyone.
MAX_ENDS = 3
ENDS_WINDOW_SECONDS = 30.0
# Scripts remembered per target for naming frames (a page evaluating without end must not grow
# the owner); the oldest go first.
MAX_SCRIPTS = 4096
# Decoded source maps kept between holds (an inline map is as large as its module's source).
MAX_MAPS = 64
# What the editor page defines to hear the watchdog (docs/chrome-owner.md, "The watchdog").
REPORT_FUNCTION = "__PIX3_OWNER_REPORT__"
# The function the watchdog's session gives the editor page (``Runtime.addBinding``) to tell the
# owner it wants the agents, or a kick (docs/cdp-proxy.md, "The editor page's Agents view"): one
# message when the page calls it, none otherwise. Without ``Runtime.enable`` (whose console events
# would cost the owner every log line of the page and its game) a binding does not outlive its
# document, so it is given again to each new document of the editor tab's main frame.
AGENTS_BINDING = "__PIX3_AGENTS_ASK__"
# What a call of the binding may carry (a want and a few kicks).
MAX_BINDING_PAYLOAD = 4096
# The sources of collected scripts the debugger keeps for a session (`maxScriptsCacheSize`: no
# limit when it is not given). The watchdog names frames from `Debugger.scriptParsed` (URLs),
# never from sources, and a spinning script is not collected: it keeps none. Measured: 20 000
# evaluations of 4 KB scripts in the editor tab grew its renderer by 161 MiB without the bound,
# 3 MiB with it (`test_scripts_evaluated_in_the_editor_tab_do_not_pile_up`).
SCRIPTS_CACHE_BYTES = 0
_SETUP: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Debugger.enable", {"maxScriptsCacheSize": SCRIPTS_CACHE_BYTES}),
    ("Debugger.setBreakpointsActive", {"active": False}),
)
# Only frames: a game in an out-of-process iframe is its own target; workers are not watched.
_AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True, "filter": [{"type": "iframe"}]}


@dataclass(frozen=True)
class Send:
    """A message on the watchdog's own session (its own ids; the router remaps them)."""

    text: str


@dataclass(frozen=True)
class FetchMap:
    """Load this source map (``http(s)``, the script's own loopback origin) and give its text to
    :meth:`Watchdog.map_loaded` (None when it cannot be read)."""

    url: str


@dataclass(frozen=True)
class ReplaceEditor:
    """The editor tab does not come back: close it and open it again at its address."""

    why: str


@dataclass(frozen=True)
class Log:
    text: str


@dataclass(frozen=True)
class PageAsks:
    """The editor page called :data:`AGENTS_BINDING` with ``payload`` (unchecked text) from the
    execution context ``context`` (where the owner answers it)."""

    payload: str
    context: int | None = None


WatchAction = Send | FetchMap | ReplaceEditor | Log | PageAsks


def report_expression(report: dict[str, Any]) -> str:
    """The editor page is told, never awaited: a page without the function ignores it."""
    body = json.dumps(report, separators=(",", ":"))
    return f'typeof window.{REPORT_FUNCTION} === "function" && void window.{REPORT_FUNCTION}({body})'


@dataclass
class _Script:
    url: str
    map_url: str  # resolved against the script's URL; "" when it has none
    frame: str  # the frame it runs in ("" when Chrome did not say)


@dataclass
class _Target:
    session: str | None  # None: the watchdog's root session, the editor tab
    target_id: str
    kind: str  # "editor" or "game"
    answered: float  # when its main thread last answered
    asked: int | None = None  # the heartbeat in flight
    state: str = "watching"  # watching → pausing → (mapping) → ended → watching
    since: float = 0.0
    freed: bool = False  # the thread answered while our pause was on its way
    paused: dict[str, Any] | None = None
    quiet_from: float = 0.0  # the last answer before the hold: how long it was held
    scripts: dict[str, _Script] = field(default_factory=dict)
    ends: list[float] = field(default_factory=list)  # when its scripts were ended (the window's)
    held: bool = False  # paused by someone else (a client's Debugger.pause or breakpoint)


class Watchdog:
    """One per editor tab. ``start`` first, then ``feed`` every message of the session, ``tick``
    at :meth:`due`, ``map_loaded`` for each :class:`FetchMap`."""

    def __init__(self, editor: str, now: float) -> None:
        self.editor = editor
        self._ids = 0
        self._targets: dict[str | None, _Target] = {None: _Target(None, editor, "editor", now)}
        self._maps: dict[str, SourceMap | None] = {}
        self._fetching: set[str] = set()
        self._bound_context: int | None = None  # the editor document given the binding

    # -- queries ---------------------------------------------------------------------------
    def silent_since(self, now: float) -> float | None:
        """When the editor tab last answered, if it has not answered for :data:`HUNG_SECONDS`."""
        editor = self._targets.get(None)
        if editor is None or editor.asked is None or now - editor.answered < HUNG_SECONDS:
            return None
        return editor.answered

    def held(self) -> list[str]:
        """Targets paused by someone else. Without the watchdog, Chrome resumes a pause when the
        last session with the debugger enabled leaves; the watchdog's own session would keep it,
        so the transport asks :meth:`release` for those no client holds a session on any more."""
        return [t.target_id for t in self._targets.values() if t.held]

    def release(self, target_id: str) -> list[WatchAction]:
        """Resume a pause whose clients have all left (docs/chrome-owner.md, "The watchdog")."""
        actions: list[WatchAction] = []
        for t in self._targets.values():
            if t.held and t.target_id == target_id:
                t.held = False
                actions += [
                    self._send(t, "Debugger.resume")[1],
                    Log(f"{t.kind} {t.target_id}: resumed a pause its client left"),
                ]
        return actions

    @property
    def watched(self) -> int:
        return len(self._targets)

    def due(self) -> float:
        """The next moment :meth:`tick` has something to do."""
        moments = []
        for t in self._targets.values():
            if t.state == "watching":
                moments.append(t.answered + (HUNG_SECONDS if t.asked is not None else HEARTBEAT_SECONDS))
            elif t.state == "pausing":
                moments.append(t.since + PAUSE_SECONDS)
            elif t.state == "mapping":
                moments.append(t.since + MAPS_SECONDS)
            elif t.state == "ended":
                moments.append(t.since + REOPEN_SECONDS)
        return min(moments, default=math.inf)

    # -- out -------------------------------------------------------------------------------
    def _send(self, target: _Target | None, method: str, params: dict[str, Any] | None = None) -> tuple[int, Send]:
        self._ids += 1
        message: dict[str, Any] = {"id": self._ids, "method": method, "params": params or {}}
        if target is not None and target.session is not None:
            message["sessionId"] = target.session
        return self._ids, Send(json.dumps(message, separators=(",", ":")))

    def _setup(self, target: _Target) -> list[WatchAction]:
        return [self._send(target, method, params)[1] for method, params in _SETUP]

    def start(self) -> list[WatchAction]:
        root = self._targets[None]
        return [*self._setup(root), self._send(root, "Target.setAutoAttach", _AUTO_ATTACH)[1]]

    # -- the clock -------------------------------------------------------------------------
    def tick(self, now: float) -> list[WatchAction]:
        actions: list[WatchAction] = []
        for target in list(self._targets.values()):
            actions += self._tick(target, now)
        return actions

    def _tick(self, t: _Target, now: float) -> list[WatchAction]:
        if t.state == "watching":
            if t.asked is None and now - t.answered >= HEARTBEAT_SECONDS:
                t.asked, send = self._send(t, "Runtime.getIsolateId")
                return [send]
            if t.asked is not None and now - t.answered >= HUNG_SECONDS:
                t.state, t.since, t.freed, t.quiet_from = "pausing", now, False, t.answered
                return [self._send(t, "Debugger.pause")[1]]
            return []
        if t.state == "pausing" and now - t.since >= PAUSE_SECONDS:
            if t.freed:  # it answered by itself and no script was running to pause
                return self._disarm(t, now)
            return self._end(t, now, None)
        if t.state == "mapping" and now - t.since >= MAPS_SECONDS:
            return self._end(t, now, t.paused)
        if t.state == "ended" and now - t.since >= REOPEN_SECONDS:
            if t.kind == "editor" and t.session is None:
                t.state, t.since = "replaced", now
                why = f"editor tab {t.target_id} still did not answer {REOPEN_SECONDS:g} s after its script was ended"
                return [ReplaceEditor(why)]
            # A game frame holding on: watched again, ended again.
            t.state, t.answered = "watching", now - HUNG_SECONDS
        return []

    def _disarm(self, t: _Target, now: float) -> list[WatchAction]:
        """Our pause is still pending for a thread that freed itself: disabling the debugger drops
        it (the next script must not be stopped for what this one did not do)."""
        t.state, t.answered = "watching", now
        return [self._send(t, "Debugger.disable")[1], *self._setup(t)]

    # -- Chrome ----------------------------------------------------------------------------
    def feed(self, text: str | bytes, now: float) -> list[WatchAction]:
        try:
            message = json.loads(text)
        except ValueError:
            return []
        if not isinstance(message, dict):
            return []
        session = message.get("sessionId")
        target = self._targets.get(session if isinstance(session, str) else None)
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if "id" in message:
            if target is not None and message["id"] == target.asked:
                return self._answered(target, now)
            return []
        method = message.get("method")
        if method == "Target.attachedToTarget":
            return self._attached(params, now)
        if method == "Target.detachedFromTarget":
            gone = params.get("sessionId")
            if isinstance(gone, str):
                self._targets.pop(gone, None)
            return []
        if target is None:
            return []
        if method == "Debugger.scriptParsed":
            self._parsed(target, params)
            if target.session is None:
                return self._bind(target, params)
        elif method == "Runtime.bindingCalled" and target.session is None:
            payload = params.get("payload")
            if (
                params.get("name") == AGENTS_BINDING
                and isinstance(payload, str)
                and len(payload) <= MAX_BINDING_PAYLOAD
            ):
                context = params.get("executionContextId")
                return [PageAsks(payload, context if isinstance(context, int) else None)]
        elif method == "Debugger.paused":
            return self._paused(target, params, now)
        elif method == "Debugger.resumed":
            target.held = False
        elif method == "Inspector.targetCrashed" and target.session is not None:
            report = {"kind": "crashed", "target": "game", "reason": "the game frame's renderer crashed"}
            return [Log(f"game frame {target.target_id} crashed"), *self._report(report)]
        return []

    def _answered(self, t: _Target, now: float) -> list[WatchAction]:
        t.asked, t.answered = None, now
        if t.state == "pausing":
            t.freed = True
        elif t.state == "ended":
            t.state = "watching"
            return [Log(f"{t.kind} {t.target_id} answers again")]
        return []

    def _attached(self, params: dict[str, Any], now: float) -> list[WatchAction]:
        session, info = params.get("sessionId"), params.get("targetInfo")
        if not isinstance(session, str) or not isinstance(info, dict) or info.get("type") != "iframe":
            return []
        target = _Target(session, str(info.get("targetId", "")), "game", now)
        self._targets[session] = target
        return [*self._setup(target), self._send(target, "Inspector.enable")[1]]

    def _bind(self, t: _Target, params: dict[str, Any]) -> list[WatchAction]:
        """A script of a new document in the editor tab's main frame (whose id is the tab's):
        that document gets the binding. ``Debugger.enable`` reports the scripts already parsed,
        so the document open when the watchdog starts gets it too."""
        context = params.get("executionContextId")
        aux = params.get("executionContextAuxData")
        if (
            not isinstance(context, int)
            or context == self._bound_context
            or not isinstance(aux, dict)
            or aux.get("isDefault") is not True
            or aux.get("frameId") != t.target_id
        ):
            return []
        self._bound_context = context
        return [self._send(t, "Runtime.addBinding", {"name": AGENTS_BINDING})[1]]

    def _parsed(self, t: _Target, params: dict[str, Any]) -> None:
        script, url = params.get("scriptId"), params.get("url")
        if not isinstance(script, str) or not isinstance(url, str) or not url:
            return  # an evaluation without a URL names nothing a person can open
        given = params.get("sourceMapURL")
        map_url = urljoin(url, given) if isinstance(given, str) and given and not given.startswith("data:") else given
        aux = params.get("executionContextAuxData")
        frame = aux.get("frameId") if isinstance(aux, dict) else None
        if len(t.scripts) >= MAX_SCRIPTS:
            del t.scripts[next(iter(t.scripts))]
        t.scripts[script] = _Script(
            url, map_url if isinstance(map_url, str) else "", frame if isinstance(frame, str) else ""
        )

    def _paused(self, t: _Target, params: dict[str, Any], now: float) -> list[WatchAction]:
        if t.state != "pausing":
            t.held = True  # a client's pause, or a breakpoint of its: not ours to end while it stays
            return []
        if t.freed:  # the thread had freed itself: this is the next script, stopped for nothing
            t.state, t.answered = "watching", now
            return [self._send(t, "Debugger.resume")[1]]
        t.paused = params
        wanted = []
        for url in self._map_urls(t, params):
            if url in self._maps or url in self._fetching:
                continue
            text = decode_data_url(url) if url.startswith("data:") else None
            if text is not None or not _fetchable(url):
                self._keep(url, _decoded(text))
                continue
            self._fetching.add(url)
            wanted.append(FetchMap(url))
        if any(url in self._fetching for url in self._map_urls(t, params)):
            t.state, t.since = "mapping", now
            return list(wanted)
        return self._end(t, now, params)

    def _keep(self, url: str, source_map: SourceMap | None) -> None:
        if len(self._maps) >= MAX_MAPS:
            del self._maps[next(iter(self._maps))]
        self._maps[url] = source_map

    def _map_urls(self, t: _Target, params: dict[str, Any]) -> list[str]:
        urls = []
        for call in params.get("callFrames") or []:
            location = call.get("location") if isinstance(call, dict) else None
            script = t.scripts.get(str(location.get("scriptId"))) if isinstance(location, dict) else None
            if script is not None and script.map_url:
                urls.append(script.map_url)
        return urls

    def map_loaded(self, url: str, text: str | None, now: float) -> list[WatchAction]:
        self._fetching.discard(url)
        self._keep(url, _decoded(text))
        actions: list[WatchAction] = []
        for t in list(self._targets.values()):
            if t.state == "mapping" and not any(u in self._fetching for u in self._map_urls(t, t.paused or {})):
                actions += self._end(t, now, t.paused)
        return actions

    # -- ending a script -------------------------------------------------------------------------
    def _locate(self, t: _Target, url: str, line: int, column: int) -> tuple[str, int, int] | None:
        script = next((s for s in t.scripts.values() if s.url == url), None)
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return None
        origin = f"{parts.scheme}://{parts.netloc}"
        source_map = self._maps.get(script.map_url) if script is not None and script.map_url else None
        map_url = script.map_url if script is not None and not script.map_url.startswith("data:") else url
        return map_location(source_map, map_url, url, line, column, origin, None)

    def _end(self, t: _Target, now: float, paused: dict[str, Any] | None) -> list[WatchAction]:
        urls = {sid: s.url for sid, s in t.scripts.items()}
        calls = paused.get("callFrames") if paused is not None else None
        where, frames = spin_frames(calls, urls, lambda url, line, col: self._locate(t, url, line, col))
        label = t.kind
        if t.session is None and isinstance(calls, list) and calls:
            top = calls[0].get("location", {}) if isinstance(calls[0], dict) else {}
            script = t.scripts.get(str(top.get("scriptId"))) if isinstance(top, dict) else None
            if script is not None and script.frame and script.frame != self.editor:
                label = "game"  # a same-process game frame in the editor page
        held = round((now - t.quiet_from) * 1000)
        t.state, t.since, t.paused = "ended", now, None
        actions: list[WatchAction] = [self._send(t, "Runtime.terminateExecution")[1]]
        if paused is not None:
            actions.append(self._send(t, "Debugger.resume")[1])
        if t.asked is None:  # answered while paused: a fresh question says whether it is back
            t.asked, send = self._send(t, "Runtime.getIsolateId")
            actions.append(send)
        busy = f" busy in {where}" if where else ""
        actions.append(Log(f"{label} {t.target_id} held its main thread {held} ms{busy}: its script was ended"))
        report = {"kind": "hung", "target": label, "where": where, "frames": frames, "heldMs": held}
        actions += self._report(report)
        t.ends = [*(e for e in t.ends if now - e < ENDS_WINDOW_SECONDS), now]
        if t.session is None and len(t.ends) >= MAX_ENDS:
            t.state = "replaced"
            why = f"editor tab {t.target_id} had its scripts ended {len(t.ends)} times in {ENDS_WINDOW_SECONDS:g} s"
            actions.append(ReplaceEditor(why))
        return actions

    def _report(self, report: dict[str, Any]) -> list[WatchAction]:
        expression = report_expression(report)
        return [self._send(None, "Runtime.evaluate", {"expression": expression})[1]]


def _decoded(text: str | None) -> SourceMap | None:
    if text is None:
        return None
    try:
        return SourceMap(text)
    except SourceMapError:
        return None


def _fetchable(url: str) -> bool:
    """Maps are loaded only from loopback HTTP (the dev servers): a page must not make the owner
    fetch from anywhere else."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    return parts.scheme in ("http", "https") and is_loopback_name(f"[{host}]" if ":" in host else host)
