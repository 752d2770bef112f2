"""One public connection, served by one thread with blocking sockets (see `listener.py`).

Requests for Vite (plain framing, not under `/__pix3`, no `.pix3` segment) are written to a
keep-alive Vite connection as they arrived and Vite's answer is relayed byte for byte, its
framing read just enough to find the end. The first request that is not that simple hands the
rest of the connection, bytes already read included, to the internal Hypercorn listener.

Time limits are the kernel's (SO_RCVTIMEO / SO_SNDTIMEO), so the common path costs no extra
system call: an idle connection is closed after KEEP_ALIVE_S, a head must be complete
HEAD_TIMEOUT_S after its first byte, a client that stops reading is dropped after KEEP_ALIVE_S.
"""

from __future__ import annotations

import select
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

from pix3net.devserver import guard
from pix3net.devserver.answers import VITE_CLOSED, VITE_REFUSED, json_bytes, vite_unavailable
from pix3net.devserver.httphead import MAX_HEAD, Head, parse_request, parse_response, path_of

READ = 65536
KEEP_ALIVE_S = 30.0  # an idle connection is closed after this; Hypercorn's keep_alive_timeout too
HEAD_TIMEOUT_S = 10.0  # a request head must be complete this long after its first byte (slowloris)
_NO_BODY_STATUSES = frozenset({204, 304})


def set_timeouts(sock: socket.socket, receive_s: float, send_s: float | None = None) -> None:
    """Kernel timeouts on a blocking socket: a recv/send that waits longer fails with EAGAIN."""
    for option, seconds in ((socket.SO_RCVTIMEO, receive_s), (socket.SO_SNDTIMEO, send_s)):
        if seconds is not None:
            whole = int(seconds)
            sock.setsockopt(socket.SOL_SOCKET, option, struct.pack("ll", whole, int((seconds - whole) * 1e6)))


class ViteGone(Exception):
    """Vite closed or reset the connection; ``answered`` once part of its reply reached the client."""

    def __init__(self, answered: bool) -> None:
        super().__init__("Vite closed the connection")
        self.answered = answered


def _vite_unavailable(message: str) -> bytes:
    body = json_bytes(vite_unavailable(message))
    return (
        b"HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json; charset=utf-8\r\n"
        b"cache-control: no-store\r\nconnection: close\r\ncontent-length: %d\r\n\r\n" % len(body)
    ) + body


_CLOSED_502 = _vite_unavailable(VITE_CLOSED)
_REFUSED_502 = _vite_unavailable(VITE_REFUSED)


@dataclass
class Activity:
    """What the listener may know about a connection: since when it has waited for a request head
    (None while a request is under way or once Hypercorn owns it)."""

    waiting_since: float | None


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


def _read_head(client: _Reader) -> int:
    """Index of the end of the next request head in ``client.buf``; -1 when the connection ends,
    times out, or the head outgrows MAX_HEAD (the caller hands the bytes to Hypercorn then)."""
    end = client.buf.find(b"\r\n\r\n")
    if end >= 0:
        return end + 4
    if not client.buf and not client.fill():  # waiting: the idle timeout is the socket's
        return -1
    deadline = time.monotonic() + HEAD_TIMEOUT_S
    limited = False
    try:
        while (end := client.buf.find(b"\r\n\r\n")) < 0:
            if len(client.buf) > MAX_HEAD:
                return -2
            left = deadline - time.monotonic()
            if left <= 0:
                return -1
            set_timeouts(client.sock, left)
            limited = True
            if not client.fill():
                return -1
    finally:
        if limited:
            set_timeouts(client.sock, KEEP_ALIVE_S)
    return end + 4


def serve_connection(
    client: socket.socket,
    activity: Activity,
    vite_port: Callable[[], int | None],
    internal_port: int,
    track: Callable[[socket.socket | None, socket.socket | None], None],
) -> None:
    """Serve ``client`` until it closes; ``track(new, old)`` tells the listener which upstream
    sockets are open (it shuts them down on exit). Raises OSError when a peer fails."""
    reader = _Reader(client)
    upstream: _Reader | None = None
    upstream_port: int | None = None
    try:
        while True:
            end = _read_head(reader)
            if end == -1:
                return
            activity.waiting_since = None
            head = parse_request(reader.buf[:end]) if end > 0 else None
            port = vite_port()
            path = path_of(head.target) if head is not None else None
            if head is None or port is None or path is None or guard.route_of(path) != "other":
                _hand_off(client, reader.buf, internal_port, track)
                return
            need = end + (head.length or 0)
            while len(reader.buf) < need:
                if not reader.fill():
                    return
            request, reader.buf = reader.buf[:need], reader.buf[need:]
            reused = upstream is not None and upstream_port == port
            if not reused:
                if upstream is not None:
                    track(None, upstream.sock)
                    upstream.sock.close()
                upstream, upstream_port = _open(port, client, track), port
                if upstream is None:
                    return
            assert upstream is not None
            try:
                keep = _exchange(upstream, client, request, head)
            except ViteGone as gone:
                track(None, upstream.sock)
                upstream.sock.close()
                upstream = None
                if gone.answered:
                    return
                if not reused:
                    client.sendall(_CLOSED_502)
                    return
                # a kept-alive connection Vite had already closed: once more on a fresh one
                upstream = _open(port, client, track)
                if upstream is None:
                    return
                try:
                    keep = _exchange(upstream, client, request, head)
                except ViteGone as again:
                    if not again.answered:
                        client.sendall(_CLOSED_502)
                    return
            if head.upgrade and keep is None:
                set_timeouts(client, 0.0, 0.0)  # a WebSocket may stay quiet as long as it likes
                _pipe(client, reader.buf, upstream.sock, upstream.buf)
                return
            if not keep or head.close:
                return
            activity.waiting_since = time.monotonic()
    finally:
        if upstream is not None:
            track(None, upstream.sock)
            upstream.sock.close()


