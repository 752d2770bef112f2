"""The proxy's transport: HTTP + WebSocket on 127.0.0.1, executing the pure router's actions.

Thin by design (DESIGN decision 1): bytes in, :mod:`pix3net.cdp.router` decides, bytes out.
- One task reads Chrome and never blocks on a client: every client has its own byte-bounded
  outbound queue and writer task; a client whose queue passes the bound is closed 1008
  (DESIGN decision 3).
- One task writes to Chrome, in order; client readers wait while that queue is long, so a fast
  client cannot grow it without bound.
- Auth (Origin → Host → Bearer) runs before any upgrade or attach; refused upgrades are plain
  HTTP answers (spec/cdp.md §2.2–§2.3).
- A send is never cancelled in the middle of a frame unless the connection is being torn down.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import deque
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import trio
from wsproto import ConnectionType
from wsproto.connection import Connection, ConnectionState
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
from wsproto.utilities import LocalProtocolError

from pix3net.cdp import auth
from pix3net.cdp._http import (
    MAX_HEAD_BYTES,
    BadRequest,
    FrameGauge,
    RequestHead,
    body_length,
    handshake_accept,
    http_route_path,
    parse_head,
    switching_protocols,
    text_frame_header,
    ws_route,
)
from pix3net.cdp.channel import ChromeChannel
from pix3net.cdp.proof import CHALLENGE_HEADER, SCOPE_HEADER, answer_proof, forward_key, read_forward_ports
from pix3net.cdp.router import (
    Action,
    Attached,
    CallDone,
    Close,
    Router,
    ToChrome,
    ToClient,
)

# The reference's `maxPayload` (spec/cdp.md §0): larger client messages close the socket 1009.
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
# Per-client outbound bound: at least one maximum message (DESIGN decision 3).
DEFAULT_QUEUE_BYTES = MAX_MESSAGE_BYTES
# Client readers wait while this much is queued for Chrome (backpressure, not a limit).
CHROME_QUEUE_BYTES = 64 * 1024 * 1024
# A hung-up peer gets this long to answer the close frame (spec/cdp.md §2.8, "hang up").
HANG_UP_SECONDS = 1.0
# The reference waits forever on Chrome; a hung Chrome should not hold an HTTP client forever.
INTERNAL_CALL_SECONDS = 10.0
_RECEIVE_BYTES = 256 * 1024
_JOIN_BELOW = 64 * 1024  # small frames go out in one write

CLOSE_GOING_AWAY = 1001
CLOSE_TOO_SLOW = 1008
CLOSE_TOO_BIG = 1009


class _Waiter:
    def __init__(self) -> None:
        self.event = trio.Event()
        self.result: Any = None
        self.error: str | None = None

    def done(self, result: Any, error: str | None) -> None:
        self.result, self.error = result, error
        self.event.set()


class _ChromeQueue:
    def __init__(self) -> None:
        self.items: deque[bytes] = deque()
        self.size = 0
        self.changed = trio.Event()

    def put(self, data: bytes) -> None:
        self.items.append(data)
        self.size += len(data)
        self._wake()

    def _wake(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def get(self) -> bytes:
        while not self.items:
            await self.changed.wait()
        data = self.items.popleft()
        self.size -= len(data)
        self._wake()
        return data

    async def wait_room(self) -> None:
        while self.size > CHROME_QUEUE_BYTES:
            await self.changed.wait()


_END = object()


class _Client:
    """One WebSocket client's outbound side: a byte-bounded queue drained by one writer."""

    def __init__(self, number: int, stream: trio.SocketStream, trailing: bytes, bound: int) -> None:
        self.number = number
        self.stream = stream
        self.trailing = trailing
        self.ws = Connection(ConnectionType.SERVER, trailing_data=trailing)
        self.bound = bound
        self.queue: deque[Any] = deque()
        self.queued = 0  # bytes waiting in ``queue``
        self.in_flight = 0  # bytes of the message the writer is sending now
        self.wake = trio.Event()
        self.closing = False
        self.upgraded = False  # the 101 went out
        self.mid_frame = False  # the writer is inside a frame
        self.reader_done = trio.Event()
        self.scope = trio.CancelScope()

    def _push(self, item: Any, size: int) -> None:
        self.queue.append((item, size))
        self.queued += size
        self.wake.set()

    def enqueue(self, parts: tuple[bytes | memoryview, ...]) -> bool:
        """Queue one text message; False when it would pass the bound (the client is too slow)."""
        if self.closing:
            return True
        size = sum(len(p) for p in parts)
        pending = self.queued + self.in_flight
        # One message of any size is taken when nothing is pending (Chrome→client has no limit).
        if pending and pending + size > self.bound:
            return False
        self._push(parts, size)
        return True

    def control(self, data: bytes) -> None:
        self._push(data, 0)

    def finish(self) -> None:
        """The peer closed: flush what is queued (our close answer last), then the socket."""
        if not self.closing:
            self.closing = True
            self._push(_END, 0)

    def hang_up(self, code: int, reason: str, *, drop_queued: bool = False) -> None:
        """Close frame with code and reason, then the socket after the peer answers (≤ 1 s)."""
        if self.closing:
            return
        self.closing = True
        if drop_queued:
            self.queue.clear()
            self.queued = 0
        if self.ws.state is ConnectionState.OPEN:
            with contextlib.suppress(LocalProtocolError):
                self.control(self.ws.send(CloseConnection(code=code, reason=reason)))
        self._push(_END, 0)
        self.scope.deadline = min(self.scope.deadline, trio.current_time() + HANG_UP_SECONDS)

    async def write(self) -> None:
        try:
            await self._write()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.scope.cancel()  # the peer is gone; the reader ends with it

    async def _write(self) -> None:
        while True:
            while not self.queue:
                self.wake = trio.Event()
                await self.wake.wait()
            item, size = self.queue.popleft()
            if item is _END:
                with trio.move_on_after(HANG_UP_SECONDS):
                    await self.reader_done.wait()
                self.scope.cancel()
                return
            self.mid_frame = True
            if isinstance(item, bytes):
                await self.stream.send_all(item)
                self.mid_frame = False
                continue
            self.queued -= size
            self.in_flight = size
            header = text_frame_header(size)
            if size < _JOIN_BELOW:
                await self.stream.send_all(header + b"".join(item))
            else:
                await self.stream.send_all(header)
                for index in range(len(item)):  # no loop variable left holding a slice of the message
                    await self.stream.send_all(item[index])
            del item  # the sent message is not kept alive while the next one is awaited
            self.in_flight = 0
            self.mid_frame = False

    def close_now(self, code: int, reason: str) -> None:
        """Best effort, without waiting: a close frame if the socket is between frames (the
        proxy is being cancelled; the socket is closed right after)."""
        if self.closing or self.mid_frame or not self.upgraded or self.ws.state is not ConnectionState.OPEN:
            return
        self.closing = True
        with contextlib.suppress(OSError, LocalProtocolError):
            os.write(self.stream.socket.fileno(), self.ws.send(CloseConnection(code=code, reason=reason)))


