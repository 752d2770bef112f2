"""The ASGI proxy's Vite connections as traces: ASGI messages in, what reached a scripted
upstream (a trio server on loopback) and what the proxy answered (front/vitelink.py's rules)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import trio

from pix3net.devserver.front import vitelink
from pix3net.devserver.front.viteproxy import ViteProxy

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nexport 1;\n"


class Upstream:
    """Answers each connection's requests in turn with ``script(n)``: bytes to send, then keep
    the connection open (True) or close it (False). Records the request heads it read."""

    def __init__(self, script: Callable[[int], tuple[bytes, bool]]) -> None:
        self.script = script
        self.connections = 0
        self.heads: list[bytes] = []
        self.port = 0

    async def serve(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started()
        await trio.serve_listeners(self._connection, listeners)

    async def _connection(self, stream: trio.SocketStream) -> None:
        self.connections += 1
        buf, n = b"", 0
        async with stream:
            while True:
                while b"\r\n\r\n" not in buf:
                    data = await stream.receive_some()
                    if not data:
                        return
                    buf += data
                head, _, buf = buf.partition(b"\r\n\r\n")
                self.heads.append(head.split(b"\r\n")[0])
                n += 1
                answer, keep = self.script(n)
                await stream.send_all(answer)
                if not keep:
                    return


async def ask(proxy: ViteProxy, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
    scope: dict[str, Any] = {"type": "http", "method": method, "path": path, "headers": [(b"host", b"localhost")]}
    incoming = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await proxy.http(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


@contextlib.asynccontextmanager
async def proxy_to(upstream: Upstream) -> AsyncIterator[ViteProxy]:
    """A proxy to ``upstream`` while it serves; the connections left in the pool closed after."""
    async with trio.open_nursery() as nursery:
        await nursery.start(upstream.serve)

        async def port_of(timeout_s: float) -> int | None:
            return upstream.port

        proxy = ViteProxy(port_of)
        try:
            yield proxy
        finally:
            for _port, _since, pooled in proxy._pool:
                pooled.stream.socket.close()
            nursery.cancel_scope.cancel()


async def test_a_get_on_a_pooled_connection_vite_closed_is_sent_again() -> None:
    vite = Upstream(lambda n: (OK, True) if n == 1 else (b"", False))
    async with proxy_to(vite) as proxy:
        assert await ask(proxy, "GET", "/first") == (200, b"export 1;\n")
        assert await ask(proxy, "GET", "/second") == (200, b"export 1;\n")
        assert vite.connections == 2 and vite.heads.count(b"GET /second HTTP/1.1") == 2


@pytest.mark.parametrize(
    ("method", "second"),
    [("POST", (b"", False)), ("GET", (b"HTTP/1.1 200 OK\r\nContent-", False))],
)
async def test_what_is_not_sent_again(method: str, second: tuple[bytes, bool]) -> None:
    """A POST Vite never answered, a GET Vite began to answer: a 502, and Vite saw each once."""
    vite = Upstream(lambda n: (OK, True) if n == 1 else second)
    async with proxy_to(vite) as proxy:
        assert await ask(proxy, "GET", "/first") == (200, b"export 1;\n")
        status, body = await ask(proxy, method, "/second", b"a=1" if method == "POST" else b"")
        assert (status, json.loads(body)["error"]) == (502, "vite_unavailable")
        assert vite.heads == [b"GET /first HTTP/1.1", f"{method} /second HTTP/1.1".encode()]


async def test_a_pooled_connection_idle_too_long_is_not_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vitelink, "IDLE_REUSE_S", 0.05)
    vite = Upstream(lambda n: (OK, True))
    async with proxy_to(vite) as proxy:
        for pause in (0.0, 0.15, 0.0):
            await trio.sleep(pause)
            assert await ask(proxy, "GET", "/m.js") == (200, b"export 1;\n")
        assert (vite.connections, len(vite.heads)) == (2, 3)