def _hand_off(client: socket.socket, already: bytes, internal_port: int, track: Callable[..., None]) -> None:
    internal = _connect(internal_port)
    track(internal, None)
    try:
        set_timeouts(client, 0.0, 0.0)  # Hypercorn owns the time limits from here (0 = none)
        _pipe(client, already, internal, b"")
    finally:
        track(None, internal)
        internal.close()


def _open(port: int, client: socket.socket, track: Callable[..., None]) -> _Reader | None:
    """A new connection to Vite, or None after answering the client 502 (Vite is not listening)."""
    try:
        sock = _connect(port)
    except OSError:
        client.sendall(_REFUSED_502)
        return None
    track(sock, None)
    return _Reader(sock)


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _exchange(upstream: _Reader, client: socket.socket, request: bytes, head: Head) -> bool | None:
    """Send one request to Vite and relay its answer: True to keep both connections, False to
    close, None after a 101. Raises ViteGone when Vite fails on its side."""
    try:
        upstream.sock.sendall(request)
    except OSError:
        raise ViteGone(False) from None
    return _relay(upstream, client, head, answered=False)


def _upstream_head(upstream: _Reader, answered: bool) -> bytes:
    try:
        while (end := upstream.buf.find(b"\r\n\r\n")) < 0:
            if len(upstream.buf) > MAX_HEAD or not upstream.fill():
                raise ViteGone(answered)
    except OSError:
        raise ViteGone(answered) from None
    head, upstream.buf = upstream.buf[: end + 4], upstream.buf[end + 4 :]
    return head


def _relay(upstream: _Reader, client: socket.socket, request: Head, answered: bool) -> bool | None:
    head_bytes = _upstream_head(upstream, answered)
    head = parse_response(head_bytes)
    if head is None:
        raise ViteGone(answered)
    if head.status == 101:
        client.sendall(head_bytes)
        return None
    if 100 <= head.status < 200:  # an interim answer, then the real one
        client.sendall(head_bytes)
        return _relay(upstream, client, request, answered=True)
    if request.method == b"HEAD" or head.status in _NO_BODY_STATUSES:
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
    while data := _recv(upstream):
        client.sendall(data)
    return False


def _recv(upstream: _Reader, size: int = READ) -> bytes:
    try:
        return upstream.sock.recv(size)
    except OSError:
        raise ViteGone(True) from None


def _copy_exact(upstream: _Reader, client: socket.socket, head: bytes, length: int) -> None:
    take = upstream.buf[:length]
    upstream.buf = upstream.buf[length:]
    client.sendall(head + take)
    left = length - len(take)
    while left > 0:
        data = _recv(upstream, min(READ, left))
        if not data:
            raise ViteGone(True)
        left -= len(data)
        client.sendall(data)


def _fill_upstream(upstream: _Reader) -> None:
    try:
        if upstream.fill():
            return
    except OSError:
        pass
    raise ViteGone(True)


def _copy_chunked(upstream: _Reader, client: socket.socket) -> None:
    while True:
        while (end := upstream.buf.find(b"\r\n")) < 0:
            _fill_upstream(upstream)
        size = int(upstream.buf[:end].split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while (tail := upstream.buf.find(b"\r\n\r\n", max(0, end - 2))) < 0:
                _fill_upstream(upstream)
            client.sendall(upstream.buf[: tail + 4])
            upstream.buf = upstream.buf[tail + 4 :]
            return
        total = end + 2 + size + 2
        while len(upstream.buf) < total:
            _fill_upstream(upstream)
        client.sendall(upstream.buf[:total])
        upstream.buf = upstream.buf[total:]


def _pipe(a: socket.socket, a_pending: bytes, b: socket.socket, b_pending: bytes) -> None:
    """Both directions until either side closes; pending bytes are delivered first. poll(2)
    rather than epoll: no descriptor of its own (the listener counts three per connection)."""
    if a_pending:
        b.sendall(a_pending)
    if b_pending:
        a.sendall(b_pending)
    other = {a.fileno(): (a, b), b.fileno(): (b, a)}
    poller = select.poll()
    for fd in other:
        poller.register(fd, select.POLLIN)
    while True:
        for fd, _events in poller.poll():
            src, dst = other[fd]
            data = src.recv(READ)
            if not data:
                return
            dst.sendall(data)
