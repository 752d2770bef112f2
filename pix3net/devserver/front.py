"""The public listener: Vite-bound requests are spliced to Vite, everything else goes to Hypercorn.

A module fetch costs Vite about half a millisecond; parsing it with h11 twice (Hypercorn, then
the proxy) costs more than that, which is why `bench_devserver` once measured 3.6× Vite alone.
Here each request head is read with plain byte searches; a request for Vite (no `.pix3`
segment, not under `/__pix3`, plain framing) is written to a keep-alive Vite connection as is,
and Vite's answer is relayed byte for byte (its framing read just enough to find the end).
The first request that is not that simple hands the rest of the connection, bytes already read
included, to the internal Hypercorn listener (the Quart app, the file API, the editor socket,
the static project folder, and the ASGI proxy of `proxy.py` for whatever else).
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

import trio

MAX_HEAD = 64 * 1024  # larger heads go to Hypercorn, which owns the limits
READ = 65536
_NO_BODY_STATUSES = frozenset({204, 304})


@dataclass
class _Head:
    method: bytes
    target: bytes
    length: int | None
    chunked: bool
    close: bool
    upgrade: bool
    other_framing: bool


def _parse_head(head: bytes, request: bool) -> _Head | None:
    lines = head.split(b"\r\n")
    first = lines[0].split(b" ", 2)
    if len(first) < 2:
        return None
    length: int | None = None
    chunked = close = upgrade = other = False
    http10 = (first[2] if request and len(first) > 2 else first[0]) == b"HTTP/1.0"
    keep_alive = False
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(b":")
        if not sep:
            return None
        key = name.strip().lower()
        if key == b"content-length":
            if length is not None or not value.strip().isdigit():
                return None
            length = int(value)
        elif key == b"transfer-encoding":
            if value.strip().lower() == b"chunked":
                chunked = True
            else:
                other = True
        elif key == b"connection":
            tokens = value.lower()
            close = close or b"close" in tokens
            keep_alive = b"keep-alive" in tokens
            upgrade = upgrade or b"upgrade" in tokens
        elif key == b"expect":
            other = True
    if http10 and not keep_alive:
        close = True
    if request:
        return _Head(first[0], first[1], length, chunked, close, upgrade, other)
    return _Head(b"", first[1], length, chunked, close, upgrade, other)


def for_vite(target: bytes) -> bool:
    """Not ours: outside `/__pix3` and without a `.pix3` segment (the rules of guard.py, applied
    to the path as Hypercorn will decode it)."""
    path = target.split(b"?", 1)[0]
    if not path.startswith(b"/"):
        return False
    decoded = unquote_to_bytes(path) if b"%" in path else path
    if decoded == b"/__pix3" or decoded.startswith(b"/__pix3/"):
        return False
    lowered = decoded.lower()
    return not (b"pix3" in lowered and b".pix3" in lowered.split(b"/"))


class _Reader:
    """Buffered reads from one socket; ``buf`` holds bytes read but not consumed yet."""

    def __init__(self, sock: socket.socket, buf: bytes = b"") -> None:
        self.sock = sock
        self.buf = buf

    def fill(self) -> bool:
        data = self.sock.recv(READ)
        if not data:
            return False
        self.buf += data
        return True

    def head(self) -> bytes | None:
        while (end := self.buf.find(b"\r\n\r\n")) < 0:
            if len(self.buf) > MAX_HEAD or not self.fill():
                return None
        head, self.buf = self.buf[: end + 4], self.buf[end + 4 :]
        return head


class Front:
    """Accepts on the public sockets (trio); each connection is served by one worker thread with
    blocking sockets: per request that is four plain syscalls, no event-loop round trips."""

    def __init__(self, internal_port: int, vite_port: Callable[[], int | None], log: logging.Logger) -> None:
        self._internal = internal_port
        self._vite_port = vite_port
        self._log = log
        self._open: set[socket.socket] = set()

    async def serve(
        self, sockets: list[socket.socket], task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        listeners = [trio.SocketListener(trio.socket.from_stdlib_socket(sock)) for sock in sockets]
        try:
            async with trio.open_nursery() as nursery:
                for listener in listeners:
                    nursery.start_soon(self._accept_loop, listener)
                task_status.started()
        finally:
            for sock in list(self._open):  # wakes every worker blocked in recv
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    async def _accept_loop(self, listener: trio.SocketListener) -> None:
        while True:
            stream = await listener.accept()
            sock = socket.socket(fileno=os.dup(stream.socket.fileno()))
            await stream.aclose()
            sock.setblocking(True)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a relayed answer is never held back
            self._open.add(sock)
            threading.Thread(target=self.handle, args=(sock,), name="pix3-front", daemon=True).start()

    def handle(self, client: socket.socket) -> None:
        """One client connection; a failure ends that connection only, never the server."""
        try:
            self._handle(client)
        except OSError:
            pass
        except Exception:
            self._log.exception("connection failed")
        finally:
            self._open.discard(client)
            client.close()

    def _handle(self, client: socket.socket) -> None:
        upstream: _Reader | None = None
        upstream_port = None
        reader = _Reader(client)
        try:
            while True:
                if not reader.buf and not reader.fill():
                    return
                end = reader.buf.find(b"\r\n\r\n")
                while end < 0 and len(reader.buf) <= MAX_HEAD:
                    if not reader.fill():
                        return
                    end = reader.buf.find(b"\r\n\r\n")
                head = _parse_head(reader.buf[: end + 4], request=True) if end >= 0 else None
                port = self._vite_port()
                if head is None or port is None or head.chunked or head.other_framing or not for_vite(head.target):
                    self._hand_off(client, reader.buf)
                    return
                need = end + 4 + (head.length or 0)
                while len(reader.buf) < need:
                    if not reader.fill():
                        return
                request, reader.buf = reader.buf[:need], reader.buf[need:]
                if upstream is None or upstream_port != port:
                    if upstream is not None:
                        upstream.sock.close()
                    upstream = _Reader(_connect(port))
                    self._open.add(upstream.sock)
                    upstream_port = port
                upstream.sock.sendall(request)
                keep = _relay(upstream, client, head)
                if head.upgrade and keep is None:
                    _pipe(client, reader.buf, upstream.sock, upstream.buf)
                    return
                if not keep or head.close:
                    return
        finally:
            if upstream is not None:
                self._open.discard(upstream.sock)
                upstream.sock.close()

    def _hand_off(self, client: socket.socket, already: bytes) -> None:
        internal = _connect(self._internal)
        self._open.add(internal)
        try:
            _pipe(client, already, internal, b"")
        finally:
            self._open.discard(internal)
            internal.close()


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _relay(upstream: _Reader, client: socket.socket, request: _Head) -> bool | None:
    """Copy one response; True to keep both connections, False to close, None after a 101."""
    head_bytes = upstream.head()
    if head_bytes is None:
        raise ConnectionError("Vite closed the connection")
    head = _parse_head(head_bytes, request=False)
    if head is None:
        raise ConnectionError("unreadable response from Vite")
    status = int(head.target) if head.target.isdigit() else 0
    if status == 101:
        client.sendall(head_bytes)
        return None
    if 100 <= status < 200:  # an interim answer, then the real one
        client.sendall(head_bytes)
        return _relay(upstream, client, request)
    if request.method == b"HEAD" or status in _NO_BODY_STATUSES:
        client.sendall(head_bytes)
        return not head.close
    if head.chunked:
        client.sendall(head_bytes)
        _copy_chunked(upstream, client)
        return not head.close
    if head.length is not None:
        _copy_exact(upstream, client, head_bytes, head.length)
        return not head.close
    client.sendall(head_bytes + upstream.buf)  # the body ends when Vite closes
    upstream.buf = b""
    while data := upstream.sock.recv(READ):
        client.sendall(data)
    return False


def _copy_exact(upstream: _Reader, client: socket.socket, head: bytes, length: int) -> None:
    take = upstream.buf[:length]
    upstream.buf = upstream.buf[length:]
    client.sendall(head + take)
    left = length - len(take)
    while left > 0:
        data = upstream.sock.recv(min(READ, left))
        if not data:
            raise ConnectionError("Vite closed mid-body")
        left -= len(data)
        client.sendall(data)


def _copy_chunked(upstream: _Reader, client: socket.socket) -> None:
    while True:
        while (end := upstream.buf.find(b"\r\n")) < 0:
            if not upstream.fill():
                raise ConnectionError("Vite closed mid-chunk")
        size = int(upstream.buf[:end].split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while (tail := upstream.buf.find(b"\r\n\r\n", max(0, end - 2))) < 0:
                if not upstream.fill():
                    raise ConnectionError("Vite closed in the trailers")
            client.sendall(upstream.buf[: tail + 4])
            upstream.buf = upstream.buf[tail + 4 :]
            return
        total = end + 2 + size + 2
        while len(upstream.buf) < total:
            if not upstream.fill():
                raise ConnectionError("Vite closed mid-chunk")
        client.sendall(upstream.buf[:total])
        upstream.buf = upstream.buf[total:]


def _pipe(a: socket.socket, a_pending: bytes, b: socket.socket, b_pending: bytes) -> None:
    """Both directions until either side closes; pending bytes are delivered first."""
    if a_pending:
        b.sendall(a_pending)
    if b_pending:
        a.sendall(b_pending)
    with selectors.DefaultSelector() as selector:
        selector.register(a, selectors.EVENT_READ, b)
        selector.register(b, selectors.EVENT_READ, a)
        while True:
            for key, _ in selector.select():
                src: socket.socket = key.fileobj  # type: ignore[assignment]
                data = src.recv(READ)
                if not data:
                    return
                key.data.sendall(data)
