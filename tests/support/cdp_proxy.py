"""Helpers for the proxy's transport tests: a running `serve_proxy` over the in-memory fake."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from pix3net.clients.cdptrio import WsClient
from pix3net.owner.proxy.transport import serve_proxy
from tests.fakechrome.channel import FakeChannel
from tests.fakechrome.model import FakeChrome

TOKEN = "a" * 43
AUTH = [(b"Authorization", f"Bearer {TOKEN}".encode())]
GOOD = [("Authorization", f"Bearer {TOKEN}")]
EDITOR_URL = "http://localhost:5173/__pix3/"


@dataclass
class Running:
    port: int
    chrome: FakeChrome
    channel: FakeChannel
    logs: list[str] = field(default_factory=list)
    served: trio.Event = field(default_factory=trio.Event)  # serve_proxy returned
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)

    def cancel(self) -> None:
        """Cancel serve_proxy (what an owner's shutdown does)."""
        self.scope.cancel()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def router_clients(self) -> int:
        """Browser sessions still attached in the fake Chrome (one per connected client)."""
        return sum(1 for s in self.chrome.sessions.values() if s.kind == "browser" and s.parent == "")

    def ws(self, path: str = "/pix3") -> str:
        return f"ws://127.0.0.1:{self.port}{path}"


@asynccontextmanager
async def running_proxy(
    home: Path, urls: tuple[str, ...] = (), *, silent: bool = False, **options: Any
) -> AsyncIterator[Running]:
    chrome = FakeChrome(list(urls))
    channel = FakeChannel(chrome, silent=silent)
    running = Running(0, chrome, channel)

    async def serve(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            with running.scope:
                await serve_proxy(
                    channel, token=TOKEN, port=0, home=home, log=running.logs.append, task_status=task_status, **options
                )
        finally:
            running.served.set()

    async with trio.open_nursery() as nursery:
        running.port = await nursery.start(serve)
        yield running
        nursery.cancel_scope.cancel()


@asynccontextmanager
async def connect(url: str, headers: list[tuple[str, str]] | None = None) -> AsyncIterator[WsClient]:
    """A WebSocket client of the proxy (pix3's own; always closes its socket)."""
    port = int(url.split(":")[2].split("/")[0])
    path = "/" + url.split("/", 3)[3]
    async with await WsClient.connect(port, path, GOOD if headers is None else headers) as ws:
        yield ws


async def rpc(ws: WsClient, message: dict[str, Any], seconds: float = 10) -> dict[str, Any]:
    """Send one command and return its reply (events before it are skipped)."""
    await ws.send(json.dumps(message))
    with trio.fail_after(seconds):
        while True:
            reply = json.loads(await ws.receive())
            if reply.get("id") == message.get("id") and "method" not in reply:
                return dict(reply)


async def before_reply(ws: WsClient, message: dict[str, Any], seconds: float = 10) -> list[dict[str, Any]]:
    """Send one command; return what the client received before its reply.

    What the proxy sends one client goes out in order, so a frame meant for another client that
    reached this one earlier is in the list: ``== []`` asserts that nothing leaked, without a wait."""
    await ws.send(json.dumps(message))
    got: list[dict[str, Any]] = []
    with trio.fail_after(seconds):
        while True:
            frame = json.loads(await ws.receive())
            if frame.get("id") == message.get("id") and "method" not in frame:
                return got
            got.append(frame)


async def raw_exchange(port: int, request: bytes, seconds: float = 10) -> bytes:
    """Write raw bytes, read until the server closes (every refusal closes)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(request)
        data = bytearray()
        with trio.fail_after(seconds):
            while chunk := await stream.receive_some(65536):
                data += chunk
    return bytes(data)


def parse_answer(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split(" ")[1]), headers, body


def upgrade_request(path: str, headers: list[tuple[str, str]], host: str = "127.0.0.1") -> bytes:
    """A valid RFC 6455 upgrade for ``path`` with extra headers (closing, for refusal checks)."""
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        *[f"{k}: {v}" for k, v in headers],
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def poll_until(predicate: Callable[[], bool], seconds: float = 5) -> None:
    with trio.fail_after(seconds):
        while not predicate():  # noqa: ASYNC110 - polls fake Chrome state that has no event
            await trio.sleep(0.01)
