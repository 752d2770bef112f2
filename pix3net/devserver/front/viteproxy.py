"""Reverse proxy to the Vite child: HTTP over a small keep-alive h11 pool, WebSockets bridged
message by message, each client message judged first (`vite:invoke`, docs/devserver.md "What the
front door refuses").

Everything outside `/__pix3/` that the splice does not relay goes here when Vite runs
(docs/devserver.md, "Shape"), Vite's HMR socket included.
h11 directly rather than httpx: a module fetch is a few hundred microseconds of Vite's time, so
the proxy's own cost per request is what the bench measures (≤ 1.3× Vite alone).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import h11
import trio
import trio_websocket

from pix3net.devserver.front.vitelink import READY_POLL_S, WAIT_FOR_VITE_S, may_retry, reusable
from pix3net.devserver.http import VITE_CLOSED, VITE_NOT_RUNNING, VITE_REFUSED, send_error

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
        b"content-length",
        b"date",  # Hypercorn writes its own
    }
)
READ_BYTES = 65536
POOL_SIZE = 16
POLICY_VIOLATION = 1008  # RFC 6455 §7.4.1: a message that violates the endpoint's policy
REFUSED_MESSAGE = "pix3: a message naming a file outside the project or a denied name was refused"
# WebSocket request headers the proxy must not copy: trio-websocket writes its own handshake.
_WS_SKIP = frozenset(
    {b"host", b"connection", b"upgrade", b"sec-websocket-key", b"sec-websocket-version", b"sec-websocket-extensions"}
)
_WS_SKIP_PROTOCOL = b"sec-websocket-protocol"


class _Upstream:
    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.h11 = h11.Connection(h11.CLIENT)
        self.heard = False  # a byte of the current answer came back (`vitelink.may_retry`)

    async def next_event(self) -> Any:
        while True:
            event = self.h11.next_event()
            if event is h11.NEED_DATA:
                data = await self.stream.receive_some(READ_BYTES)
                self.heard = self.heard or bool(data)
                self.h11.receive_data(data)
                continue
            return event


class ViteProxy:
    """Forwards requests to 127.0.0.1:<port of the running Vite>. ``judge(message)`` says why a
    client's WebSocket message must not reach Vite (the socket is then closed), or None."""

    def __init__(
        self,
        port_of: Callable[[float], Awaitable[int | None]],
        judge: Callable[[str | bytes], str | None] = lambda message: None,
    ) -> None:
        self._port_of = port_of
        self._judge = judge
        self._pool: list[tuple[int, float, _Upstream]] = []  # (port, idle since, connection)

    def _pooled(self, port: int) -> _Upstream | None:
        """A kept-alive connection to ``port`` idle for less than `vitelink.IDLE_REUSE_S`, or None.
        Connections to an older port (Vite restarted) or idle too long are dropped on the way,
        without a checkpoint: other requests use the pool too."""
        now = trio.current_time()
        while self._pool:
            pooled_port, since, upstream = self._pool.pop()
            if pooled_port == port and reusable(now - since):
                return upstream
            upstream.stream.socket.close()
        return None

    def _release(self, port: int, upstream: _Upstream) -> None:
        if upstream.h11.our_state is h11.DONE and upstream.h11.their_state is h11.DONE and len(self._pool) < POOL_SIZE:
            upstream.h11.start_next_cycle()
            upstream.heard = False
            self._pool.append((port, trio.current_time(), upstream))
        else:
            with contextlib.suppress(Exception):
                upstream.stream.socket.close()

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        deadline = trio.current_time() + WAIT_FOR_VITE_S
        port = await self._port_of(WAIT_FOR_VITE_S)
        if port is None:
            await send_error(send, VITE_NOT_RUNNING)
            return
        target = scope.get("raw_path") or scope["path"].encode()
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in HOP_BY_HOP]
        if body or scope["method"] in ("POST", "PUT", "PATCH"):
            headers.append((b"content-length", str(len(body)).encode()))
        request = h11.Request(method=scope["method"], target=target, headers=headers)
        method = scope["method"].encode()
        upstream = self._pooled(port)
        reused = upstream is not None
        while True:
            if upstream is None:
                try:
                    upstream = _Upstream(await trio.open_tcp_stream("127.0.0.1", port))
                except OSError:  # nothing was sent: Vite is restarting, wait for it (`vitelink`)
                    await trio.sleep(READY_POLL_S)
                    left = deadline - trio.current_time()
                    if left <= 0:
                        await send_error(send, VITE_REFUSED)
                        return
                    port = await self._port_of(left)
                    if port is None:
                        await send_error(send, VITE_NOT_RUNNING)
                        return
                    continue
            try:
                await upstream.stream.send_all(upstream.h11.send(request) or b"")
                if body:
                    await upstream.stream.send_all(upstream.h11.send(h11.Data(data=bytes(body))) or b"")
                await upstream.stream.send_all(upstream.h11.send(h11.EndOfMessage()) or b"")
                response = await upstream.next_event()
                if not isinstance(response, h11.Response):
                    raise h11.RemoteProtocolError("no response")
            except (OSError, trio.BrokenResourceError, trio.ClosedResourceError, h11.ProtocolError):
                with contextlib.suppress(Exception):
                    upstream.stream.socket.close()
                if may_retry(method, reused, upstream.heard):
                    upstream, reused = None, False  # Node closed it idle as the request came: once more
                    continue
                await send_error(send, VITE_CLOSED)
                return
            break
        await self._relay(port, upstream, response, send)

    async def _relay(self, port: int, upstream: _Upstream, response: h11.Response, send: Send) -> None:
        out_headers = [(k, v) for k, v in response.headers if k not in HOP_BY_HOP or k == b"content-length"]
        await send({"type": "http.response.start", "status": response.status_code, "headers": out_headers})
        try:
            while True:
                event = await upstream.next_event()
                if isinstance(event, h11.Data):
                    await send({"type": "http.response.body", "body": bytes(event.data), "more_body": True})
                elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                    break
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except BaseException:
            with contextlib.suppress(Exception):
                upstream.stream.socket.close()
            raise
        self._release(port, upstream)

    async def websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Bridge one WebSocket (Vite's HMR) frame by frame; the subprotocol is Vite's choice."""
        first = await receive()
        if first["type"] != "websocket.connect":
            return
        port = await self._port_of(WAIT_FOR_VITE_S)
        if port is None:
            await send({"type": "websocket.close", "code": 1011})
            return
        path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        query = scope.get("query_string", b"").decode("latin-1")
        url = f"ws://127.0.0.1:{port}{path}" + (f"?{query}" if query else "")
        extra = [(k, v) for k, v in scope["headers"] if k.lower() not in _WS_SKIP and k.lower() != _WS_SKIP_PROTOCOL]
        try:
            async with trio_websocket.open_websocket_url(
                url, subprotocols=scope.get("subprotocols") or None, extra_headers=extra
            ) as upstream:
                await send({"type": "websocket.accept", "subprotocol": upstream.subprotocol})
                ended = "vite"
                async with trio.open_nursery() as nursery:

                    async def down() -> None:
                        with contextlib.suppress(trio_websocket.ConnectionClosed):
                            while True:
                                message = await upstream.get_message()
                                key = "text" if isinstance(message, str) else "bytes"
                                await send({"type": "websocket.send", key: message})
                        nursery.cancel_scope.cancel()

                    nursery.start_soon(down)
                    while True:
                        message = await receive()
                        if message["type"] == "websocket.disconnect":
                            ended = "client"
                            break
                        payload = message.get("text")
                        if payload is None:
                            payload = message.get("bytes") or b""
                        if self._judge(payload) is not None:
                            ended = "refused"
                            break
                        with contextlib.suppress(trio_websocket.ConnectionClosed):
                            await upstream.send_message(payload)
                    nursery.cancel_scope.cancel()
                # Outside the nursery: its cancellation must not swallow the close frame.
                if ended == "refused":
                    await send({"type": "websocket.close", "code": POLICY_VIOLATION, "reason": REFUSED_MESSAGE})
                elif ended == "vite":
                    with contextlib.suppress(Exception):
                        await send({"type": "websocket.close", "code": 1000})
        except (trio_websocket.HandshakeError, OSError):
            await send({"type": "websocket.close", "code": 1011})