class _Proxy:
    def __init__(
        self,
        channel: ChromeChannel,
        token: str,
        home: Path,
        log: Callable[[str], None],
        queue_bytes: int,
        max_message_bytes: int,
    ) -> None:
        self.channel = channel
        self.token = token
        self.digest = auth.token_digest(token)
        self.forward_key = forward_key(token)
        self.home = home
        self._log = log
        self.queue_bytes = queue_bytes
        self.max_message_bytes = max_message_bytes
        self.router = Router()
        self.to_chrome = _ChromeQueue()
        self.clients: dict[int, _Client] = {}
        self.calls: dict[int, _Waiter] = {}
        self.attaching: dict[int, _Waiter] = {}
        self.numbers = itertools.count(1)
        self.version: dict[str, Any] | None = None
        self.all_gone = trio.Event()
        self.all_gone.set()

    def log(self, text: str) -> None:
        # The token is never logged, even when a client puts it in a URL.
        self._log(text.replace(self.token, "<token>"))

    # -- executing the router's actions --------------------------------------------------------
    def execute(self, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, ToChrome):
                self.to_chrome.put(action.data)
            elif isinstance(action, ToClient):
                client = self.clients.get(action.client)
                if client is not None and not client.enqueue(action.parts):
                    self.log(f"client too slow: more than {client.bound} bytes queued; closing it (1008)")
                    client.hang_up(CLOSE_TOO_SLOW, "client too slow", drop_queued=True)
                    self.execute(self.router.client_gone(action.client))
            elif isinstance(action, Close):
                client = self.clients.get(action.client)
                if client is not None:
                    client.hang_up(action.code, action.reason)
            elif isinstance(action, Attached):
                waiter = self.attaching.pop(action.client, None)
                if waiter is not None:
                    waiter.done(None, action.error)
            elif isinstance(action, CallDone):
                call = self.calls.pop(action.call, None)
                if call is not None:
                    call.done(action.result, action.error)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """The proxy's own CDP call on the pipe root; raises RuntimeError with the 502 text."""
        call_id, actions = self.router.call(method, params)
        waiter = _Waiter()
        self.calls[call_id] = waiter
        self.execute(actions)
        with trio.move_on_after(INTERNAL_CALL_SECONDS):
            await waiter.event.wait()
        self.calls.pop(call_id, None)
        if not waiter.event.is_set():
            raise RuntimeError(f"{method}: no answer within {int(INTERNAL_CALL_SECONDS * 1000)} ms")
        if waiter.error is not None:
            raise RuntimeError(waiter.error)
        return waiter.result

    # -- Chrome side ---------------------------------------------------------------------------
    async def read_chrome(self) -> None:
        try:
            while True:
                raw = await self.channel.receive()
                try:
                    actions = self.router.from_chrome(raw)
                except Exception as error:  # a message we cannot route is dropped, not fatal
                    self.log(f"dropped a message from Chrome: {type(error).__name__}: {error}")
                    continue
                self.execute(actions)
                # Drop our references before waiting for the next message: a 30 MB reply must
                # not stay alive beside the next one (peak RSS is part of the proxy's budget).
                del raw, actions
        except (trio.EndOfChannel, trio.ClosedResourceError, trio.BrokenResourceError, OSError):
            self.execute(self.router.chrome_gone())

    async def write_chrome(self) -> None:
        while True:
            data = await self.to_chrome.get()
            # The channel drops sends once Chrome is gone; a channel that raises instead is
            # treated the same (the reader will see the end).
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self.channel.send(data)

    # -- connections ---------------------------------------------------------------------------
    async def connection(self, stream: trio.SocketStream) -> None:
        try:
            await self._connection(stream)
        except Exception as error:  # one bad connection must never take the owner down
            self.log(f"connection failed: {type(error).__name__}: {error}")

    async def _connection(self, stream: trio.SocketStream) -> None:
        try:
            buffer = bytearray()
            while True:
                head_bytes = await _read_head(stream, buffer)
                if head_bytes is None:
                    return
                try:
                    head = parse_head(head_bytes)
                except BadRequest:
                    await stream.send_all(auth.http_answer(400, {"error": "bad request"}, None, close=True))
                    return
                if head.get("upgrade") is not None:
                    await self.upgrade(stream, head, bytes(buffer))
                    return
                length = body_length(head)
                keep = head.keep_alive and length is not None
                if length:
                    while len(buffer) < length:
                        data = await stream.receive_some(_RECEIVE_BYTES)
                        if not data:
                            return
                        buffer += data
                    del buffer[:length]
                await stream.send_all(await self.http(head, close=not keep))
                if not keep:
                    return
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return
        finally:
            with trio.CancelScope(shield=True):
                await stream.aclose()

    def _proof(self, head: RequestHead) -> str | None:
        challenge = head.get(CHALLENGE_HEADER.lower())
        if challenge is None:
            return None
        scope = head.get(SCOPE_HEADER.lower())
        ports = read_forward_ports(self.home) if scope is not None else None
        return answer_proof(
            self.token,
            challenge=challenge,
            scope=scope,
            host=head.get("host"),
            forward_ports=ports,
            forward_key_bytes=self.forward_key,
        )

    async def http(self, head: RequestHead, *, close: bool) -> bytes:
        body_less = head.method == "HEAD"  # a HEAD answer has no body, or keep-alive breaks
        answer = partial(auth.http_answer, close=close, head=body_less)
        proof = self._proof(head)
        refusal = auth.check_request(head.headers, self.digest)
        if refusal is not None:
            self.log(f"refused {head.method} {head.target}: {refusal.message}")
            return answer(refusal.status, {"error": refusal.message}, proof)
        path = http_route_path(head.target)
        host = head.get("host") or ""
        if head.method == "GET" and path in ("/json/version", "/json/list", "/json"):
            try:
                body = await (self.version_body(host) if path == "/json/version" else self.list_body(host))
            except RuntimeError as error:
                return answer(502, {"error": str(error)}, proof)
            return answer(200, body, proof)
        message = f"no {head.method} {path} here (only /json/version and /json/list)"
        return answer(404, {"error": message}, proof)

    async def version_body(self, host: str) -> dict[str, Any]:
        if self.version is None:
            version = await self.call("Browser.getVersion")
            self.version = version if isinstance(version, dict) else {}
        v = self.version
        return {
            "Browser": v.get("product"),
            "Protocol-Version": v.get("protocolVersion"),
            "User-Agent": v.get("userAgent"),
            "V8-Version": v.get("jsVersion"),
            "WebKit-Version": v.get("revision"),
            "Pix3-Cdp-Proxy": 1,
            "webSocketDebuggerUrl": f"ws://{host}/pix3",
        }

    async def list_body(self, host: str) -> list[dict[str, Any]]:
        result = await self.call("Target.getTargets")
        infos = result.get("targetInfos", []) if isinstance(result, dict) else []
        return [
            {
                "description": "",
                "id": info.get("targetId"),
                "title": info.get("title"),
                "type": info.get("type"),
                "url": info.get("url"),
                "webSocketDebuggerUrl": f"ws://{host}/pix3/page/{info.get('targetId')}",
            }
            for info in infos
            if isinstance(info, dict) and info.get("type") not in ("browser", "tab")
        ]

    async def refuse_upgrade(self, stream: trio.SocketStream, head: RequestHead, status: int, message: str) -> None:
        self.log(f"refused WebSocket {head.target}: {message}")
        await stream.send_all(auth.ws_refusal(status, message))

    async def upgrade(self, stream: trio.SocketStream, head: RequestHead, trailing: bytes) -> None:
        refusal = auth.check_request(head.headers, self.digest)
        if refusal is not None:
            await self.refuse_upgrade(stream, head, refusal.status, refusal.message)
            return
        route = ws_route(head.target)
        if route is None:
            message = f"no WebSocket at {head.path} (the browser is at /pix3)"
            await self.refuse_upgrade(stream, head, 404, message)
            return
        accept = handshake_accept(head)
        if accept is None:
            await self.refuse_upgrade(stream, head, 400, "not a WebSocket handshake (RFC 6455, version 13)")
            return
        _, page = route
        number = next(self.numbers)
        waiter = _Waiter()
        self.attaching[number] = waiter
        # Registered before the attach: events on the new root queue up until the writer runs.
        client = _Client(number, stream, trailing, self.queue_bytes)
        self.clients[number] = client
        self.all_gone = trio.Event()
        try:
            await self.serve_client(client, head, page, waiter, accept)
        finally:
            # Every orderly end has already set ``closing``; what is left is the proxy itself
            # being cancelled (owner shutdown) or a broken socket (where this write fails quietly).
            client.close_now(CLOSE_GOING_AWAY, "proxy closing")
            del self.clients[number]
            if not self.clients:
                self.all_gone.set()
            if self.router.is_open(number):
                self.execute(self.router.client_gone(number))
                self.log(f"client gone ({self.router.client_count} left)")

    async def serve_client(
        self, client: _Client, head: RequestHead, page: str | None, waiter: _Waiter, accept: str
    ) -> None:
        number = client.number
        self.execute(self.router.open_client(number, page))
        with trio.move_on_after(INTERNAL_CALL_SECONDS):
            await waiter.event.wait()
        self.attaching.pop(number, None)
        if not waiter.event.is_set():
            self.execute(self.router.client_gone(number))
            method = "Target.attachToTarget" if page is not None else "Target.attachToBrowserTarget"
            waiter.error = f"{method}: no answer within {int(INTERNAL_CALL_SECONDS * 1000)} ms"
        if waiter.error is not None:
            await self.refuse_upgrade(client.stream, head, 404 if page is not None else 502, waiter.error)
            return
        name = "browser" if page is None else f"page {page}"
        self.log(f"client connected ({name}; {self.router.client_count} now)")
        await client.stream.send_all(switching_protocols(accept))
        client.upgraded = True
        with client.scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(client.write)
                await self.read_client(client)
                client.reader_done.set()
                if not client.closing:
                    client.scope.cancel()

    async def read_client(self, client: _Client) -> None:
        """Feed the client's bytes to wsproto; whole messages to the router. Returns at close."""
        ws = client.ws
        pieces: list[str | bytes] = []
        size = 0
        gauge = FrameGauge()
        gauge.feed(client.trailing)
        first = True  # the bytes that came with the upgrade are already in ``ws``
        while True:
            if not first:
                try:
                    data = await client.stream.receive_some(_RECEIVE_BYTES)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return
                ws.receive_data(data or None)
                gauge.feed(data)
            first = False
            for event in ws.events():
                if isinstance(event, TextMessage | BytesMessage):
                    if client.closing:
                        continue
                    piece: str | bytes = event.data if isinstance(event.data, str) else bytes(event.data)
                    size += len(piece) if isinstance(piece, bytes) or piece.isascii() else len(piece.encode())
                    if size > self.max_message_bytes:
                        self._too_big(client)
                        await _drain(client.stream)
                        return
                    pieces.append(piece)
                    if event.message_finished:
                        text = _message_text(pieces)
                        pieces, size = [], 0
                        self.execute(self.router.from_client(client.number, text))
                        await self.to_chrome.wait_room()
                elif isinstance(event, Ping):
                    client.control(ws.send(event.response()))
                elif isinstance(event, CloseConnection):
                    if ws.state is ConnectionState.REMOTE_CLOSING:
                        client.control(ws.send(event.response()))
                    client.finish()
                    return
            if gauge.message > self.max_message_bytes and not client.closing:
                self._too_big(client)  # declared by a frame header: refused before it is read
                await _drain(client.stream)
                return
            if ws.state is ConnectionState.CLOSED:
                return

    def _too_big(self, client: _Client) -> None:
        client.hang_up(CLOSE_TOO_BIG, "message too big")
        self.execute(self.router.client_gone(client.number))
        self.log(
            f"client gone: a message over {self.max_message_bytes} bytes, closed 1009 ({self.router.client_count} left)"
        )


