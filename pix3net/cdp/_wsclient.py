"""A small WebSocket client for pix3's own calls through the proxy (wsproto over a trio socket).

trio-websocket leaves its socket open when an upgrade is refused, and a refused upgrade is an
answer pix3 expects (401 from a proxy that does not know the token); this client always closes.
No ``Origin`` header (the proxy refuses any) and no extensions are ever sent.
"""

from __future__ import annotations

import contextlib
from types import TracebackType

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)

_RECEIVE_BYTES = 256 * 1024


class Rejected(Exception):
    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.body = body


class Closed(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"closed {code} {reason}".strip())
        self.code = code
        self.reason = reason


class WsClient:
    def __init__(self, stream: trio.SocketStream, ws: WSConnection) -> None:
        self._stream = stream
        self._ws = ws
        self._messages: list[str] = []
        self._parts: list[str] = []
        self._control = bytearray()  # pongs owed to the server
        self.closed: Closed | None = None

    @classmethod
    async def connect(cls, port: int, path: str, headers: list[tuple[str, str]]) -> WsClient:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        try:
            ws = WSConnection(ConnectionType.CLIENT)
            request = Request(
                host=f"127.0.0.1:{port}",
                target=path,
                extra_headers=[(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers],
            )
            await stream.send_all(ws.send(request))
            status: int | None = None
            body = bytearray()
            while True:
                data = await stream.receive_some(_RECEIVE_BYTES)
                ws.receive_data(data or None)
                for event in ws.events():
                    if isinstance(event, AcceptConnection):
                        client = cls(stream, ws)
                        client._pump()  # frames that came with the 101
                        return client
                    if isinstance(event, RejectConnection):
                        status = event.status_code
                        if not event.has_body:
                            raise Rejected(status, b"")
                    elif isinstance(event, RejectData):
                        body += event.data
                        if event.body_finished:
                            raise Rejected(status or 0, bytes(body))
                if not data:
                    raise Rejected(status or 0, bytes(body)) if status else Closed(1006, "connection lost")
        except BaseException:
            await stream.aclose()
            raise

    def _pump(self) -> None:
        for event in self._ws.events():
            if isinstance(event, TextMessage | BytesMessage):
                piece = event.data if isinstance(event.data, str) else bytes(event.data).decode("utf-8", "replace")
                self._parts.append(piece)
                if event.message_finished:
                    self._messages.append("".join(self._parts))
                    self._parts = []
            elif isinstance(event, Ping):
                self._control += self._ws.send(event.response())
            elif isinstance(event, CloseConnection):
                self.closed = Closed(event.code, event.reason or "")
                if self._ws.state is ConnectionState.REMOTE_CLOSING:
                    self._control += self._ws.send(event.response())

    async def send(self, text: str) -> None:
        await self._stream.send_all(self._ws.send(TextMessage(data=text)))

    async def send_binary(self, data: bytes) -> None:
        await self._stream.send_all(self._ws.send(BytesMessage(data=data)))

    @property
    def stream(self) -> trio.SocketStream:
        """The raw socket (tests write broken frames on it)."""
        return self._stream

    async def receive(self) -> str:
        while not self._messages:
            if self._control:
                control, self._control = bytes(self._control), bytearray()
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await self._stream.send_all(control)
            if self.closed is not None:
                raise self.closed
            try:
                data = await self._stream.receive_some(_RECEIVE_BYTES)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            self._ws.receive_data(data or None)
            self._pump()
        return self._messages.pop(0)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> WsClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        with trio.CancelScope(shield=True):
            await self.aclose()
