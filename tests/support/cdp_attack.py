"""Hostile clients of the CDP proxy, for the lockout and fragment tests and the soak.

:class:`Pipeliners` presses on the proxy from a thread; ``python -m tests.support.cdp_attack
<port> <count>`` runs them in a process of its own (so the test's own client does not share an
interpreter lock with them), prints ``ready`` once they are connected and, when its stdin closes,
``<bytes sent> <connections replaced>``."""

from __future__ import annotations

import contextlib
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from types import TracebackType

# What a local process without the token can send: a valid request, pipelined, never read.
JUNK_REQUEST = b"GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
SMALL_WINDOW = 1024  # SO_RCVBUF; the kernel doubles it and keeps a floor of a few KiB
SEND_BUFFER = 64 * 1024  # SO_SNDBUF: without it 260 sockets park ~1 GB in the kernel on our side


def tiny_window_socket(port: int) -> socket.socket:
    """A connected, non-blocking socket that advertises the smallest receive window it can."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_WINDOW)  # before connect: sets the window
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    sock.setblocking(False)
    return sock


class Pipeliners:
    """``count`` sockets with a tiny receive window that pipeline requests and never read; one
    the proxy closes is replaced at once, so ``count`` stay open for as long as the proxy lets them.

    ``with Pipeliners(port, 260) as held:`` … ``held.sent`` bytes were written, ``held.replaced``
    connections were closed by the proxy and opened again."""

    def __init__(self, port: int, count: int, request: bytes = JUNK_REQUEST) -> None:
        self.port = port
        self.count = count
        self.chunk = request * (65536 // len(request))
        self.sockets: list[socket.socket] = []
        self.sent = 0
        self.replaced = 0
        self.opened = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pipeliners", daemon=True)

    def __enter__(self) -> Pipeliners:
        self._thread.start()
        if not self.opened.wait(30):
            raise RuntimeError("the hostile sockets did not connect within 30 s")
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(10)
        for sock in self.sockets:
            sock.close()

    def _open(self) -> socket.socket | None:
        try:
            return tiny_window_socket(self.port)
        except OSError:
            return None

    def _run(self) -> None:
        while len(self.sockets) < self.count and not self._stop.is_set():
            sock = self._open()
            if sock is not None:
                self.sockets.append(sock)
        self.opened.set()
        while not self._stop.is_set():
            busy = False
            for index, sock in enumerate(self.sockets):
                try:
                    self.sent += sock.send(self.chunk)
                    busy = True
                except BlockingIOError:
                    continue
                except OSError:  # closed by the proxy: another takes its place
                    sock.close()
                    fresh = self._open()
                    if fresh is not None:
                        self.sockets[index] = fresh
                        self.replaced += 1
            if not busy:
                time.sleep(0.01)


LONG_TARGET = "/json/version?" + "j" * 16_000  # a head just under the proxy's 16 KiB limit


def junk_requests(port: int, total: int) -> int:
    """``total`` bytes of tokenless requests with long targets, each answered and read (8 to a
    connection, the most the proxy answers on one); the number of requests."""
    request = f"GET {LONG_TARGET} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    sent = 0
    while sent * len(request) < total:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            for _ in range(8):
                sock.sendall(request)
                answer = b""
                while b"}" not in answer:
                    chunk = sock.recv(65536)
                    if not chunk:
                        raise ConnectionError("the proxy closed before answering")
                    answer += chunk
                if not answer.startswith(b"HTTP/1.1 401"):
                    raise AssertionError(answer[:80])
                sent += 1
    return sent


def one_byte_fragments(count: int, *, payload: bytes = b" ", final: bytes = b"1") -> bytes:
    """A masked text message of ``count`` frames (zero mask): an opening frame, ``count - 2``
    continuations of ``payload`` each (``b""``: empty ones), and a final continuation."""
    mask = b"\0\0\0\0"
    opening = struct.pack("!BB", 0x01, 0x80 | len(payload)) + mask + payload
    middle = struct.pack("!BB", 0x00, 0x80 | len(payload)) + mask + payload
    closing = struct.pack("!BB", 0x80, 0x80 | len(final)) + mask + final
    return opening + middle * (count - 2) + closing


def upgraded(port: int, token: str, seconds: float = 60) -> socket.socket:
    """A blocking socket upgraded to a WebSocket client of the proxy (``/pix3``, with ``token``)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=seconds)
    head = (
        "GET /pix3 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer {token}\r\n\r\n"
    )
    sock.sendall(head.encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed during the upgrade")
        answer += chunk
    if not answer.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(answer.decode("latin-1"))
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the peer still sends, until it closes (or resets) the connection."""
    got = bytearray()
    with contextlib.suppress(OSError):
        while chunk := sock.recv(1024 * 1024):
            got += chunk
    return bytes(got)


def send_all_until_closed(sock: socket.socket, data: bytes) -> int:
    """Write ``data`` on a blocking socket; the bytes written before the peer closed."""
    view = memoryview(data)
    sent = 0
    with contextlib.suppress(OSError):
        while sent < len(view):
            sent += sock.send(view[sent : sent + 1024 * 1024])
    return sent


@contextlib.contextmanager
def pipeliners_process(port: int, count: int, stats: list[int] | None = None) -> Iterator[None]:
    """:class:`Pipeliners` in a process of their own, connected when this yields; ``stats`` gets
    the bytes they sent and the connections they replaced."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.cdp_attack", str(port), str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        if process.stdout.readline().strip() != "ready":
            raise RuntimeError("the hostile sockets did not connect")
        yield
        process.stdin.close()
        if stats is not None:
            stats += map(int, process.stdout.read().split())
    finally:
        process.stdin.close()
        process.wait(30)
        process.stdout.close()


def main(argv: list[str]) -> None:
    with Pipeliners(int(argv[0]), int(argv[1])) as held:
        print("ready", flush=True)
        sys.stdin.read()
    print(held.sent, held.replaced, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