async def _drain(stream: trio.SocketStream) -> None:
    """Read and drop what a refused client still sends, until it goes or the hang-up ends."""
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        while await stream.receive_some(_RECEIVE_BYTES):
            pass


def _message_text(pieces: list[str | bytes]) -> str:
    if all(isinstance(p, str) for p in pieces):
        return "".join(p for p in pieces if isinstance(p, str))
    # Binary frames are read as UTF-8 text, as the reference does (`data.toString()`); bytes
    # that are not UTF-8 then fail the JSON check (-32700).
    data = b"".join(p if isinstance(p, bytes) else p.encode() for p in pieces)
    return data.decode("utf-8", "replace")


async def _read_head(stream: trio.SocketStream, buffer: bytearray) -> bytes | None:
    """The next request head (without the blank line), consumed from ``buffer``; None at EOF."""
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            head = bytes(buffer[:end])
            del buffer[: end + 4]
            return head
        if len(buffer) > MAX_HEAD_BYTES:
            await stream.send_all(auth.http_answer(431, {"error": "request head too large"}, None, close=True))
            return None
        data = await stream.receive_some(_RECEIVE_BYTES)
        if not data:
            return None
        buffer += data


async def serve_proxy(
    channel: ChromeChannel,
    *,
    token: str,
    port: int,
    home: Path,
    log: Callable[[str], None],
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
    queue_bytes: int = DEFAULT_QUEUE_BYTES,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
) -> None:
    """Serve the CDP token proxy on 127.0.0.1:``port`` until Chrome is gone.

    Raises OSError when the port cannot be bound (the owner exits 4). ``task_status.started``
    gets the bound port (``port=0`` picks a free one). Returns after ``channel.receive()``
    raised ``trio.EndOfChannel`` and every client was closed 1001 ``Chrome closed``. Cancellation
    sends 1001 ``proxy closing`` to clients between frames and cuts every connection at once.
    ``queue_bytes`` and ``max_message_bytes`` exist for tests.
    """
    listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
    bound = listeners[0].socket.getsockname()[1]
    proxy = _Proxy(channel, token, home, log, queue_bytes, max_message_bytes)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(proxy.write_chrome)
        nursery.start_soon(trio.serve_listeners, proxy.connection, listeners)
        task_status.started(bound)
        await proxy.read_chrome()
        with trio.move_on_after(HANG_UP_SECONDS + 0.5):
            await proxy.all_gone.wait()
        nursery.cancel_scope.cancel()
