"""The proxy's transport: HTTP + WebSocket on 127.0.0.1, a thin loop around the pure router.

Thin by design: bytes in, :mod:`pix3net.wire.router` (pure) decides, bytes out. A connection is
admitted (:mod:`pix3net.owner.proxy._listener`), its request heads read one at a time and checked (Origin
→ Host → Bearer, before any upgrade or attach; refused upgrades are plain HTTP answers,
docs/cdp-proxy.md); a plain request gets its answer from :mod:`pix3net.owner.proxy._jsonroutes`, an
upgrade becomes a client whose frames go to the router. What the router returns is carried out by
:mod:`pix3net.owner.proxy._executor`, which this transport is.
- Chrome is read by the hot path, which never blocks on a client: every client has its own
  byte-bounded outbound side (:mod:`pix3net.owner.proxy.outbound`); a client whose queue passes its
  bound, or the one with the most queued when all clients together pass the owner's bound, is
  closed 1008 (a slow client hurts only itself).
- One task writes to Chrome, in order; client readers wait while that queue is long, so a fast
  client cannot grow it without bound.
- The hot path is one wake-up per direction, outside trio: a thread of the proxy
  (:mod:`pix3net.owner.proxy._hot`) reads Chrome's pipe and the upgraded clients, routes whole data
  messages and writes what the router asks with one non-blocking system call when nothing is
  queued ahead; everything else it hands to trio in order (measured: a pass of trio's scheduler
  costs more than the routing, and a round trip took two).
- Connections are capped and must send their head in time (:mod:`pix3net.owner.proxy._listener`).
- A send is never cancelled in the middle of a frame unless the connection is being torn down.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable
from pathlib import Path

import trio

from pix3net.daemon.logfile import Repeats, clip
from pix3net.owner.proxy._agentsview import AgentsView
from pix3net.owner.proxy._executor import CHROME_QUEUE_BYTES, CLOSE_TOO_SLOW, INTERNAL_CALL_SECONDS, Executor, Waiter
from pix3net.owner.proxy._hot import HotPath, StepLock
from pix3net.owner.proxy._jsonroutes import UNLISTED_TARGET_TYPES, JsonRoutes
from pix3net.owner.proxy._listener import HEAD_SECONDS, MAX_CONNECTIONS, Gate, Limits, Slot, accept_forever, busy_answer
from pix3net.owner.proxy._status import Seen
from pix3net.owner.proxy._views import Watch
from pix3net.owner.proxy._watchrun import WATCHDOG_CLIENT, WatchRun
from pix3net.owner.proxy.channel import ChromeChannel
from pix3net.owner.proxy.outbound import CONTROL_QUEUE_BYTES, HANG_UP_SECONDS, Client
from pix3net.wire import auth
from pix3net.wire.frames import Event, Fail, FrameReader, Message, PeerClosed, Ping, close_frame, pong_frame
from pix3net.wire.httpwire import (
    MAX_HEAD_BYTES,
    BadRequest,
    RequestHead,
    body_length,
    handshake_accept,
    parse_head,
    switching_protocols,
    ws_route,
)
from pix3net.wire.router import connect_options

# The listener (`_listener`), the hot path (`_hot`), the executor and the routes are private; what
# the owner and the tests need of them (the limits, the places a connection holds, the hot path's
# thread and its lock, the bounds) is offered here.
__all__ = [
    "CHROME_QUEUE_BYTES",
    "CLOSE_GOING_AWAY",
    "CLOSE_TOO_BIG",
    "CLOSE_TOO_SLOW",
    "DEFAULT_QUEUE_BYTES",
    "HEAD_SECONDS",
    "INTERNAL_CALL_SECONDS",
    "MAX_CONNECTIONS",
    "MAX_MESSAGE_BYTES",
    "OWNER_QUEUE_BYTES",
    "UNLISTED_TARGET_TYPES",
    "AgentsView",
    "Gate",
    "HotPath",
    "Limits",
    "Seen",
    "Slot",
    "StepLock",
    "Watch",
    "serve_proxy",
]


# The reference's `maxPayload` (256 MiB): larger client messages close the socket 1009.
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
# Per-client outbound bound: at least one maximum message, so any single message can be queued.
DEFAULT_QUEUE_BYTES = MAX_MESSAGE_BYTES
# All clients together: two maximum messages, so one client can always hold a full one while
# another drains one. Per-client bounds alone let every stalled client add 256 MiB (three took
# the owner to ~600 MiB); past this the client with the most queued is cut first.
OWNER_QUEUE_BYTES = 2 * MAX_MESSAGE_BYTES
_RECEIVE_BYTES = 256 * 1024

CLOSE_GOING_AWAY = 1001
CLOSE_TOO_BIG = 1009


class _Proxy(Executor):
    def __init__(
        self,
        channel: ChromeChannel,
        token: str,
        home: Path,
        log: Callable[[str], None],
        queue_bytes: int,
        max_message_bytes: int,
        owner_queue_bytes: int,
        limits: Limits,
        editor_url: str = "",
    ) -> None:
        super().__init__(channel, token, log, owner_queue_bytes, editor_url)
        self.digest = auth.token_digest(token)
        # The port our listening socket is bound to (set by serve_proxy): the one port a
        # port-scope proof is for, whatever the request's Host says (docs/cdp-proxy.md, "Proof").
        self.port: int | None = None
        self.queue_bytes = queue_bytes
        self.max_message_bytes = max_message_bytes
        self.gate = Gate(limits)
        self.seen: dict[int, Seen] = {}  # who each client is, for `pix3 editor --status`
        self.watch = Watch()  # what `pix3 editor --watch` asked, and when
        self.routes = JsonRoutes(self, token, home)
        self.numbers = itertools.count(1)
        self.all_gone = trio.Event()
        self.all_gone.set()
        self.hot: HotPath | None = None  # set by serve_proxy once it listens
        self.repeats = Repeats()

    @property
    def client_count(self) -> int:
        """Clients on sockets (the watchdog's own session is not one)."""
        return self.router.client_count - int(self.router.is_open(WATCHDOG_CLIENT))

    def refused(self, cause: str, line: str) -> None:
        """A refusal, summarised: the first of its cause in an interval whole (and cut to a few
        hundred characters), the others counted (a client can ask millions of times)."""
        for text in self.repeats.note(cause, clip(line.replace(self.token, "<token>")), trio.current_time()):
            self._log(text)

    async def summarise_refusals(self) -> None:
        """Write the counts of the refusals each interval, also when no refusal follows."""
        try:
            while True:
                await trio.sleep(self.repeats.seconds)
                for text in self.repeats.due(trio.current_time()):
                    self._log(text)
        finally:
            for text in self.repeats.flush(trio.current_time()):
                self._log(text)

    # -- connections ---------------------------------------------------------------------------
    async def connection(self, stream: trio.SocketStream) -> None:
        slot = self.gate.admit()
        if isinstance(slot, str):
            # Answered without reading or waiting: the place is what this connection lacks.
            with contextlib.suppress(OSError):
                os.write(stream.socket.fileno(), busy_answer(slot))
            with trio.CancelScope(shield=True):
                await stream.aclose()
            return
        try:
            await self._connection(stream, slot)
        except Exception as error:  # one bad connection must never take the owner down
            while isinstance(error, ExceptionGroup) and len(error.exceptions) == 1:  # its task's nursery
                error = error.exceptions[0]
            self.log(f"connection failed: {type(error).__name__}: {error}")
        finally:
            slot.close()

    async def _connection(self, stream: trio.SocketStream, slot: Slot) -> None:
        try:
            with slot.scope:  # cancelled when the connection is evicted to make room
                await self._requests(stream, slot)
            if slot.evicted is not None and slot.evicted_waiting:  # never in the middle of an answer
                await _send(stream, busy_answer(slot.evicted), HANG_UP_SECONDS)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return
        finally:
            with trio.CancelScope(shield=True):
                await stream.aclose()

    async def _requests(self, stream: trio.SocketStream, slot: Slot) -> None:
        """Requests one at a time: the next head is read only once the answer is written."""
        limits = self.gate.limits
        buffer = bytearray()
        while True:
            first = slot.first
            head: RequestHead | None = None
            length: int | None = 0
            with slot.wait(limits.head_seconds if first else limits.keep_alive_seconds) as waited:
                head_bytes = await _read_head(stream, buffer)
                head = _parse(head_bytes) if head_bytes is not None else None
                if head is not None:
                    length = body_length(head)
                    if length and not await _skip_body(stream, buffer, length):
                        return
            slot.heard()
            if waited.cancelled_caught:  # idle, or a head sent too slowly (slowloris)
                if first or buffer:
                    message = f"no complete request head within {limits.head_seconds:g} s"
                    await _send(stream, auth.http_answer(408, {"error": message}, None, close=True), HANG_UP_SECONDS)
                return
            if head_bytes is None:
                return
            if head is None:
                await _send(stream, auth.http_answer(400, {"error": "bad request"}, None, close=True), HANG_UP_SECONDS)
                return
            refusal = auth.check_request(head.headers, self.digest)
            if refusal is None:
                slot.trusted = True
            else:
                slot.tokenless += 1
            if head.get("upgrade") is not None:
                await self.upgrade(stream, head, bytes(buffer), refusal)
                return
            keep = head.keep_alive and length is not None
            if not slot.trusted and (buffer or slot.tokenless >= limits.tokenless_requests):
                keep = False  # pipelining without the token, or asking too often: this answer is the last
            if not await _send(stream, await self.routes.answer(head, refusal, close=not keep), limits.answer_seconds):
                return
            if not keep:
                return

    async def refuse_upgrade(self, stream: trio.SocketStream, head: RequestHead, status: int, message: str) -> None:
        self.refused(f"refused WebSocket {status}", f"refused WebSocket {head.target}: {message}")
        await _send(stream, auth.ws_refusal(status, message), self.gate.limits.answer_seconds)

    async def upgrade(
        self, stream: trio.SocketStream, head: RequestHead, trailing: bytes, refusal: auth.AuthRefusal | None
    ) -> None:
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
        keep, name = connect_options(head.target)
        self.seen[number] = Seen.of(stream, head, name, page)
        waiter = Waiter()
        self.attaching[number] = waiter
        # Registered before the attach: events on the new root queue up until the writer runs.
        client = Client(number, stream, trailing, self.queue_bytes, self.budget)
        self.clients[number] = client
        self.all_gone = trio.Event()
        try:
            await self.serve_client(client, head, page, waiter, accept, keep)
        finally:
            # Every orderly end has already set ``closing``; what is left is the proxy itself
            # being cancelled (owner shutdown) or a broken socket (where this write fails quietly).
            client.close_now(CLOSE_GOING_AWAY, "proxy closing")
            client.release()
            del self.clients[number]
            self.seen.pop(number, None)
            if not self.clients:
                self.all_gone.set()
            if self.router.is_open(number):
                self.execute(self.router.client_gone(number))
                self.log(f"client gone ({self.client_count} left)")

    async def serve_client(
        self, client: Client, head: RequestHead, page: str | None, waiter: Waiter, accept: str, keep: bool = False
    ) -> None:
        number = client.number
        self.execute(self.router.open_client(number, page, keep=keep))
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
        self.log(f"client connected ({name}; {self.client_count} now)")
        await client.stream.send_all(switching_protocols(accept))
        client.upgraded = True
        with client.scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(client.write)
                await self.read_client(client)
                client.reader_done.set()
                if not client.closing:
                    client.scope.cancel()

    async def read_client(self, client: Client) -> None:
        """Client frames to the router, whole messages at a time. Returns at close or EOF.

        The hot path reads the socket and routes data messages; this task gets the socket back
        for anything else and goes on with the same frame reader."""
        assert self.hot is not None
        frames = FrameReader(self.max_message_bytes)
        events: list[Event] | None = frames.feed(client.trailing) if client.trailing else []  # came with the upgrade
        while events is not None:
            for event in events:
                if isinstance(event, Message):
                    if not client.closing:
                        self.execute(self.router.from_client(client.number, event.text))
                        await self.to_chrome.wait_room()
                elif isinstance(event, Ping):
                    client.control(pong_frame(event.payload))
                    if client.control_queued > CONTROL_QUEUE_BYTES and not client.closing:
                        self.cut(client, f"more than {CONTROL_QUEUE_BYTES} bytes of pongs queued for it")
                elif isinstance(event, PeerClosed):
                    client.peer_closed = True
                    if not client.close_sent:
                        client.close_sent = True
                        client.control(close_frame(event.code))
                    client.finish()
                    return
                else:
                    self._broken(client, event)
                    await _drain(client.stream)
                    return
            try:
                events = await self.hot.read(client, frames)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return
            await self.to_chrome.wait_room()  # the hot path hands a client back when Chrome lags

    def _broken(self, client: Client, fail: Fail) -> None:
        client.hang_up(fail.code, fail.reason)
        self.execute(self.router.client_gone(client.number))
        what = f"a message over {self.max_message_bytes} bytes" if fail.code == CLOSE_TOO_BIG else fail.reason
        self.log(f"client gone: {what}, closed {fail.code} ({self.client_count} left)")


async def _send(stream: trio.SocketStream, data: bytes, seconds: float) -> bool:
    """Write a plain answer within ``seconds``; False when the peer did not take it (closed, or
    not reading)."""
    with trio.move_on_after(seconds):
        await stream.send_all(data)
        return True
    return False


async def _drain(stream: trio.SocketStream) -> None:
    """Read and drop what a refused client still sends, until it goes or the hang-up ends."""
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        while await stream.receive_some(_RECEIVE_BYTES):
            pass


def _parse(head_bytes: bytes) -> RequestHead | None:
    try:
        return parse_head(head_bytes)
    except BadRequest:
        return None


async def _skip_body(stream: trio.SocketStream, buffer: bytearray, length: int) -> bool:
    """Read and drop a small body; False when the peer went first."""
    while len(buffer) < length:
        data = await stream.receive_some(_RECEIVE_BYTES)
        if not data:
            return False
        buffer += data
    del buffer[:length]
    return True


async def _read_head(stream: trio.SocketStream, buffer: bytearray) -> bytes | None:
    """The next request head (without the blank line), consumed from ``buffer``; None at EOF.
    Read a head's worth at a time: pipelined requests wait in the socket, not in our memory."""
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            head = bytes(buffer[:end])
            del buffer[: end + 4]
            return head
        if len(buffer) > MAX_HEAD_BYTES:
            await stream.send_all(auth.http_answer(431, {"error": "request head too large"}, None, close=True))
            return None
        data = await stream.receive_some(MAX_HEAD_BYTES)
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
    owner_queue_bytes: int = OWNER_QUEUE_BYTES,
    limits: Limits | None = None,
    editor_url: str = "",
    watchdog: bool = False,
) -> None:
    """Serve the CDP token proxy on 127.0.0.1:``port`` until Chrome is gone.

    Raises OSError when the port cannot be bound (the owner exits 4). ``task_status.started``
    gets the bound port (``port=0`` picks a free one). Returns after the channel's reader ended
    (Chrome is gone) and every client was closed 1001 ``Chrome closed``; raises what failed the
    hot path's thread, if anything did (a bug). Cancellation sends 1001 ``proxy closing`` to
    clients between frames and cuts every connection at once.
    ``editor_url``: what the owner launched Chrome with (the editor tab is opened there again
    when it closes). ``watchdog``: watch the editor tab and its game frames (the owner's; docs/
    chrome-owner.md, "The watchdog"). ``queue_bytes``, ``max_message_bytes``, ``owner_queue_bytes`` and ``limits``
    exist for tests.
    """
    listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
    bound = listeners[0].socket.getsockname()[1]
    proxy = _Proxy(
        channel, token, home, log, queue_bytes, max_message_bytes, owner_queue_bytes, limits or Limits(), editor_url
    )
    proxy.port = bound
    try:
        proxy.hot = hot = HotPath(proxy, channel.take_reader, CHROME_QUEUE_BYTES)
    except BaseException:
        for listener in listeners:
            listener.socket.close()
        raise
    try:
        async with trio.open_nursery() as nursery:
            proxy.nursery = nursery
            proxy.execute(proxy.router.watch_targets())  # before any client: the editor tab is the page Chrome has
            nursery.start_soon(proxy.write_chrome)
            nursery.start_soon(proxy.summarise_refusals)
            if watchdog:
                proxy.watchdog = WatchRun(proxy)
                nursery.start_soon(proxy.watchdog.run)
                # The editor page's Agents view: through the watchdog's session, never a port.
                agents = AgentsView(proxy, proxy.watchdog)
                proxy.watchdog.on_page = agents.asked
                nursery.start_soon(agents.run)
            for listener in listeners:
                nursery.start_soon(accept_forever, listener, proxy.connection, nursery, proxy.log)
            task_status.started(bound)
            await hot.chrome_done.wait()  # the pipe ended; clients are being closed 1001
            if hot.chrome_error is None:
                with trio.move_on_after(HANG_UP_SECONDS + 0.5):
                    await proxy.all_gone.wait()
            nursery.cancel_scope.cancel()
    finally:
        hot.stop()
    if hot.chrome_error is not None:  # the hot path failed (a bug): the caller says so and ends
        raise hot.chrome_error
