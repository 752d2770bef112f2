"""The pure CDP multiplexer: many WebSocket clients over Chrome's one pipe (docs/cdp-proxy.md, "Session model").

Fed messages, it returns actions; it never touches a socket. The transport
executes the actions in order. Every client gets its own root session; ids are remapped through
one counter shared with the proxy's own calls; events go only to the client that owns their
session; another client's session is answered as unknown.

What each client opened, what it may not touch and the editor tab are :mod:`pix3net.wire._owners`'
bookkeeping; the router feeds it from the few methods it looks at twice (docs/cdp-proxy.md,
"Ownership and protection") and from the proxy's own target discovery on the pipe root. The
actions it returns are :mod:`pix3net.wire._actions`'; what each id it sent stands for and what it
knows of each client, :mod:`pix3net.wire._routerstate`'s.

One file because the router is one state machine over shared tables: every handler reads and
writes the same maps (the pending ids, the clients, each session's owner and parent, the roots, the
departing sessions), an id allocated on the way to Chrome is resolved on the way back, and a
departure undoes what an attach recorded. Split into classes by direction or by concern, each
invariant (a session has one owner, an id is answered once, a departed client's sessions are let
run before its root is detached) would be kept in several files; the data it speaks and remembers
is already apart (the two modules above, and ``_owners``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from pix3net.wire._actions import Action, Attached, CallDone, Close, Note, Sweep, ToChrome, ToClient
from pix3net.wire._owners import (
    BROWSER_CLOSE,
    CREATE_CONTEXT,
    CREATE_TARGET,
    DEBUGGER_OFF,
    DEBUGGER_ON,
    DISPOSE_CONTEXT,
    GRACE_SECONDS,
    MAX_KEPT_CONTEXTS,
    MAX_KEPT_TARGETS,
    MAX_TARGETS,
    NEEDS_PARAMS,
    REFUSED,
    RUN_IF_WAITING,
    SET_AUTO_ATTACH,
    WATCHED,
    Owners,
    connect_options,
)
from pix3net.wire._routerstate import (
    Attach,
    ClientState,
    Discover,
    Forward,
    Home,
    Leaving,
    OwnCall,
    Pending,
    Quiet,
    Reopen,
    command,
    error_text,
    watched_params,
)
from pix3net.wire.envelope import ChromeMessage, ClientRequest, chrome_envelope, client_request, error_reply
from pix3net.wire.recentcalls import Recorded, redacted_params

# The ownership bookkeeping (`_owners`) is private; the query options a client connects with are
# offered here.
__all__ = [
    "ATTACHED",
    "CHROME_GONE",
    "CLOSE_GOING_AWAY",
    "CLOSE_NORMAL",
    "DETACHED",
    "DISCOVER_FILTER",
    "KICKED",
    "MAX_PIPE_ID",
    "SESSION_ENDED",
    "TARGET_CHANGED",
    "TARGET_CRASHED",
    "TARGET_CREATED",
    "TARGET_DESTROYED",
    "UNKNOWN_SESSION",
    "Action",
    "Attached",
    "CallDone",
    "Close",
    "Note",
    "Router",
    "Sweep",
    "ToChrome",
    "ToClient",
    "connect_options",
]


# Ids on the pipe stay below 2^31: Chrome parses the id as a 32-bit int and answers anything
# larger with an error that carries no usable id.
MAX_PIPE_ID = 2**31 - 1

UNKNOWN_SESSION = -32001
CHROME_GONE = -32000
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001

ATTACHED = "Target.attachedToTarget"
DETACHED = "Target.detachedFromTarget"
TARGET_CREATED = "Target.targetCreated"
TARGET_CHANGED = "Target.targetInfoChanged"
TARGET_DESTROYED = "Target.targetDestroyed"
TARGET_CRASHED = "Target.targetCrashed"
# Every target but the browser: tab targets too (Chrome's default leaves them out), so that the
# tabs the router learns of are forgotten when they go.
DISCOVER_FILTER = [{"type": "browser", "exclude": True}, {}]
_E = ord("e")  # the first letter of "error" after `{"id":N,"`
SESSION_ENDED = "Browser.close: this client's session ended; Chrome stays up for the others"
KICKED = "ended by pix3 editor --kick; Chrome stays up for the others"


class Router:
    def __init__(self, first_id: int = 1, editor_url: str = "", clock: Callable[[], float] = time.monotonic) -> None:
        self._next = first_id
        self._pending: dict[int, Pending] = {}
        self._clients: dict[int, ClientState] = {}
        self._attaching: set[int] = set()
        self._owner: dict[str, int] = {}  # session → client
        self._parent: dict[str, str] = {}  # child session → parent session
        self._roots: dict[str, int] = {}  # root session → client
        self._session_target: dict[str, str] = {}  # session → the target it is attached to (when known)
        self.owners = Owners(editor_url)
        self.editor_url = editor_url  # what the owner launched Chrome with
        self.chrome_is_gone = False
        self._departing: dict[str, int] = {}  # sessions of departed clients until their root is detached
        self._homing = False  # the editor tab is being sent back to the editor page
        self.clock = clock
        self.recording = False  # someone watches: each client's recent calls are kept

    # -- queries -------------------------------------------------------------------------
    @property
    def client_count(self) -> int:
        return len(self._clients)

    def is_open(self, client: int) -> bool:
        return client in self._clients

    def sessions_of(self, client: int) -> frozenset[str]:
        known = self._clients.get(client)
        return frozenset(known.sessions) if known else frozenset()

    def root_of(self, client: int) -> str | None:
        known = self._clients.get(client)
        return known.root if known else None

    def debuggers(self, target: str) -> frozenset[int]:
        """The clients with the debugger enabled on a session of theirs on ``target`` (the proxy's
        own included): who still wants a pause there."""
        return frozenset(
            client
            for client, known in self._clients.items()
            for session in known.debugging
            if self._session_target.get(session) == target
        )

    @property
    def pending_count(self) -> int:
        return len(self._pending)

    @property
    def editor(self) -> str | None:
        """The editor tab's target id (pix3's: no client may close or crash it)."""
        return self.owners.editor

    def status(self, client: int) -> dict[str, Any] | None:
        """What ``client`` owns and how much it relayed; None when it is not open."""
        known = self._clients.get(client)
        if known is None:
            return None
        holding = self.owners.holdings.get(client)
        return {
            "relayed": known.relayed,
            "keep": holding.keep if holding else False,
            "targets": sorted(holding.targets) if holding else [],
            "contexts": sorted(holding.contexts) if holding else [],
        }

    def kept(self) -> dict[str, Any]:
        """What keepers left open past their clients, oldest first, with the client that opened it."""
        owners = self.owners
        return {
            "targets": [
                {"targetId": target, "client": client, "url": owners.page_urls.get(target, "")}
                for target, client in owners.kept.items()
            ],
            "contexts": [{"browserContextId": c, "client": client} for c, client in owners.kept_contexts.items()],
        }

    def facts(self, client: int) -> dict[str, Any] | None:
        """What the views of the clients show beyond :meth:`status` (docs/cdp-proxy.md,
        "Watching"); None when it is not open. ``lastAt`` and each call's ``started`` are on the
        router's clock."""
        known = self._clients.get(client)
        if known is None:
            return None
        holding = self.owners.holdings.get(client)
        tabs = {t for t in (holding.targets if holding else ()) if t in self.owners.page_urls}
        page = self._session_target.get(known.root) if known.root is not None else None
        if page is not None and page in self.owners.page_urls:
            tabs.add(page)
        return {
            "calls": known.calls,
            "errors": known.errors,
            "lastMethod": known.last_method or None,
            "lastAt": known.last_at if known.last_method else None,
            "sessions": len(known.sessions),
            "tabs": [
                {"targetId": t, "title": self.owners.page_titles.get(t, ""), "url": self.owners.page_urls.get(t, "")}
                for t in sorted(tabs)
            ],
            "recent": list(known.recent),
        }

    def clients(self) -> list[int]:
        """The open clients, in the order they connected."""
        return sorted(self._clients)

    # -- ids -----------------------------------------------------------------------------
    def _allocate(self, entry: Pending) -> int:
        while True:
            pipe_id = self._next
            self._next = pipe_id + 1 if pipe_id < MAX_PIPE_ID else 1
            if pipe_id not in self._pending:
                self._pending[pipe_id] = entry
                return pipe_id

    # -- the proxy's own calls --------------------------------------------------------------
    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> tuple[int, list[Action]]:
        """An internal call on the pipe root, or on a session of the proxy's own (``session``: one
        it attached with its own ``Target.attachToTarget``; no client sees its events); its answer
        comes back as :class:`CallDone`."""
        if self.chrome_is_gone:
            return -1, [CallDone(-1, None, f"{method}: Chrome is gone")]
        pipe_id = self._allocate(OwnCall(method))
        if session is None:
            return pipe_id, [ToChrome(command(pipe_id, method, params or {}))]
        body = {"id": pipe_id, "sessionId": session, "method": method, "params": params or {}}
        return pipe_id, [ToChrome(json.dumps(body, separators=(",", ":")).encode())]

    def watch_targets(self) -> list[Action]:
        """The proxy's own target discovery on the pipe root (once, at start): the router learns
        which page is the editor tab, who opened which page, and when the editor tab goes."""
        if self.chrome_is_gone:
            return []
        pipe_id = self._allocate(Discover())
        return [ToChrome(command(pipe_id, "Target.setDiscoverTargets", {"discover": True, "filter": DISCOVER_FILTER}))]

    def open_client(self, client: int, page: str | None = None, *, keep: bool = False) -> list[Action]:
        """Attach a new client's root session; answered later by :class:`Attached`. ``keep``: what
        the client opens stays when it leaves."""
        method = "Target.attachToTarget" if page is not None else "Target.attachToBrowserTarget"
        if self.chrome_is_gone:
            return [Attached(client, f"{method}: Chrome is gone")]
        params: dict[str, Any] = {"targetId": page, "flatten": True} if page is not None else {}
        pipe_id = self._allocate(Attach(client, method, page, keep))
        self._attaching.add(client)
        return [ToChrome(command(pipe_id, method, params))]

    # -- client → Chrome -----------------------------------------------------------------------
    def from_client(self, client: int, text: str) -> list[Action]:
        known = self._clients.get(client)
        if known is None:
            return []
        checked = client_request(text)
        if isinstance(checked, bytes):
            known.errors += 1
            return [ToClient(client, (checked,))]
        known.calls += 1
        known.last_method = checked.method
        known.last_at = self.clock()
        record = self._record(known, checked, text) if self.recording else None
        if checked.method in WATCHED:
            return self._watched(client, known, checked, text, record)
        return self._forward(client, known, checked, "", "", record)

    def _record(self, known: ClientState, request: ClientRequest, text: str) -> Recorded:
        session = request.session_value if request.has_session else known.root
        target = self._session_target.get(session) if isinstance(session, str) else None
        record = Recorded(request.method, target, known.last_at, redacted_params(request.method, text))
        known.recent.append(record)
        return record

    def _failed(self, known: ClientState, record: Recorded | None, why: str) -> None:
        known.errors += 1
        if record is not None:
            record.duration = 0.0
            record.error = why

    def _watched(
        self, client: int, known: ClientState, request: ClientRequest, text: str, record: Recorded | None = None
    ) -> list[Action]:
        """A method the ownership bookkeeping reads: refused, ended here, or forwarded and watched."""
        session = request.session_value if request.has_session else known.root
        if not isinstance(session, str) or session not in known.sessions or self.chrome_is_gone:
            return self._forward(client, known, request, record=record)  # answered -32001 / -32000 there
        method = request.method
        params = watched_params(text) if method in NEEDS_PARAMS else {}
        on = self._session_target.get(session)
        why = self.owners.refusal(client, method, params, on)
        echo = request.session_json() if request.has_session else None
        if why is not None:
            self._failed(known, record, why)
            return [ToClient(client, (error_reply(request.id_text, REFUSED, why, echo),))]
        if method == BROWSER_CLOSE:
            if record is not None:
                record.duration = 0.0
            return self._end_session(client, request.id_text, echo)
        if method in (CREATE_TARGET, CREATE_CONTEXT):
            self.owners.creating(client, method)
            return self._forward(client, known, request, method, record=record)
        if method == DISPOSE_CONTEXT:
            return self._forward(client, known, request, method, str(params.get("browserContextId")), record)
        if method == SET_AUTO_ATTACH:
            if params.get("autoAttach") is True:
                known.auto_attach.add(session)
            else:
                known.auto_attach.discard(session)
        elif method == RUN_IF_WAITING:
            known.waiting.discard(session)
        elif method == DEBUGGER_ON:
            known.debugging.add(session)
        elif method == DEBUGGER_OFF:
            known.debugging.discard(session)
        return self._forward(client, known, request, record=record)

    def _forward(
        self,
        client: int,
        known: ClientState,
        request: ClientRequest,
        watch: str = "",
        detail: str = "",
        record: Recorded | None = None,
    ) -> list[Action]:
        session = known.root
        if request.has_session:
            given = request.session_value
            if not isinstance(given, str) or given not in known.sessions:
                text = request.session_json()
                self._failed(known, record, "Session with given id not found.")
                reply = error_reply(request.id_text, UNKNOWN_SESSION, "Session with given id not found.", text)
                return [ToClient(client, (reply,))]
            session = given
        if self.chrome_is_gone or session is None:
            self._failed(known, record, "Chrome is gone")
            return [ToClient(client, (error_reply(request.id_text, CHROME_GONE, "Chrome is gone"),))]
        pipe_id = self._allocate(Forward(client, request.id_text, watch, detail, record))
        known.relayed += 1
        return [ToChrome(request.for_chrome(pipe_id, session))]

    # -- Chrome → clients ------------------------------------------------------------------------
    def from_chrome(self, raw: bytes) -> list[Action]:
        message = chrome_envelope(raw)
        if message is None:
            return []
        if message.id is not None:
            return self._reply(message)
        if message.session is None:
            return self._root_event(message)
        return self._session_event(message)

    def _reply(self, message: ChromeMessage) -> list[Action]:
        assert message.id is not None
        entry = self._pending.pop(message.id, None)
        if isinstance(entry, Forward):
            if entry.watch:
                return self._watched_reply(entry, message)
            known = self._clients.get(entry.client)
            if known is None:
                return []
            known.relayed += 1
            if entry.record is not None:
                self._answered(known, entry.record, message)
            else:
                span = message.id_span
                # Chrome writes `{"id":N,"error":` or `{"id":N,"result":`: one byte tells them apart
                # on the fast path (the hot path's cost of counting errors; docs/cdp-proxy.md,
                # "Watching"), the parsed members otherwise.
                if (
                    (message.raw[span[1] + 2] == _E)
                    if span is not None and message.parsed is None
                    else message.is_error()
                ):
                    known.errors += 1
            drop = message.session is not None and message.session == known.root
            return [ToClient(entry.client, message.for_client(entry.id_text, drop_session=drop))]
        if isinstance(entry, OwnCall):
            body = message.body()
            if "error" in body:
                return [CallDone(message.id, None, f"{entry.method}: {error_text(body)}")]
            return [CallDone(message.id, body.get("result"), None)]
        if isinstance(entry, Attach):
            return self._attached(entry, message.body())
        if isinstance(entry, Discover):
            return self._reported(message.body())
        if isinstance(entry, Reopen):
            return self._reopened(entry, message.body())
        if isinstance(entry, Leaving):
            return self._left(entry)
        if isinstance(entry, Home):
            return self._homing_step(entry, message.body())
        return []

    def _watched_reply(self, entry: Forward, message: ChromeMessage) -> list[Action]:
        actions: list[Action] = []
        known = self._clients.get(entry.client)
        if known is not None:
            known.relayed += 1
            if entry.record is not None:
                self._answered(known, entry.record, message)
            elif message.is_error():
                known.errors += 1
            drop = message.session is not None and message.session == known.root
            actions.append(ToClient(entry.client, message.for_client(entry.id_text, drop_session=drop)))
        return actions + self._owned(entry, message)

    def _answered(self, known: ClientState, record: Recorded, message: ChromeMessage) -> None:
        record.duration = self.clock() - record.started
        if message.is_error():
            known.errors += 1
            record.error = error_text(message.body())

    def _owned(self, entry: Forward, message: ChromeMessage) -> list[Action]:
        body = message.body()
        result = body.get("result")
        if entry.watch == DISPOSE_CONTEXT:
            if isinstance(result, dict):
                self.owners.disposed(entry.detail)
            return []
        key = "targetId" if entry.watch == CREATE_TARGET else "browserContextId"
        ident = result.get(key) if isinstance(result, dict) else None
        ident = ident if isinstance(ident, str) else None
        if self.owners.created(entry.client, entry.watch, ident) or ident is None or self.chrome_is_gone:
            return []
        # Its client left and what it owned was closed already: this one goes the same way.
        return self._close_things(
            {ident} if entry.watch == CREATE_TARGET else set(), set() if entry.watch == CREATE_TARGET else {ident}
        )

    def _attached(self, entry: Attach, body: dict[str, Any]) -> list[Action]:
        client = entry.client
        result = body.get("result")
        session = result.get("sessionId") if isinstance(result, dict) else None
        if client not in self._attaching:  # the client left while we attached it
            if isinstance(session, str) and not self.chrome_is_gone:
                return self._detach(session)
            return []
        self._attaching.discard(client)
        if "error" in body or not isinstance(session, str):
            return [Attached(client, f"{entry.method}: {error_text(body)}")]
        self._clients[client] = ClientState(root=session, sessions={session})
        self._owner[session] = client
        self._roots[session] = client
        if entry.page is not None:
            self._session_target[session] = entry.page
        self.owners.join(client, entry.keep)
        return [Attached(client, None)]

    def _root_event(self, message: ChromeMessage) -> list[Action]:
        body = message.body()
        method = body.get("method")
        params = body.get("params")
        if not isinstance(params, dict):
            return []
        if method != DETACHED:
            return self._target_event(method, params)
        session = params.get("sessionId")
        client = self._roots.get(session) if isinstance(session, str) else None
        if client is None:
            return []
        self._drop(client)
        return [Close(client, CLOSE_NORMAL, "target closed")]

    def _session_event(self, message: ChromeMessage) -> list[Action]:
        assert message.session is not None
        client = self._owner.get(message.session)
        if client is None:
            return self._departing_event(message) if message.session in self._departing else []
        known = self._clients[client]
        known.relayed += 1
        if message.method in (ATTACHED, DETACHED):
            body = message.body()
            method = body.get("method")
            params = body.get("params")
            child = params.get("sessionId") if isinstance(params, dict) else None
            if isinstance(child, str) and method == ATTACHED and child not in self._owner:
                known.sessions.add(child)
                self._owner[child] = client
                self._parent[child] = message.session
                if isinstance(params, dict) and params.get("waitingForDebugger") is True:
                    known.waiting.add(child)
                info = params.get("targetInfo") if isinstance(params, dict) else None
                target = info.get("targetId") if isinstance(info, dict) else None
                if isinstance(info, dict) and isinstance(target, str):
                    self._session_target[child] = target
                    # Which page a tab holds is learnt from Chrome's own reports only (the proxy's
                    # discovery): a client's attach under a tab's session proves nothing.
                    if info.get("type") == "tab":
                        self.owners.tabs.add(target)
            elif isinstance(child, str) and method == DETACHED and self._owner.get(child) == client:
                self._forget_tree(child)
        drop = message.session == known.root
        return [ToClient(client, message.for_client(None, drop_session=drop))]

    def _forget_tree(self, session: str) -> None:
        """Forget a detached child and every session below it (Chrome drops them with it)."""
        doomed = {session}
        grew = True
        while grew:
            below = {child for child, parent in self._parent.items() if parent in doomed} - doomed
            grew = bool(below)
            doomed |= below
        for gone in doomed:
            client = self._owner.pop(gone, None)
            self._parent.pop(gone, None)
            self._session_target.pop(gone, None)
            if client is not None and client in self._clients:
                known = self._clients[client]
                known.sessions.discard(gone)
                known.auto_attach.discard(gone)
                known.waiting.discard(gone)
                known.debugging.discard(gone)

    # -- departures -------------------------------------------------------------------------------
    def _drop(self, client: int) -> ClientState | None:
        known = self._clients.pop(client, None)
        self._attaching.discard(client)
        if known is None:
            return None
        for session in known.sessions:
            self._owner.pop(session, None)
            self._parent.pop(session, None)
            self._session_target.pop(session, None)
        if known.root is not None:
            self._roots.pop(known.root, None)
        return known

    def _quiet(self, method: str, params: dict[str, Any], session: str | None = None) -> ToChrome:
        pipe_id = self._allocate(Quiet())
        return ToChrome(command(pipe_id, method, params, session))

    def _detach(self, root: str) -> list[Action]:
        return [self._quiet("Target.detachFromTarget", {"sessionId": root})]

    def client_gone(self, client: int) -> list[Action]:
        """A client's socket closed: forget it and detach its root (its children go with it);
        what it opened is closed after the grace (:class:`Sweep`) unless it asked to keep it."""
        known = self._drop(client)
        if known is None:
            return []
        holding = self.owners.holdings.get(client)
        if self.chrome_is_gone or holding is None or holding.empty:
            self.owners.release(client)
            return self._leave(client, known)
        if holding.keep and not (holding.creating_targets or holding.creating_contexts):
            self.owners.release(client)
            return [*self._leave(client, known), Note(self._kept_text(client, holding)), *self._bound_kept()]
        # Closed after the grace; a keeper's holding only waits there for its creates on the way.
        return [*self._leave(client, known), Sweep(client, GRACE_SECONDS)]

    def kick(self, client: int) -> list[Action]:
        """`pix3 editor --kick`: end a client as its own disconnect would (its root detached, what
        it opened closed after the grace unless it asked to keep it), and close its socket."""
        if client not in self._clients:
            return []
        return [
            *self.client_gone(client),
            Note(f"client {client} ended by pix3 editor --kick"),
            Close(client, CLOSE_NORMAL, KICKED),
        ]

    def forget_recent(self) -> None:
        """Nobody watches any more: the recent calls kept for the views go."""
        for known in self._clients.values():
            known.recent.clear()

    def _leave(self, client: int, known: ClientState) -> list[Action]:
        """Undo what Chrome would keep of a departed client's sessions, then detach its root:
        targets waiting for a debugger are let run, auto-attach is turned off. Its root is detached
        once Chrome has answered the last of those, so a target Chrome auto-attached for it just
        before is reported to the proxy, and let run, first."""
        if known.root is None or self.chrome_is_gone:
            return []
        actions: list[Action] = [self._quiet(RUN_IF_WAITING, {}, session) for session in sorted(known.waiting)]
        if not known.auto_attach:
            return [*actions, *self._detach(known.root)]
        for session in known.sessions:
            self._departing[session] = client
        off = {"autoAttach": False, "waitForDebuggerOnStart": False, "flatten": True}
        last = sorted(known.auto_attach)
        actions += [self._quiet(SET_AUTO_ATTACH, off, session) for session in last[:-1]]
        pipe_id = self._allocate(Leaving(client, known.root))
        actions.append(ToChrome(command(pipe_id, SET_AUTO_ATTACH, off, last[-1])))
        return actions

    def _departing_event(self, message: ChromeMessage) -> list[Action]:
        """An event on a departed client's session before its root is detached: a target attached
        for it that waits for a debugger is let run (nobody is left to do it)."""
        if message.method != ATTACHED:
            return []
        params = message.body().get("params")
        child = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(params, dict) or not isinstance(child, str):
            return []
        self._departing[child] = self._departing[message.session or ""]
        if params.get("waitingForDebugger") is not True:
            return []
        return [self._quiet(RUN_IF_WAITING, {}, child)]

    def _left(self, entry: Leaving) -> list[Action]:
        for session in [s for s, c in self._departing.items() if c == entry.client]:
            del self._departing[session]
        if entry.root is None or self.chrome_is_gone:
            return []
        return self._detach(entry.root)

    @staticmethod
    def _kept_text(client: int, holding: Any) -> str:
        return f"client {client} left {len(holding.targets)} targets and {len(holding.contexts)} contexts open (keep)"

    def sweep(self, client: int) -> list[Action]:
        """The grace after ``client`` left is over: close the targets and dispose of the browser
        contexts it opened (a create answered later is closed on arrival)."""
        holding = self.owners.release(client)
        if holding is None or self.chrome_is_gone or (not holding.targets and not holding.contexts):
            return []
        if holding.keep:
            return [Note(self._kept_text(client, holding)), *self._bound_kept()]
        text = f"client {client} left: closed {len(holding.targets)} targets and {len(holding.contexts)} browser contexts it opened"
        return [*self._close_things(holding.targets, holding.contexts), Note(text)]

    def _bound_kept(self) -> list[Action]:
        """Close the oldest of what keepers left open past the bound for all of them together."""
        targets, contexts = self.owners.over_kept()
        if not targets and not contexts:
            return []
        text = (
            f"kept past their clients: over {MAX_KEPT_TARGETS} targets or {MAX_KEPT_CONTEXTS} browser contexts,"
            f" closed the oldest {len(targets)} targets and {len(contexts)} browser contexts"
        )
        return [*self._close_things(set(targets), set(contexts)), Note(text)]

    def _close_things(self, targets: set[str], contexts: set[str]) -> list[Action]:
        actions: list[Action] = [self._quiet("Target.closeTarget", {"targetId": t}) for t in sorted(targets)]
        actions += [self._quiet("Target.disposeBrowserContext", {"browserContextId": c}) for c in sorted(contexts)]
        return actions

    def _end_session(self, client: int, id_text: str, session_text: str | None) -> list[Action]:
        """``Browser.close`` from a client: its own session ends (what it opened is closed now),
        Chrome stays up for the others."""
        session = f',"sessionId":{session_text}' if session_text is not None else ""
        reply = f'{{"id":{id_text},"result":{{}}{session}}}'.encode()
        known = self._drop(client)
        holding = self.owners.release(client)
        actions: list[Action] = [ToClient(client, (reply,))]
        if known is not None:
            actions += self._leave(client, known)
        targets, contexts = (holding.targets, holding.contexts) if holding is not None else (set(), set())
        actions += self._close_things(targets, contexts)
        text = f"client {client} ended its session (Browser.close): closed {len(targets)} targets and {len(contexts)} browser contexts it opened"
        actions += [Note(text), Close(client, CLOSE_NORMAL, SESSION_ENDED)]
        return actions

    # -- the proxy's own target discovery ------------------------------------------------------------
    def _target_event(self, method: Any, params: dict[str, Any]) -> list[Action]:
        info = params.get("targetInfo")
        if method == TARGET_CREATED and isinstance(info, dict):
            closing = self.owners.target_created(info)
            if closing:
                text = f"closed popup {' '.join(closing)}: its opener's client is at its limit of {MAX_TARGETS} targets"
                if closing != [info.get("targetId")]:
                    text = f"kept past their clients: over {MAX_KEPT_TARGETS} targets, closed the oldest {len(closing)}"
                return [*self._close_things(set(closing), set()), Note(text)]
        elif method == TARGET_CHANGED and isinstance(info, dict):
            if self.owners.target_changed(info) and not self._homing and not self.chrome_is_gone:
                return self._send_home(str(info.get("url")))
        elif method == TARGET_DESTROYED:
            target = params.get("targetId")
            if isinstance(target, str) and self.owners.target_destroyed(target):
                return self._reopen(f"editor tab {target} was closed")
        elif method == TARGET_CRASHED:
            target = params.get("targetId")
            if isinstance(target, str) and target == self.owners.editor:
                self.owners.editor = self.owners.editor_tab = None
                # The crashed tab shows Chrome's error page: it goes, a fresh one comes.
                return [
                    self._quiet("Target.closeTarget", {"targetId": target}),
                    *self._reopen(f"editor tab {target} crashed ({params.get('status')})"),
                ]
        return []

    def _reported(self, body: dict[str, Any]) -> list[Action]:
        self.owners.reported_all()
        if "error" in body:  # nothing was reported: no editor tab to open again on a guess
            return [Note(f"target discovery failed ({error_text(body)}): pages opened by pages are not tracked")]
        if self.owners.editor is None and self.editor_url:
            return self._reopen("no editor tab was open")
        return []

    def replace_editor(self, why: str) -> list[Action]:
        """The owner's watchdog gave up on the editor tab (it does not answer): close it and open
        a fresh one at its address, as for a crashed one."""
        target = self.owners.editor
        if target is None or self.chrome_is_gone:
            return []
        self.owners.editor = self.owners.editor_tab = None
        return [self._quiet("Target.closeTarget", {"targetId": target}), *self._reopen(why)]

    def _reopen(self, why: str) -> list[Action]:
        url = self.owners.home_url or self.editor_url
        if not url or self.chrome_is_gone:
            return [Note(f"{why}; no address to open it again")]
        pipe_id = self._allocate(Reopen(url))
        return [
            Note(f"{why}; opening it again ({url})"),
            ToChrome(command(pipe_id, "Target.createTarget", {"url": url})),
        ]

    def _reopened(self, entry: Reopen, body: dict[str, Any]) -> list[Action]:
        result = body.get("result")
        target = result.get("targetId") if isinstance(result, dict) else None
        if not isinstance(target, str):
            return [Note(f"could not open the editor tab again: {error_text(body)}")]
        if self.owners.editor is None:
            self.owners.opened_again(target, entry.url)
        return [Note(f"editor tab opened again (target {target})")]

    def _send_home(self, url: str) -> list[Action]:
        """The editor tab left the editor page (a client's script set ``location``): it goes back."""
        editor, home = self.owners.editor, self.owners.home_url
        if editor is None:
            return []
        self._homing = True
        pipe_id = self._allocate(Home(editor))
        return [
            Note(f"editor tab {editor} was moved to {url[:200]}; sending it back to {home}"),
            ToChrome(command(pipe_id, "Target.attachToTarget", {"targetId": editor, "flatten": True})),
        ]

    def _homing_step(self, entry: Home, body: dict[str, Any]) -> list[Action]:
        result = body.get("result")
        if entry.session:  # the navigation was answered: our session goes
            self._homing = False
            actions = [] if self.chrome_is_gone else self._detach(entry.session)
            if "error" in body:
                actions.append(Note(f"could not send the editor tab back: {error_text(body)}"))
            return actions
        session = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session, str) or self.chrome_is_gone:
            self._homing = False
            return [Note(f"could not send the editor tab back: {error_text(body)}")]
        pipe_id = self._allocate(Home(entry.target, session))
        return [ToChrome(command(pipe_id, "Page.navigate", {"url": self.owners.home_url}, session))]

    def chrome_gone(self) -> list[Action]:
        """The pipe closed: fail internal calls, close every client 1001."""
        self.chrome_is_gone = True
        actions: list[Action] = []
        for pipe_id, entry in sorted(self._pending.items()):
            if isinstance(entry, OwnCall):
                actions.append(CallDone(pipe_id, None, f"{entry.method}: Chrome is gone"))
            elif isinstance(entry, Attach) and entry.client in self._attaching:
                actions.append(Attached(entry.client, f"{entry.method}: Chrome is gone"))
        self._pending.clear()
        self._attaching.clear()
        self.owners = Owners(self.editor_url)
        self._departing.clear()
        self._homing = False
        for client in list(self._clients):
            self._drop(client)
            actions.append(Close(client, CLOSE_GOING_AWAY, "Chrome closed"))
        return actions
