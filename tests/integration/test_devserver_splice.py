"""The splice as traces: requests in on one end, what reached "Vite" (a scripted socket server)
or Hypercorn (another), and what the client got back. Real sockets, no dev server around it."""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pix3net.devserver.front import splice as splice_module
from pix3net.devserver.front import vitelink
from pix3net.devserver.front.door import Door
from pix3net.devserver.front.splice import Activity, serve_connection

Script = Callable[[socket.socket, bytes], bool]  # (connection, request) → keep the connection open


@dataclass
class Upstream:
    """A loopback server that answers each request head it reads with ``script``; with
    ``idle_s``, a connection idle that long after an answer is closed (Node's keep-alive timeout)."""

    script: Script
    idle_s: float | None = None
    sock: socket.socket = field(default_factory=socket.socket)
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def port(self) -> int:
        port: int = self.sock.getsockname()[1]
        return port

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        buf = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in buf:
                    try:
                        data = conn.recv(65536)
                    except TimeoutError:
                        return  # idle too long: closed, maybe with a request just arrived (a reset)
                    if not data:
                        return
                    buf += data
                head, _, buf = buf.partition(b"\r\n\r\n")
                self.requests.append(head + b"\r\n\r\n")
                if not self.script(conn, head + b"\r\n\r\n"):
                    return
                conn.settimeout(self.idle_s)


def module(conn: socket.socket, request: bytes) -> bool:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/javascript\r\nContent-Length: 10\r\n\r\nexport 1;\n")
    return True


@pytest.fixture
def splice(tmp_path: Path) -> Iterator[Callable[[Upstream, Upstream | None], socket.socket]]:
    """Start serve_connection on one end of a socket pair; the test holds the other end."""
    ends: list[socket.socket] = []
    door = Door.for_project(tmp_path, None, None)

    def start(
        vite: Upstream, hypercorn: Upstream | None = None, vite_port: Callable[[], int | None] | None = None
    ) -> socket.socket:
        """``vite_port``: where the supervisor says Vite is (default: ``vite``'s port)."""
        ours, theirs = socket.socketpair()
        ends.extend([ours, theirs])
        internal = hypercorn.port if hypercorn is not None else 1
        port_of = vite_port or (lambda: vite.port)

        def run() -> None:
            with contextlib.suppress(OSError):
                serve_connection(ours, Activity(None), port_of, internal, lambda opened, closed: None, door)
            ours.close()

        threading.Thread(target=run, daemon=True).start()
        theirs.settimeout(10)
        return theirs

    yield start
    for end in ends:
        end.close()


# Bytes read past the end of one answer (pipelined answers can arrive in one recv), per client.
_AHEAD: dict[int, bytes] = {}


def read_answer(client: socket.socket, head_only: bool = False) -> bytes:
    """One whole response (Content-Length or chunked framing, or up to EOF); ``head_only`` for HEAD.
    What arrived after it is kept for the next call on the same client."""
    buf = _AHEAD.pop(id(client), b"")
    while b"\r\n\r\n" not in buf:
        data = client.recv(65536)
        if not data:
            return buf
        buf += data
    head, _, body = buf.partition(b"\r\n\r\n")
    lower = head.lower()
    rest = b""
    if head_only or head.startswith((b"HTTP/1.1 1", b"HTTP/1.1 204", b"HTTP/1.1 304")):
        body, rest = b"", body
    elif b"content-length:" in lower:
        length = int(lower.split(b"content-length:")[1].split(b"\r\n")[0])
        while len(body) < length:
            body += client.recv(65536)
        body, rest = body[:length], body[length:]
    elif b"chunked" in lower:
        while not (body.startswith(b"0\r\n\r\n") or b"\r\n0\r\n\r\n" in body):
            body += client.recv(65536)
        end = 5 if body.startswith(b"0\r\n\r\n") else body.index(b"\r\n0\r\n\r\n") + 7
        body, rest = body[:end], body[end:]
    else:
        while data := client.recv(65536):
            body += data
    if rest:
        _AHEAD[id(client)] = rest
    return head + b"\r\n\r\n" + body


