"""The pure CDP multiplexer: many WebSocket clients over Chrome's one pipe (docs/cdp-proxy.md, "Session model").

Fed messages, it returns actions; it never touches a socket. The transport
executes the actions in order. Every client gets its own root session; ids are remapped through
one counter shared with the proxy's own calls; events go only to the client that owns their
session; another client's session is answered as unknown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pix3net.cdp._envelope import (
    ChromeMessage,
    Chunk,
    ClientRequest,
    chrome_envelope,
    client_request,
    error_reply,
)

# Ids on the pipe stay below 2^31: Chrome parses the id as a 32-bit int and answers anything
# larger with an error that carries no usable id.
MAX_PIPE_ID = 2**31 - 1

UNKNOWN_SESSION = -32001
CHROME_GONE = -32000
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001

ATTACHED = "Target.attachedToTarget"
DETACHED = "Target.detachedFromTarget"


@dataclass(frozen=True)
class ToChrome:
    data: bytes


@dataclass(frozen=True)
class ToClient:
    client: int
    parts: tuple[Chunk, ...]

    @property
    def data(self) -> bytes:
        return b"".join(bytes(p) for p in self.parts)


@dataclass(frozen=True)
class Close:
    client: int
    code: int
    reason: str


@dataclass(frozen=True)
class Attached:
    """The outcome of :meth:`Router.open_client`: error None = the client may upgrade."""

    client: int
    error: str | None


@dataclass(frozen=True)
class CallDone:
    call: int
    result: Any
    error: str | None


Action = ToChrome | ToClient | Close | Attached | CallDone


@dataclass
class _Client:
    root: str | None = None
    sessions: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _Forward:
    client: int
    id_text: str


@dataclass(frozen=True)
class _Call:
    method: str


@dataclass(frozen=True)
class _Attach:
    client: int
    method: str


@dataclass(frozen=True)
class _Detach:
    """Our own ``Target.detachFromTarget`` for a departed client: its answer is dropped."""


_Pending = _Forward | _Call | _Attach | _Detach


def _command(pipe_id: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"id": pipe_id, "method": method, "params": params}, separators=(",", ":")).encode()


def _error_text(body: dict[str, Any]) -> str:
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return json.dumps(error)


class Router:
    def __init__(self, first_id: int = 1) -> None:
        self._next = first_id
        self._pending: dict[int, _Pending] = {}
        self._clients: dict[int, _Client] = {}
        self._attaching: set[int] = set()
        self._owner: dict[str, int] = {}  # session → client
        self._parent: dict[str, str] = {}  # child session → parent session
        self._roots: dict[str, int] = {}  # root session → client
        self.chrome_is_gone = False

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

    @property
    def pending_count(self) -> int:
        return len(self._pending)

    # -- ids -----------------------------------------------------------------------------
    def _allocate(self, entry: _Pending) -> int:
        while True:
            pipe_id = self._next
            self._next = pipe_id + 1 if pipe_id < MAX_PIPE_ID else 1
            if pipe_id not in self._pending:
                self._pending[pipe_id] = entry
                return pipe_id

    # -- the proxy's own calls --------------------------------------------------------------
    def call(self, method: str, params: dict[str, Any] | None = None) -> tuple[int, list[Action]]:
        """An internal call on the pipe root; its answer comes back as :class:`CallDone`."""
        if self.chrome_is_gone:
            return -1, [CallDone(-1, None, f"{method}: Chrome is gone")]
        pipe_id = self._allocate(_Call(method))
        return pipe_id, [ToChrome(_command(pipe_id, method, params or {}))]

    def open_client(self, client: int, page: str | None = None) -> list[Action]:
        """Attach a new client's root session; answered later by :class:`Attached`."""
        method = "Target.attachToTarget" if page is not None else "Target.attachToBrowserTarget"
        if self.chrome_is_gone:
            return [Attached(client, f"{method}: Chrome is gone")]
        params: dict[str, Any] = {"targetId": page, "flatten": True} if page is not None else {}
        pipe_id = self._allocate(_Attach(client, method))
        self._attaching.add(client)
        return [ToChrome(_command(pipe_id, method, params))]

    # -- client → Chrome -----------------------------------------------------------------------
    def from_client(self, client: int, text: str) -> list[Action]:
        known = self._clients.get(client)
        if known is None:
            return []
        checked = client_request(text)
        if isinstance(checked, bytes):
            return [ToClient(client, (checked,))]
        return self._forward(client, known, checked)

    def _forward(self, client: int, known: _Client, request: ClientRequest) -> list[Action]:
        session = known.root
        if request.has_session:
            given = request.session_value
            if not isinstance(given, str) or given not in known.sessions:
                text = request.session_json()
                reply = error_reply(request.id_text, UNKNOWN_SESSION, "Session with given id not found.", text)
                return [ToClient(client, (reply,))]
            session = given
        if self.chrome_is_gone or session is None:
            return [ToClient(client, (error_reply(request.id_text, CHROME_GONE, "Chrome is gone"),))]
        pipe_id = self._allocate(_Forward(client, request.id_text))
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
        if isinstance(entry, _Forward):
            known = self._clients.get(entry.client)
            if known is None:
                return []
            drop = message.session is not None and message.session == known.root
            return [ToClient(entry.client, message.for_client(entry.id_text, drop_session=drop))]
        if isinstance(entry, _Call):
            body = message.body()
            if "error" in body:
                return [CallDone(message.id, None, f"{entry.method}: {_error_text(body)}")]
            return [CallDone(message.id, body.get("result"), None)]
        if isinstance(entry, _Attach):
            return self._attached(entry, message.body())
        return []

    def _attached(self, entry: _Attach, body: dict[str, Any]) -> list[Action]:
        client = entry.client
        result = body.get("result")
        session = result.get("sessionId") if isinstance(result, dict) else None
        if client not in self._attaching:  # the client left while we attached it
            if isinstance(session, str) and not self.chrome_is_gone:
                return self._detach(session)
            return []
        self._attaching.discard(client)
        if "error" in body or not isinstance(session, str):
            return [Attached(client, f"{entry.method}: {_error_text(body)}")]
        self._clients[client] = _Client(root=session, sessions={session})
        self._owner[session] = client
        self._roots[session] = client
        return [Attached(client, None)]

    def _root_event(self, message: ChromeMessage) -> list[Action]:
        body = message.body()
        if body.get("method") != DETACHED:
            return []
        params = body.get("params")
        session = params.get("sessionId") if isinstance(params, dict) else None
        client = self._roots.get(session) if isinstance(session, str) else None
        if client is None:
            return []
        self._drop(client)
        return [Close(client, CLOSE_NORMAL, "target closed")]

    def _session_event(self, message: ChromeMessage) -> list[Action]:
        assert message.session is not None
        client = self._owner.get(message.session)
        if client is None:
            return []
        known = self._clients[client]
        if message.method in (ATTACHED, DETACHED):
            body = message.body()
            method = body.get("method")
            params = body.get("params")
            child = params.get("sessionId") if isinstance(params, dict) else None
            if isinstance(child, str) and method == ATTACHED and child not in self._owner:
                known.sessions.add(child)
                self._owner[child] = client
                self._parent[child] = message.session
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
            if client is not None and client in self._clients:
                self._clients[client].sessions.discard(gone)

    # -- departures -------------------------------------------------------------------------------
    def _drop(self, client: int) -> _Client | None:
        known = self._clients.pop(client, None)
        self._attaching.discard(client)
        if known is None:
            return None
        for session in known.sessions:
            self._owner.pop(session, None)
            self._parent.pop(session, None)
        if known.root is not None:
            self._roots.pop(known.root, None)
        return known

    def _detach(self, root: str) -> list[Action]:
        pipe_id = self._allocate(_Detach())
        return [ToChrome(_command(pipe_id, "Target.detachFromTarget", {"sessionId": root}))]

    def client_gone(self, client: int) -> list[Action]:
        """A client's socket closed: forget it and detach its root (its children go with it)."""
        known = self._drop(client)
        if known is None or known.root is None or self.chrome_is_gone:
            return []
        return self._detach(known.root)

    def chrome_gone(self) -> list[Action]:
        """The pipe closed: fail internal calls, close every client 1001."""
        self.chrome_is_gone = True
        actions: list[Action] = []
        for pipe_id, entry in sorted(self._pending.items()):
            if isinstance(entry, _Call):
                actions.append(CallDone(pipe_id, None, f"{entry.method}: Chrome is gone"))
            elif isinstance(entry, _Attach) and entry.client in self._attaching:
                actions.append(Attached(entry.client, f"{entry.method}: Chrome is gone"))
        self._pending.clear()
        self._attaching.clear()
        for client in list(self._clients):
            self._drop(client)
            actions.append(Close(client, CLOSE_GOING_AWAY, "Chrome closed"))
        return actions
