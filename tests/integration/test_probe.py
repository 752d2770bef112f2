"""The reuse path's loopback probes (pix3net/clients/probe.py): HTTP framing over a real socket,
answers split anywhere and hostile ones bounded; and against the real proxy, the token only
after the proof."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest
import trio

from pix3net.clients import probe
from pix3net.clients.probe import Connection, ProbeError
from tests.support.cdp_proxy import EDITOR_URL, TOKEN, running_proxy
from tests.support.ports import held_here


@contextmanager
def canned(answers: list[bytes], *, split: int = 0) -> Iterator[tuple[int, list[bytes]]]:
    """A server that sends ``answers`` in order, one per request read (``split``: in pieces of that
    many bytes), on as many connections as it takes; records what it read."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    seen: list[bytes] = []
    queue = list(answers)

    def serve() -> None:
        while queue:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                while queue:
                    head = b""
                    while b"\r\n\r\n" not in head:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        head += chunk
                    if not head:
                        break
                    seen.append(head)
                    answer = queue.pop(0)
                    step = split or len(answer) or 1
                    for i in range(0, len(answer), step):
                        conn.sendall(answer[i : i + step])
                    if b"connection: close" in answer.lower() or answer.startswith(b"HTTP/1.0"):
                        break

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield port, seen
    finally:
        listener.close()
        thread.join(5)


OK = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}'
CHUNKED = (
    b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{"ok\r\n7\r\n":true}\r\n0\r\nX-Trailer: 1\r\n\r\n'
)
TO_CLOSE = b'HTTP/1.0 200 OK\r\n\r\n{"ok":true}'


@pytest.mark.parametrize("split", [1, 2, 7, 0])
def test_framings_split_anywhere(split: int) -> None:
    with canned([OK, CHUNKED, TO_CLOSE], split=split) as (port, seen), Connection("127.0.0.1", port, 5) as conn:
        for _ in range(3):
            answer = conn.get("/x", {"X-A": "b"})
            assert (answer.status, answer.json()) == (200, {"ok": True})
    assert len(seen) == 3 and seen[0].startswith(b"GET /x HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\nX-A: b\r\n" in seen[0]


def test_a_server_that_closes_is_reconnected() -> None:
    closing = b"HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"
    with canned([closing, OK]) as (port, _), Connection("127.0.0.1", port, 5) as conn:
        assert conn.get("/a").status == 401
        assert conn.get("/b").json() == {"ok": True}


def test_a_keep_alive_closed_while_idle_is_retried_once() -> None:
    """A server may close an idle keep-alive connection just as the next GET goes out."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    closed = threading.Event()

    def serve() -> None:
        first, _ = listener.accept()
        first.recv(65536)
        first.sendall(OK)
        first.close()  # no "Connection: close": it just went
        closed.set()
        second, _ = listener.accept()
        second.recv(65536)
        second.sendall(OK)
        second.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    with listener, Connection("127.0.0.1", port, 5) as conn:
        assert conn.get("/a").status == 200
        assert closed.wait(5)
        assert conn.get("/b").status == 200
    thread.join(5)


@pytest.mark.parametrize(
    "answer",
    [
        b"SSH-2.0-OpenSSH_9.2\r\n\r\n",  # not HTTP
        b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",  # over the body bound
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"X: " + b"a" * (probe.MAX_HEAD + 10),  # an endless head
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\nshort",  # cut inside the body
    ],
)
def test_hostile_answers_end_the_probe(answer: bytes) -> None:
    with canned([answer]) as (port, _), Connection("127.0.0.1", port, 5) as conn, pytest.raises(ProbeError):
        conn.get("/")


def test_hello_needs_a_2xx() -> None:
    with canned([OK]) as (port, seen):
        assert probe.hello(f"http://127.0.0.1:{port}/")
    assert seen[0].startswith(b"GET /__pix3/api/hello HTTP/1.1\r\n")
    with canned([b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"]) as (port, _):
        assert not probe.hello(f"http://127.0.0.1:{port}/game")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    assert not probe.hello(f"http://127.0.0.1:{dead}/")
    assert not probe.hello("ftp://127.0.0.1/")


def test_a_squatter_never_gets_the_token() -> None:
    """401 with the marker and a made-up proof: no second request, so no token."""
    fake = b"HTTP/1.1 401 Unauthorized\r\nX-Pix3-Cdp-Proxy: 1\r\nX-Pix3-Proof: " + b"x" * 43
    fake += b"\r\nContent-Length: 2\r\n\r\n{}"
    with canned([fake, fake]) as (port, seen):
        assert probe.ours(port, TOKEN) is None
        assert not probe.proves(port, TOKEN)
    assert all(b"authorization" not in head.lower() for head in seen)
    assert all(b"X-Pix3-Challenge: " in head for head in seen)


async def test_our_proxy_proves_and_lists_its_tabs(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy:
        seen = await trio.to_thread.run_sync(probe.ours, proxy.port, TOKEN)
        assert seen is not None
        assert (seen.browser, seen.pages, seen.headless) == ("FakeChrome/1.0", [EDITOR_URL], False)
        assert await trio.to_thread.run_sync(probe.proves, proxy.port, TOKEN)
        assert await trio.to_thread.run_sync(probe.ours, proxy.port, "b" * 43) is None
        assert not await trio.to_thread.run_sync(probe.proves, proxy.port, "b" * 43)


async def test_the_forward_scope_proves_only_a_listed_port(tmp_path: Path) -> None:
    import json

    from pix3net.wire.proof import FORWARD_PORTS_FILE

    async with running_proxy(tmp_path) as proxy:
        prove = partial(probe.prove, proxy.port, TOKEN, forward=True)
        expected = (
            f"port {proxy.port} is a Pix3 CDP proxy that does not know this token (HTTP 401; {held_here()}): "
            "another user's, or one started with another PIX3_HOME"
        )
        assert await trio.to_thread.run_sync(prove) == ("foreign", expected)
        (tmp_path / FORWARD_PORTS_FILE).write_text(json.dumps({"ports": [proxy.port]}))
        assert await trio.to_thread.run_sync(prove) == ("ours", "")
        assert await trio.to_thread.run_sync(partial(probe.prove, proxy.port, "b" * 43, forward=True)) == (
            "foreign",
            expected,
        )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    assert probe.prove(dead, TOKEN, forward=True) == ("closed", "")
    assert probe.refused(dead)
    with canned([b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"]) as (port, _):
        assert probe.prove(port, TOKEN) == (
            "foreign",
            f"port {port} is in use by something that is not a Pix3 CDP proxy (HTTP 404; {held_here()})",
        )
        assert not probe.refused(port)