def test_modules_on_one_kept_alive_connection(splice: Callable[..., socket.socket]) -> None:
    vite = Upstream(module)
    client = splice(vite)
    for n in range(3):
        client.sendall(f"GET /src/m{n}.js HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        assert read_answer(client).endswith(b"\r\n\r\nexport 1;\n")
    assert vite.connections == 1
    assert [r.split(b" ")[1] for r in vite.requests] == [b"/src/m0.js", b"/src/m1.js", b"/src/m2.js"]
    # pipelined: two requests in one packet, answered in order
    client.sendall(b"GET /a.js HTTP/1.1\r\nHost: localhost\r\n\r\nGET /b.js HTTP/1.1\r\nHost: 127.0.0.1:5173\r\n\r\n")
    assert read_answer(client).endswith(b"export 1;\n") and read_answer(client).endswith(b"export 1;\n")


def test_answers_in_pieces_chunked_head_304_and_interim(splice: Callable[..., socket.socket]) -> None:
    def varied(conn: socket.socket, request: bytes) -> bool:
        path = request.split(b" ")[1]
        if path == b"/pieces":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n")
            time.sleep(0.02)
            conn.sendall(b"\r\nabc")
            time.sleep(0.02)
            conn.sendall(b"def")
        elif path == b"/chunked":
            conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
            time.sleep(0.02)
            conn.sendall(b"2\r\nde\r\n0\r\n\r\n")
        elif path == b"/not-modified":
            conn.sendall(b'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n')
        elif path == b"/interim":
            conn.sendall(b"HTTP/1.1 103 Early Hints\r\nLink: </a.js>\r\n\r\n")
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        else:  # HEAD
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n")
        return True

    client = splice(Upstream(varied))
    client.sendall(b"GET /pieces HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert read_answer(client).endswith(b"\r\n\r\nabcdef")
    client.sendall(b"GET /chunked HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert read_answer(client).endswith(b"\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
    client.sendall(b"GET /not-modified HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert read_answer(client).startswith(b"HTTP/1.1 304")
    client.sendall(b"HEAD /head HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert read_answer(client, head_only=True) == b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"
    client.sendall(b"GET /interim HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert read_answer(client).startswith(b"HTTP/1.1 103")
    assert read_answer(client).endswith(b"\r\n\r\nok")


def test_a_body_that_ends_when_vite_closes(splice: Callable[..., socket.socket]) -> None:
    def until_close(conn: socket.socket, request: bytes) -> bool:
        conn.sendall(b"HTTP/1.1 200 OK\r\n\r\nall of it")
        return False

    client = splice(Upstream(until_close))
    client.sendall(b"GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert read_answer(client) == b"HTTP/1.1 200 OK\r\n\r\nall of it"  # then the client's connection ends too


def test_vite_closing_before_answering(splice: Callable[..., socket.socket]) -> None:
    """A kept-alive connection Vite had closed is retried once on a fresh one; a fresh connection
    closed without an answer is a 502 naming Vite."""
    answered = 0

    def flaky(conn: socket.socket, request: bytes) -> bool:
        nonlocal answered
        if request.startswith(b"GET /crash"):
            return False
        if answered == 1 and request.startswith(b"GET /second"):
            answered += 1
            return False  # closes the kept-alive connection without answering
        answered += 1
        return module(conn, request)

    vite = Upstream(flaky)
    client = splice(vite)
    client.sendall(b"GET /first HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert read_answer(client).endswith(b"export 1;\n")
    client.sendall(b"GET /second HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert read_answer(client).endswith(b"export 1;\n")
    assert vite.connections == 2 and [r.split(b" ")[1] for r in vite.requests].count(b"/second") == 2
    crash_client = splice(vite)
    crash_client.sendall(b"GET /crash HTTP/1.1\r\nHost: localhost\r\n\r\n")
    answer = read_answer(crash_client)
    assert answer.startswith(b"HTTP/1.1 502 ")
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body["error"] == "vite_unavailable" and "Vite closed the connection" in body["message"]


def test_vite_closing_idle_connections_is_never_a_502(splice: Callable[..., socket.socket]) -> None:
    """Vite (Node) closes a kept-alive connection idle 100 ms; requests come 80-120 ms apart, so
    some meet a connection closed just before or as they arrive (a reset, nothing read back): each
    GET is sent once more on a fresh connection and every answer is right."""
    vite = Upstream(module, idle_s=0.1)
    client = splice(vite)
    for n in range(40):
        client.sendall(f"GET /src/m{n}.js HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        assert read_answer(client).endswith(b"\r\n\r\nexport 1;\n"), n
        time.sleep(0.08 + 0.001 * (n % 41))
    assert vite.connections > 1  # the idle closes did happen
    assert sorted({r.split(b" ")[1] for r in vite.requests}) == sorted(f"/src/m{n}.js".encode() for n in range(40))


def test_a_connection_idle_too_long_is_not_reused(
    splice: Callable[..., socket.socket], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Idle IDLE_REUSE_S or more, a kept-alive Vite connection is replaced before the request is
    written (not after it failed): one request per answer reaches Vite."""
    monkeypatch.setattr(vitelink, "IDLE_REUSE_S", 0.05)
    vite = Upstream(module)
    client = splice(vite)
    for pause in (0.0, 0.15, 0.0):
        time.sleep(pause)
        client.sendall(b"GET /src/m.js HTTP/1.1\r\n" + H + b"\r\n")
        assert read_answer(client).endswith(b"export 1;\n")
    assert (vite.connections, len(vite.requests)) == (2, 3)


def _first_then(second: Script) -> Upstream:
    """Vite answers a connection's first request, then acts out ``second`` on the next one."""
    seen: dict[int, int] = {}

    def script(conn: socket.socket, request: bytes) -> bool:
        seen[conn.fileno()] = seen.get(conn.fileno(), 0) + 1
        return module(conn, request) if seen[conn.fileno()] == 1 else second(conn, request)

    return Upstream(script)


def _is_closed_502(answer: bytes) -> bool:
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    return answer.startswith(b"HTTP/1.1 502 ") and "Vite closed the connection" in body["message"]


def test_a_post_on_a_connection_vite_closed_is_not_sent_twice(splice: Callable[..., socket.socket]) -> None:
    """Vite may have acted on a POST it never answered: a 502, and the POST reached it once."""
    vite = _first_then(lambda conn, request: False)
    client = splice(vite)
    client.sendall(b"GET /first HTTP/1.1\r\n" + H + b"\r\n")
    assert read_answer(client).endswith(b"export 1;\n")
    client.sendall(b"POST /api/thing HTTP/1.1\r\n" + H + b"Content-Length: 3\r\n\r\na=1")
    assert _is_closed_502(read_answer(client))
    assert [r.split(b" ")[0] for r in vite.requests] == [b"GET", b"POST"]


def test_a_get_vite_began_to_answer_is_not_sent_twice(splice: Callable[..., socket.socket]) -> None:
    """A byte of the answer came back: Vite saw the request, so it is not repeated."""

    def half_head(conn: socket.socket, request: bytes) -> bool:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-")
        return False

    vite = _first_then(half_head)
    client = splice(vite)
    client.sendall(b"GET /first HTTP/1.1\r\n" + H + b"\r\n")
    assert read_answer(client).endswith(b"export 1;\n")
    client.sendall(b"GET /second HTTP/1.1\r\n" + H + b"\r\n")
    assert _is_closed_502(read_answer(client))
    assert [r.split(b" ")[1] for r in vite.requests] == [b"/first", b"/second"]


def _refusing_port() -> int:
    """A loopback port nobody listens on (bound, then let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_a_refused_connection_waits_for_the_restarted_vite(splice: Callable[..., socket.socket]) -> None:
    """The supervisor still names the Vite that died (its port refuses); 0.3 s later it names the
    restarted one: the request waits and goes there, no 502."""
    vite = Upstream(module)
    dead, since = _refusing_port(), time.monotonic()
    client = splice(vite, vite_port=lambda: dead if time.monotonic() - since < 0.3 else vite.port)
    client.sendall(b"GET /src/m.js HTTP/1.1\r\n" + H + b"\r\n")
    assert read_answer(client).endswith(b"export 1;\n")
    assert time.monotonic() - since >= 0.3 and len(vite.requests) == 1


def test_vite_refusing_past_the_wait_is_a_502(
    splice: Callable[..., socket.socket], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(splice_module, "WAIT_FOR_VITE_S", 0.2)
    dead = _refusing_port()
    client = splice(Upstream(module), vite_port=lambda: dead)
    started = time.monotonic()
    client.sendall(b"GET /src/m.js HTTP/1.1\r\n" + H + b"\r\n")
    answer = read_answer(client)
    assert answer.startswith(b"HTTP/1.1 502 ") and b"Vite does not answer" in answer
    assert 0.2 <= time.monotonic() - started < 5


H = b"Host: localhost\r\n"


@pytest.mark.parametrize(
    "request_head",
    [
        b"GET /__pix3/api/hello HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /.pix3/dev.json HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /src/a.js HTTP/1.1\r\n" + H + b"Expect: 100-continue\r\n\r\n",
        b"GET /a HTTP/1.1\r\n" + H + b"Content-Length : 0\r\n\r\n",
        b"GET /%2Epix3/dev.json HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /%5F_pix3/api/hello HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /src/%2EPIX3/x HTTP/1.1\r\n" + H + b"\r\n",
        b"GET http://x/src/a.js HTTP/1.1\r\n" + H + b"\r\n",
        b"OPTIONS * HTTP/1.1\r\n" + H + b"\r\n",
        # the Host rule: missing, duplicated, a rebinding name (Hypercorn's dispatcher answers 403)
        b"GET /src/a.js HTTP/1.1\r\n\r\n",
        b"GET /src/a.js HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n",
        b"GET /src/a.js HTTP/1.1\r\nHost: 127.evil.example:5173\r\n\r\n",
        b"GET /src/a.js HTTP/1.1\r\nHost: 127.0.0.1.nip.io\r\nConnection: keep-alive\r\n\r\n",
        b"GET /src/a.js HTTP/1.1\r\nConnection: close\r\nHost: attacker.example\r\n\r\n",
        # the deny list and the normaliser (Hypercorn's dispatcher answers 404)
        b"GET /.env HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /.env?raw?? HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /.git/config HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /key.pem/. HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /@fs/etc/passwd?import&raw?? HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /src/#/../.env HTTP/1.1\r\n" + H + b"\r\n",
        b"GET /node_modules/.vite/deps/../../x.map HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n",
        # a navigation another origin asked for, or one that does not say who (the dispatcher judges it: 403)
        b"GET /index.html HTTP/1.1\r\n" + H + b"Sec-Fetch-Mode: navigate\r\nSec-Fetch-Site: cross-site\r\n\r\n",
        b"GET /index.html HTTP/1.1\r\n" + H + b"Sec-Fetch-Mode: navigate\r\nSec-Fetch-Site: same-site\r\n\r\n",
        b"GET /index.html HTTP/1.1\r\n" + H + b"Sec-Fetch-Mode: navigate\r\n\r\n",
        b"GET /a HTTP/1.1\r\n"
        + H
        + b"Sec-Fetch-Mode: navigate\r\nSec-Fetch-Site: none\r\nSec-Fetch-Site: cross-site\r\n\r\n",
        # an upgrade: the HMR socket is relayed message by message behind Hypercorn
        b"GET /?token=t HTTP/1.1\r\n" + H + b"Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
        b"GET / HTTP/1.1\r\n" + H + b"Upgrade: websocket\r\n\r\n",
    ],
)
def test_what_is_not_a_plain_vite_request_goes_to_hypercorn(
    splice: Callable[..., socket.socket], request_head: bytes
) -> None:
    vite = Upstream(module)

    def no_content(conn: socket.socket, request: bytes) -> bool:
        conn.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
        return True

    hypercorn = Upstream(no_content)
    client = splice(vite, hypercorn)
    client.sendall(request_head)
    assert read_answer(client).startswith(b"HTTP/1.1 204")
    assert vite.requests == [] and hypercorn.requests[0] == request_head.split(b"\r\n\r\n")[0] + b"\r\n\r\n"
    # the rest of the connection stays with Hypercorn, even a plain module request
    client.sendall(b"GET /src/m.js HTTP/1.1\r\n" + H + b"\r\n")
    assert read_answer(client).startswith(b"HTTP/1.1 204")
    assert vite.requests == [] and len(hypercorn.requests) == 2


@pytest.mark.parametrize("target", [b"/src/pix3.js", b"/src/a%20b.js", b"/src/a.js?x=/.pix3/", b"/PIX3"])
def test_targets_that_name_pix3_without_being_ours_go_to_vite(
    splice: Callable[..., socket.socket], target: bytes
) -> None:
    vite = Upstream(module)
    hypercorn = Upstream(module)
    client = splice(vite, hypercorn)
    client.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert read_answer(client).endswith(b"export 1;\n")
    assert hypercorn.requests == [] and vite.requests == [b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\n\r\n"]


@pytest.mark.parametrize("site", [b"none", b"same-origin", b"Same-Origin \t"])
def test_the_users_and_the_pages_own_navigations_stay_spliced(
    splice: Callable[..., socket.socket], site: bytes
) -> None:
    # The dispatcher would pass them; handed off, their connection (which Chromium reuses for the
    # page's module fetches) would be relayed by it to the end.
    vite = Upstream(module)
    hypercorn = Upstream(module)
    client = splice(vite, hypercorn)
    client.sendall(
        b"GET /app.html HTTP/1.1\r\n" + H + b"Sec-Fetch-Mode: navigate\r\nSec-Fetch-Site: " + site + b"\r\n\r\n"
    )
    assert read_answer(client).endswith(b"export 1;\n")
    client.sendall(b"GET /src/m.js HTTP/1.1\r\n" + H + b"Sec-Fetch-Mode: cors\r\n\r\n")
    assert read_answer(client).endswith(b"export 1;\n")
    assert hypercorn.requests == [] and len(vite.requests) == 2


def test_every_accepted_host_reaches_vite(splice: Callable[..., socket.socket]) -> None:
    """Loopback names in any accepted spelling are spliced to Vite, on one connection."""
    vite = Upstream(module)
    client = splice(vite)
    for host in (b"localhost:5173", b"127.0.0.2:5173", b"[::1]:5173", b"LOCALHOST", b"localhost:5173"):
        client.sendall(b"GET /src/m.js HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
        assert read_answer(client).endswith(b"export 1;\n")
    assert vite.connections == 1 and len(vite.requests) == 5


def test_vite_switching_protocols_unasked_is_a_502(splice: Callable[..., socket.socket]) -> None:
    """No request the splice relays asks for an upgrade, so a 101 is never piped through blind."""

    def switch(conn: socket.socket, request: bytes) -> bool:
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
        return True

    client = splice(Upstream(switch))
    client.sendall(b"GET /src/m.js HTTP/1.1\r\n" + H + b"\r\n")
    assert read_answer(client).startswith(b"HTTP/1.1 502 ")


def test_hypercorn_answering_before_the_body_is_all_sent(splice: Callable[..., socket.socket]) -> None:
    """Hypercorn answers 413 after a part of the body and closes with the rest unread (its kernel
    resets the connection): the client still gets the whole answer, then the end of the stream."""
    answer = b'HTTP/1.1 413 \r\ncontent-type: application/json\r\ncontent-length: 19\r\n\r\n{"error":"too_big"}'

    def refuse(conn: socket.socket, request: bytes) -> bool:
        got = 0
        while got < 256 * 1024:
            got += len(conn.recv(65536))
        conn.sendall(answer)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = reset
        return False

    size = 16 * 1024 * 1024
    for _ in range(20):
        client = splice(Upstream(module), Upstream(refuse))
        client.sendall(f"POST /__pix3/api/flush HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n".encode())

        def send_body(client: socket.socket = client) -> None:
            with contextlib.suppress(OSError):
                for _ in range(size // 65536):
                    client.sendall(b" " * 65536)

        threading.Thread(target=send_body, daemon=True).start()
        assert read_answer(client) == answer
        client.close()
