"""Port inspection and choice and one call through the proxy (clients.cdptrio.call) (docs/cdp-proxy.md, "Client side" and "Port inspection"),
against the real proxy over the fake Chrome, plain-DevTools look-alikes and squatters."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import pytest
import trio

from pix3net.clients.cdptrio import CallError as ProxyCallError
from pix3net.clients.cdptrio import call as proxy_call
from pix3net.clients.port import (
    NoFreePort,
    PortInspection,
    choose_port,
    inspect_port,
    is_editor_page_url,
    list_targets,
    prove_proxy,
)
from pix3tools.core.ports import CDP_PORT, CDP_PORT_SPAN
from tests.support.cdp_proxy import EDITOR_URL, TOKEN, running_proxy
from tests.support.ports import free_port, held_here


def free_pair() -> int:
    """A port p with p+1 free too (at the time of asking)."""
    for _ in range(50):
        port = free_port()
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    raise RuntimeError("no two free ports in a row")


@asynccontextmanager
async def http_server(answers: dict[str, tuple[int, dict[str, str], bytes]], seen: list[bytes]) -> AsyncIterator[int]:
    """A one-request-per-connection HTTP server answering by path; records every request head."""

    async def handle(stream: trio.SocketStream) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = await stream.receive_some(65536)
            if not chunk:
                return
            data += chunk
        seen.append(data)
        path = data.split(b" ")[1].decode().split("?")[0]
        status, headers, body = answers.get(path, (404, {}, b"{}"))
        lines = [
            f"HTTP/1.1 {status} X",
            *[f"{k}: {v}" for k, v in headers.items()],
            f"Content-Length: {len(body)}",
            "Connection: close",
        ]
        await stream.send_all(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        [listener] = await nursery.start(partial(trio.serve_tcp, handle, 0, host="127.0.0.1"))
        yield listener.socket.getsockname()[1]
        nursery.cancel_scope.cancel()


def devtools(browser: str, urls: list[str]) -> dict[str, tuple[int, dict[str, str], bytes]]:
    version = json.dumps({"Browser": browser, "webSocketDebuggerUrl": "ws://x/devtools/browser/1"}).encode()
    pages = json.dumps([{"type": "page", "url": u, "id": str(n)} for n, u in enumerate(urls)]).encode()
    json_type = {"Content-Type": "application/json"}
    return {"/json/version": (200, json_type, version), "/json/list": (200, json_type, pages)}


def test_constants_and_editor_urls() -> None:
    assert (CDP_PORT, CDP_PORT_SPAN) == (9333, 6)
    assert is_editor_page_url("http://localhost:5173/__pix3/")
    assert is_editor_page_url("http://localhost:5173/__pix3/?x=1")
    assert is_editor_page_url("http://localhost:5173/game/__pix3/#a")
    assert not is_editor_page_url("http://localhost:5173/")
    assert not is_editor_page_url("http://localhost:5173/__pix3/x")


async def test_closed_port_is_free() -> None:
    assert await inspect_port(free_port(), TOKEN) == PortInspection("free")


async def test_our_proxy(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy:
        assert await inspect_port(proxy.port, TOKEN) == PortInspection("ours", "FakeChrome/1.0", [EDITOR_URL])
        for token in ("b" * 43, None):
            other = await inspect_port(proxy.port, token)
            assert other.kind == "foreign" and other.browser is None
            assert other.detail == (
                f"port {proxy.port} is a Pix3 CDP proxy that does not know this token (HTTP 401; {held_here()}): "
                "another user's, or one started with another PIX3_HOME, or one that cannot prove it for this port"
                " (an older pix3, or one behind a relay)"
            )
        [target] = await list_targets(proxy.port, TOKEN)
        assert target["url"] == EDITOR_URL


async def test_squatter_and_plain_devtools_never_see_the_token() -> None:
    seen: list[bytes] = []
    squatter = {"/json/version": (401, {"X-Pix3-Cdp-Proxy": "1", "X-Pix3-Proof": "x" * 43}, b"{}")}
    async with http_server(squatter, seen) as port:
        assert (await inspect_port(port, TOKEN)).kind == "foreign"
        assert (await prove_proxy(port, TOKEN)).kind == "foreign"
    async with http_server(devtools("Chrome/155.0", [EDITOR_URL]), seen) as port:
        assert await inspect_port(port, TOKEN) == PortInspection("legacy", "Chrome/155.0", [EDITOR_URL])
    async with http_server(devtools("Chrome/155.0", ["about:blank"]), seen) as port:
        assert (await inspect_port(port, TOKEN, recorded_port=port)).kind == "legacy"
        foreign = await inspect_port(port, TOKEN)
        assert (
            foreign.kind == "foreign"
            and foreign.detail == f"port {port} is a Chrome/155.0 that is not Pix3's (1 page(s), none is /__pix3/)"
        )
    async with http_server(devtools("Chrome/150.0", ["https://example.com/"]), seen) as port:
        foreign = await inspect_port(port, TOKEN)
        assert foreign.kind == "foreign" and foreign.browser == "Chrome/150.0" and "not Pix3" in foreign.detail
    async with http_server({}, seen) as port:  # 404 on /json/version
        foreign = await inspect_port(port, TOKEN)
        assert foreign == PortInspection(
            "foreign", None, [], f"port {port} is in use by something that is not Chrome ({held_here()})"
        )
    assert seen and not any(b"authorization" in head.lower() for head in seen)
    assert not any(TOKEN.encode() in head for head in seen)


async def test_non_http_listener_is_foreign_but_closed_for_proof() -> None:
    async def silent(stream: trio.SocketStream) -> None:
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        [listener] = await nursery.start(partial(trio.serve_tcp, silent, 0, host="127.0.0.1"))
        port = listener.socket.getsockname()[1]
        assert (await inspect_port(port, TOKEN)).detail == (
            f"port {port} is in use by something that is not Chrome ({held_here()})"
        )
        assert (await prove_proxy(port, TOKEN)).kind == "closed"
        nursery.cancel_scope.cancel()


async def test_choose_port(tmp_path: Path) -> None:
    free = free_port()
    choice = await choose_port(TOKEN, preferred=free)
    assert (choice.port, choice.skipped, choice.inspection.kind) == (free, [], "free")
    port = free_pair()

    async def squat(stream: trio.SocketStream) -> None:
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
        nursery.start_soon(trio.serve_listeners, squat, listeners)
        choice = await choose_port(TOKEN, preferred=port)
        assert choice.port == port + 1
        assert choice.skipped == [(port, f"port {port} is in use by something that is not Chrome ({held_here()})")]
        with pytest.raises(
            NoFreePort, match=f"No free debugging port between {port} and {port}:\n  port {port} is in use"
        ):
            await choose_port(TOKEN, preferred=port, span=0)
        nursery.cancel_scope.cancel()
    async with running_proxy(tmp_path) as proxy:
        ours = await choose_port(TOKEN, preferred=proxy.port, span=0)
        assert ours.inspection.kind == "ours"


async def test_proxy_call(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy:
        created = await proxy_call(proxy.port, TOKEN, "Target.createTarget", {"url": EDITOR_URL})
        assert created == {"targetId": proxy.chrome.pages()[0].id}
        with pytest.raises(ProxyCallError, match=r"^Fake\.nope: 'Fake\.nope' wasn't found$"):
            await proxy_call(proxy.port, TOKEN, "Fake.nope")
        with pytest.raises(ProxyCallError, match=r"^Browser\.getVersion: HTTP 401 wrong token"):
            await proxy_call(proxy.port, "b" * 43, "Browser.getVersion")
    async with running_proxy(tmp_path, silent=True) as hung:
        with pytest.raises(ProxyCallError, match=r"^Browser\.getVersion: no answer within 300 ms$"):
            await proxy_call(hung.port, TOKEN, "Browser.getVersion", timeout=0.3)
