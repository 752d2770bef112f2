"""The dev server under connection floods: the file-descriptor limit, the connection cap, heads
that never complete (docs/devserver.md "Limits").
"""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from pix3net.devserver.front.splice import HEAD_TIMEOUT_S
from tests.support.devserver import DevServer, dev_server
from tests.support.pix3 import pix3_env
from tests.support.projects import make_project


def _threads(server: DevServer) -> int:
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    match = re.search(r"^Threads:\s+(\d+)", status, re.M)
    assert match is not None
    return int(match.group(1))


def _closed_by_peer(sock: socket.socket) -> bool:
    """True once the server has closed its side (EOF or reset), without blocking."""
    sock.setblocking(False)
    try:
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except ConnectionError:
        return True
    finally:
        sock.setblocking(True)


def test_the_fd_limit_is_survived_and_requests_are_still_answered(tmp_path: Path) -> None:
    """`ulimit -n 256` and 400 idle connections: accept hits EMFILE, the server backs off, caps
    its connections (one thread each) and still answers a new client."""
    root = make_project(tmp_path / "game", {"index.html": "<p>game</p>\n"})
    with dev_server(root, nofile=256) as server:
        idle: list[socket.socket] = []
        try:
            for _ in range(400):
                idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=10))
            reply = httpx.get(server.url + "/__pix3/api/hello", timeout=20)
            assert reply.status_code == 200
            assert server.proc.poll() is None
            assert _threads(server) < 100, "one thread per connection must stay under the cap"
            page = httpx.get(server.url + "/index.html", timeout=20)  # the splice's path too
            assert page.status_code == 200 and page.text == "<p>game</p>\n"
        finally:
            for sock in idle:
                sock.close()
        assert httpx.get(server.url + "/__pix3/api/hello", timeout=20).status_code == 200
        assert server.record()["pid"] == server.proc.pid
        assert server.proc.poll() is None
    assert "connection cap" in server.log()


def test_accept_out_of_descriptors_backs_off_and_recovers(tmp_path: Path) -> None:
    """A limit so low that the connections' own descriptors exhaust it (`ulimit -n 20`): accept
    fails with EMFILE, the server backs off instead of dying, and serves again once they close.
    (At 32 the connection cap of 8 can keep the server under the limit: then accept never fails,
    depending on how many descriptors the process holds at start.)"""
    root = make_project(tmp_path / "game", {"index.html": "<p>game</p>\n"})
    with dev_server(root, nofile=20) as server:
        crowd: list[socket.socket] = []
        try:
            for _ in range(60):
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
                sock.sendall(f"GET /__pix3/api/hello HTTP/1.1\r\nHost: localhost:{server.port}\r\n\r\n".encode())
                crowd.append(sock)
            deadline = time.monotonic() + 10
            while "accept failed: Too many open files" not in server.log():
                assert time.monotonic() < deadline, server.log()
                time.sleep(0.05)
            assert server.proc.poll() is None
        finally:
            for sock in crowd:
                sock.close()
        # The server sees the closes as it reads them: a request that arrives before it has freed
        # enough descriptors for its way to Hypercorn is dropped. Once they are freed it is served.
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(server.url + "/__pix3/api/hello", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, server.log()
            time.sleep(0.1)
        assert server.proc.poll() is None


def test_the_idna_codec_is_loaded_before_descriptors_run_out() -> None:
    """Every connect with a `str` host encodes it with the `idna` codec, imported on first use. Its
    first import under EMFILE, by the front door's threads at once, once made Python remember a miss:
    every hand-off to Hypercorn then failed with `LookupError: unknown encoding: idna`, and the
    test above never saw the server recover. Both daemons' accept loops load it at start."""
    probe = "import sys, pix3net.daemon.acceptbackoff; print('encodings.idna' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=pix3_env())
    assert done.stdout.strip() == "True"


def test_heads_that_never_complete_are_cut(tmp_path: Path) -> None:
    """Slowloris: connections that trickle a head byte by byte are closed once HEAD_TIMEOUT_S has
    passed since their first byte, while a normal client is answered at once."""
    root = make_project(tmp_path / "game", {"index.html": "<p>game</p>\n"})
    with dev_server(root) as server:
        slow = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(30)]
        try:
            start = time.monotonic()
            for sock in slow:
                sock.sendall(b"GET /index.html HTTP/1.1\r\nHost: localhost\r\n")
            closed: dict[int, float] = {}
            while len(closed) < len(slow) and time.monotonic() - start < HEAD_TIMEOUT_S + 5:
                for n, sock in enumerate(slow):
                    if n in closed:
                        continue
                    if _closed_by_peer(sock):
                        closed[n] = time.monotonic() - start
                        continue
                    with contextlib.suppress(OSError):
                        sock.send(b"X")
                reply = httpx.get(server.url + "/__pix3/api/hello", timeout=5)
                assert reply.status_code == 200
                time.sleep(0.5)
            assert len(closed) == len(slow), f"{len(slow) - len(closed)} slow heads still open"
            assert min(closed.values()) >= HEAD_TIMEOUT_S - 0.5
        finally:
            for sock in slow:
                sock.close()
