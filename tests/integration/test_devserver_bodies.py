"""Hostile request bodies and query strings against the real dev server: nesting bombs, a huge
PUT, a path whose percent-decoding is not UTF-8 (docs/devserver.md "Limits").
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio
import trio_websocket

from tests.support.devserver import DevServer, dev_server
from tests.support.projects import make_project

X = {"X-Pix3": "1"}
DEEP = 100_000
BAD_JSON = {"error": "bad_json", "message": "Body must be a JSON object."}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[DevServer]:
    root = make_project(tmp_path / "game", {"index.html": "<p>game</p>\n", "a.txt": "a"})
    with dev_server(root) as running:
        yield running


def _peak_rss_kib(server: DevServer) -> int:
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    assert match is not None
    return int(match.group(1))


@pytest.mark.parametrize(
    "route", ["flush", "sync", "handover/claim", "check", "hash", "mkdir", "delete", "move", "changeset"]
)
async def test_nesting_bombs_are_bad_json(server: DevServer, route: str) -> None:
    bombs = [b"[" * DEEP + b"]" * DEEP, b'{"a":' * DEEP + b"1" + b"}" * DEEP]
    async with httpx.AsyncClient(base_url=server.url, headers=X, timeout=30) as client:
        for bomb in bombs:
            reply = await client.post(f"/__pix3/api/{route}", content=bomb)
            assert (reply.status_code, reply.json()) == (400, BAD_JSON), bomb[:8]
        assert (await client.get("/__pix3/api/hello")).status_code == 200
    assert "Traceback" not in server.log()


async def test_a_nesting_bomb_on_the_editor_socket_is_ignored(server: DevServer) -> None:
    """Unparsable frames are ignored; a frame nested too deep is one of them: the socket
    stays open and the tab's hello is still welcomed."""
    async with trio_websocket.open_websocket_url(server.ws_url) as ws:
        await ws.send_message("[" * DEEP + "]" * DEEP)
        await ws.send_message('{"a":' * DEEP + "1" + "}" * DEEP)
        await ws.send_message(json.dumps({"type": "hello", "tabId": "tab-a"}))
        with trio.fail_after(10):
            welcome = json.loads(await ws.get_message())
        assert (welcome["type"], welcome["tabId"]) == ("welcome", "tab-a")
    assert "Traceback" not in server.log()


def test_a_huge_put_is_streamed_to_disk(server: DevServer) -> None:
    """256 MiB uploaded as fast as loopback goes: the server's peak memory must not follow it."""
    size = 256 * 1024 * 1024
    chunk = bytes(range(256)) * 16384  # 4 MiB
    before = _peak_rss_kib(server)
    with socket.create_connection(("127.0.0.1", server.port), timeout=120) as sock:
        head = f"PUT /__pix3/api/file?path=big.bin HTTP/1.1\r\nHost: localhost\r\nX-Pix3: 1\r\nContent-Length: {size}\r\n\r\n"
        sock.sendall(head.encode())
        for _ in range(size // len(chunk)):
            sock.sendall(chunk)
        answer = b""
        while b"}" not in answer:
            data = sock.recv(65536)
            assert data, answer
            answer += data
    assert answer.startswith(b"HTTP/1.1 200 "), answer
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["size"] == size
    assert (server.root / "big.bin").stat().st_size == size
    grown_mib = (_peak_rss_kib(server) - before) / 1024
    assert grown_mib < 48, f"peak memory grew by {grown_mib:.0f} MiB for a {size >> 20} MiB upload"


async def test_a_path_that_is_not_utf8_is_refused(server: DevServer) -> None:
    """`a%ed%a0%80.txt` decodes to bytes that are not UTF-8: refused, never a file named by its
    escaped text (two wire paths would name one file)."""
    async with httpx.AsyncClient(base_url=server.url, headers=X) as client:
        for method in ("PUT", "GET"):
            reply = await client.request(method, "/__pix3/api/file?path=a%ed%a0%80.txt", content=b"x")
            assert (reply.status_code, reply.json()["error"]) == (400, "bad_path"), method
            assert "UTF-8" in reply.json()["message"]
        reply = await client.get("/__pix3/api/history?path=%ff.pix3scene")
        assert (reply.status_code, reply.json()["error"]) == (400, "bad_path")
        # JSON strings can carry lone surrogates, which no file name can hold either
        reply = await client.post("/__pix3/api/mkdir", content=b'{"path": "d\\udc80"}')
        assert (reply.status_code, reply.json()["error"]) == (400, "bad_path")
    assert sorted(p.name for p in server.root.iterdir()) == [".pix3", "a.txt", "index.html", "pix3project.yaml"]
