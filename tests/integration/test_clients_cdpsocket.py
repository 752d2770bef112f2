"""One CDP call over a plain socket (pix3net/clients/cdpsocket.py), against the real proxy over the fake Chrome: a result, a
page call, Chrome's error, the refusals, a close, silence — each one line naming the method."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest
import trio

from pix3net.clients import cdpsocket
from pix3net.clients.cdp import CallError
from pix3net.wire.websocket import accept_value
from tests.support.cdp_proxy import EDITOR_URL, TOKEN, running_proxy


async def _call(port: int, *args: object, **kw: object) -> object:
    return await trio.to_thread.run_sync(lambda: cdpsocket.call(port, TOKEN, *args, **kw))  # type: ignore[arg-type]


async def test_browser_and_page_calls(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy:
        assert await _call(proxy.port, "Browser.getVersion") == {
            "protocolVersion": "1.3",
            "product": "FakeChrome/1.0",
            "revision": "@fake",
            "userAgent": "FakeChrome",
            "jsVersion": "0",
        }
        created = await _call(proxy.port, "Target.createTarget", {"url": "about:blank"})
        assert isinstance(created, dict)
        page = f"/pix3/page/{created['targetId']}"
        answer = await _call(proxy.port, "Runtime.evaluate", {"expression": "location.href"}, path=page)
        assert answer == {"result": {"type": "string", "value": "about:blank"}}
        with pytest.raises(CallError, match=r"^Nope\.method: 'Nope\.method' wasn't found$"):
            await _call(proxy.port, "Nope.method")


async def test_refusals_name_the_method(tmp_path: Path) -> None:
    async with running_proxy(tmp_path) as proxy:
        with pytest.raises(CallError, match=r"^Runtime.evaluate: HTTP 404 "):
            await _call(proxy.port, "Runtime.evaluate", path="/pix3/page/NOPE")
        with pytest.raises(CallError, match=r"^Browser.getVersion: HTTP 401 "):
            await trio.to_thread.run_sync(lambda: cdpsocket.call(proxy.port, "b" * 43, "Browser.getVersion"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    with pytest.raises(CallError, match=r"^Browser.getVersion: .*refused"):
        cdpsocket.call(dead, TOKEN, "Browser.getVersion")


def _server(answer: bytes, upgrade: str = "Upgrade: websocket\r\n") -> tuple[socket.socket, threading.Thread]:
    """Accepts one upgrade with a 101 (valid unless ``upgrade`` drops or changes its Upgrade
    header), then writes ``answer`` and holds the connection."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        head = b""
        while b"\r\n\r\n" not in head:
            head += conn.recv(4096)
        key = next(
            line.split(b":", 1)[1].strip()
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"sec-websocket-key")
        )
        accept = accept_value(key.decode())
        conn.sendall(
            f"HTTP/1.1 101 Switching Protocols\r\n{upgrade}Connection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n".encode()
            + answer
        )
        conn.recv(65536)  # our request frame
        try:
            conn.recv(1)  # until the client gives up
        finally:
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


def test_a_close_and_a_silence_end_the_call() -> None:
    listener, thread = _server(b"\x88\x05\x03\xe9bye")  # close 1001 "bye"
    with listener:
        port = listener.getsockname()[1]
        with pytest.raises(CallError, match=r"^Target.createTarget: closed 1001 bye$"):
            cdpsocket.call(port, TOKEN, "Target.createTarget")
    thread.join(5)
    listener, thread = _server(b"")
    with listener:
        port = listener.getsockname()[1]
        with pytest.raises(CallError, match=r"^Target.createTarget: no answer within 300 ms$"):
            cdpsocket.call(port, TOKEN, "Target.createTarget", timeout=0.3)
    thread.join(5)


def test_a_101_that_is_not_a_websocket_is_refused() -> None:
    """RFC 6455 §4.1: the client checks the answer's Upgrade, not only its accept value."""
    for upgrade in ("", "Upgrade: h2c\r\n"):
        listener, thread = _server(b"", upgrade)
        with listener:
            port = listener.getsockname()[1]
            with pytest.raises(
                CallError, match=r"^Browser.getVersion: the proxy's handshake does not upgrade to a WebSocket$"
            ):
                cdpsocket.call(port, TOKEN, "Browser.getVersion", timeout=2)
        thread.join(5)
