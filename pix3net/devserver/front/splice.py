"""One public connection, served by one thread with blocking sockets (see `listener.py`).

Requests for Vite (plain framing, one `Host` the Host rule accepts, not under `/__pix3`, a target
the front door's rules let through, no upgrade) are written to a keep-alive Vite connection as
they arrived and Vite's answer is relayed byte for byte, its framing read just enough to find
the end. The first request that is not that simple hands the rest of the connection, bytes
already read included, to the internal Hypercorn listener, whose dispatcher answers it (a
refusal included: the splice never answers one itself) and relays WebSockets message by message.
This module is the thin loop that reads and writes; what to do with a head, and after Vite fails,
is decided by :mod:`pix3net.devserver.front.splicestep` (sans-IO, tested as traces).

Time limits are the kernel's (SO_RCVTIMEO / SO_SNDTIMEO), so the common path costs no extra
system call: an idle connection is closed after KEEP_ALIVE_S, a head must be complete
HEAD_TIMEOUT_S after its first byte, a client that stops reading is dropped after KEEP_ALIVE_S.
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

from pix3net.devserver.front.door import Door
from pix3net.devserver.front.splicestep import ANSWER_502, RETRY, HandOff, after_vite_failed, on_head
from pix3net.devserver.front.vitelink import READY_POLL_S, WAIT_FOR_VITE_S, reusable
from pix3net.devserver.http import VITE_CLOSED, VITE_REFUSED, error_bytes
from pix3net.wire.httphead import MAX_HEAD, common_answer_end, parse_response

READ = 65536
KEEP_ALIVE_S = 30.0  # an idle connection is closed after this; Hypercorn's keep_alive_timeout too
HEAD_TIMEOUT_S = 10.0  # a request head must be complete this long after its first byte (slowloris)
LINGER_S = 2.0  # after Hypercorn closed, what a client still sends is read and dropped this long
LINGER_BYTES = 64 * 1024 * 1024  # … or up to this much
_NO_BODY_STATUSES = frozenset({204, 304})


def set_timeouts(sock: socket.socket, receive_s: float, send_s: float | None = None) -> None:
    """Kernel timeouts on a blocking socket: a recv/send that waits longer fails with EAGAIN."""
    for option, seconds in ((socket.SO_RCVTIMEO, receive_s), (socket.SO_SNDTIMEO, send_s)):
        if seconds is not None:
            whole = int(seconds)
            sock.setsockopt(socket.SOL_SOCKET, option, struct.pack("ll", whole, int((seconds - whole) * 1e6)))


class ViteGone(Exception):
    """Vite closed or reset the connection; ``answered`` once part of its reply reached the
    client, ``heard`` once a byte of it came back (a retry is then out of the question)."""

    def __init__(self, answered: bool, heard: bool = True) -> None:
        super().__init__("Vite closed the connection")
        self.answered = answered
        self.heard = heard


_CLOSED_502 = error_bytes(VITE_CLOSED)
_REFUSED_502 = error_bytes(VITE_REFUSED)


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
    """Index of the end of the next request head in ``client.buf``; -1 when the connection ends
    or the head is not complete HEAD_TIMEOUT_S after its first byte; -2 when the head outgrows
    MAX_HEAD (the caller hands the bytes to Hypercorn, which refuses it). A connection idle
    longer than KEEP_ALIVE_S raises (the socket's receive timeout)."""
    if not client.buf and not client.fill():  # waiting: the idle timeout is the socket's
        return -1
    end = client.buf.find(b"\r\n\r\n")
    if end >= 0:  # the usual case: the whole head in one read
        return end + 4
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
    door: Door,
) -> None:
    """Serve ``client`` until it closes; ``track(new, old)`` tells the listener which upstream
    sockets are open (it shuts them down on exit); ``door``: the Host and target rules. Raises
    OSError when a peer fails.

    Written for the common case (a GET answered with a Content-Length body that arrives in one
    read): every request costs four system calls, two regular-expression searches, a dictionary
    lookup and a few dozen bytecodes; the rest is `_relay`.
    """
    reader = _Reader(client)
    upstream: _Reader | None = None
    upstream_port: int | None = None
    idle_since = 0.0  # when the kept-alive Vite connection carried its last answer
    recv, send = client.recv, client.sendall
    try:
        while True:
            buf = reader.buf
            if not buf:  # waiting for a request: the idle timeout is the socket's
                buf = reader.buf = recv(READ)
                if not buf:
                    return
            end = buf.find(b"\r\n\r\n") + 4
            if end < 4:  # the rest of the head, within HEAD_TIMEOUT_S
                end = _read_head(reader)
                if end == -1:
                    return
                buf = reader.buf
            activity.waiting_since = None
            port = vite_port()
            step = on_head(door, buf, end, port)
            if isinstance(step, HandOff):
                _hand_off(client, buf, internal_port, track)
                return
            assert port is not None  # a request is relayed only while Vite has a port
            need = step.size
            while len(reader.buf) < need:  # its body
                if not reader.fill():
                    return
            buf = reader.buf
            if len(buf) == need:
                request, reader.buf = buf, b""
            else:
                request, reader.buf = buf[:need], buf[need:]
            head_request = step.method == b"HEAD"
            reused = upstream is not None and upstream_port == port and reusable(time.monotonic() - idle_since)
            if not reused:
                if upstream is not None:
                    track(None, upstream.sock)
                    upstream.sock.close()
                upstream = None
                opened = _open(port, vite_port, client, track)
                if opened is None:
                    return
                upstream, upstream_port = opened
            retried = False
            while True:
                assert upstream is not None
                try:
                    keep = _exchange(upstream, send, request, head_request)
                    break
                except ViteGone as gone:
                    track(None, upstream.sock)
                    upstream.sock.close()
                    upstream = None
                    then = after_vite_failed(step.method, reused, gone.answered, gone.heard, retried)
                    if then is ANSWER_502:
                        send(_CLOSED_502)
                    if then is not RETRY:
                        return
                    # a kept-alive connection Node closed idle as the request came: once more on a fresh one
                    opened = _open(port, vite_port, client, track)
                    if opened is None:
                        return
                    upstream, upstream_port = opened
                    retried = True
            if not keep or step.close:
                return
            idle_since = activity.waiting_since = time.monotonic()
    finally:
        if upstream is not None:
            track(None, upstream.sock)
            upstream.sock.close()


def _hand_off(client: socket.socket, already: bytes, internal_port: int, track: Callable[..., None]) -> None:
    internal = _connect(internal_port)
    track(internal, None)
    try:
        set_timeouts(client, 0.0, 0.0)  # Hypercorn owns the time limits from here (0 = none)
        if _pipe(client, already, internal, b"") is internal:
            _linger(client)
    finally:
        track(None, internal)
        internal.close()


def _open(
    port: int, vite_port: Callable[[], int | None], client: socket.socket, track: Callable[..., None]
) -> tuple[_Reader, int] | None:
    """A new connection to Vite and its port, or None after answering the client 502. A refused
    connection carried nothing: Vite is restarting (its supervisor has not seen it exit yet), so
    wait for it, on its new port, for up to WAIT_FOR_VITE_S."""
    deadline = time.monotonic() + WAIT_FOR_VITE_S
    while True:
        try:
            sock = _connect(port)
            break
        except OSError:
            while True:
                if time.monotonic() >= deadline:
                    client.sendall(_REFUSED_502)
                    return None
                time.sleep(READY_POLL_S)
                current = vite_port()
                if current is not None:
                    port = current
                    break
    track(sock, None)
    return _Reader(sock), port


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _exchange(upstream: _Reader, send: Callable[[bytes], None], request: bytes, head_request: bool) -> bool:
    """Send one request to Vite and relay its answer: True to keep both connections, False to
    close. Raises ViteGone when Vite fails on its side."""
    sock = upstream.sock
    try:
        sock.sendall(request)
        data = sock.recv(READ)
    except OSError:
        raise ViteGone(False, heard=False) from None
    if not data:
        raise ViteGone(False, heard=False)
    if upstream.buf:
        data = upstream.buf + data
    elif not head_request and common_answer_end(data) == len(data):  # the usual case: one read
        send(data)
        return True
    upstream.buf = data
    return _relay(upstream, send, head_request, answered=False)


def _upstream_head(upstream: _Reader, answered: bool) -> bytes:
    try:
        while (end := upstream.buf.find(b"\r\n\r\n")) < 0:
            if len(upstream.buf) > MAX_HEAD or not upstream.fill():
                raise ViteGone(answered)
    except OSError:
        raise ViteGone(answered) from None
    head, upstream.buf = upstream.buf[: end + 4], upstream.buf[end + 4 :]
    return head


def _relay(upstream: _Reader, send: Callable[[bytes], None], head_request: bool, answered: bool) -> bool:
    head_bytes = _upstream_head(upstream, answered)
    head = parse_response(head_bytes)
    if head is None or head.status == 101:  # no request we splice asks for an upgrade
        raise ViteGone(answered)
    if 100 <= head.status < 200:  # an interim answer, then the real one
        send(head_bytes)
        return _relay(upstream, send, head_request, answered=True)
    if head_request or head.status in _NO_BODY_STATUSES:
        send(head_bytes)
        return not head.close
    if head.chunked:
        send(head_bytes)
        _copy_chunked(upstream, send)
        return not head.close
    if head.length is not None:
        _copy_exact(upstream, send, head_bytes, head.length)
        return not head.close
    send(head_bytes + upstream.buf)  # the body ends when Vite closes
    upstream.buf = b""
    while data := _recv(upstream):
        send(data)
    return False


def _recv(upstream: _Reader, size: int = READ) -> bytes:
    try:
        return upstream.sock.recv(size)
    except OSError:
        raise ViteGone(True) from None


def _copy_exact(upstream: _Reader, send: Callable[[bytes], None], head: bytes, length: int) -> None:
    take = upstream.buf[:length]
    upstream.buf = upstream.buf[length:]
    send(head + take)
    left = length - len(take)
    while left > 0:
        data = _recv(upstream, min(READ, left))
        if not data:
            raise ViteGone(True)
        left -= len(data)
        send(data)


def _fill_upstream(upstream: _Reader) -> None:
    try:
        if upstream.fill():
            return
    except OSError:
        pass
    raise ViteGone(True)


def _copy_chunked(upstream: _Reader, send: Callable[[bytes], None]) -> None:
    while True:
        while (end := upstream.buf.find(b"\r\n")) < 0:
            _fill_upstream(upstream)
        size = int(upstream.buf[:end].split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while (tail := upstream.buf.find(b"\r\n\r\n", max(0, end - 2))) < 0:
                _fill_upstream(upstream)
            send(upstream.buf[: tail + 4])
            upstream.buf = upstream.buf[tail + 4 :]
            return
        total = end + 2 + size + 2
        while len(upstream.buf) < total:
            _fill_upstream(upstream)
        send(upstream.buf[:total])
        upstream.buf = upstream.buf[total:]


def _pipe(a: socket.socket, a_pending: bytes, b: socket.socket, b_pending: bytes) -> socket.socket:
    """Both directions until either side ends (returned): it closed, reset, or refused what we
    sent it. Pending bytes are delivered first. What a side that refused had already sent is
    still relayed to the other (Hypercorn's 413 before the body was read). poll(2) rather than
    epoll: no descriptor of its own (the listener counts three per connection)."""
    if a_pending and not _send(b, a_pending):
        _relay_rest(b, a)
        return b
    if b_pending and not _send(a, b_pending):
        _relay_rest(a, b)
        return a
    other = {a.fileno(): (a, b), b.fileno(): (b, a)}
    poller = select.poll()
    for fd in other:
        poller.register(fd, select.POLLIN)
    while True:
        for fd, _events in poller.poll():
            src, dst = other[fd]
            try:
                data = src.recv(READ)
            except ConnectionResetError:
                return src
            if not data:
                return src
            if not _send(dst, data):
                _relay_rest(dst, src)
                return dst


def _send(sock: socket.socket, data: bytes) -> bool:
    """False when the peer is gone (it closed or reset): the caller stops sending there."""
    try:
        sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True


def _relay_rest(ended: socket.socket, to: socket.socket) -> None:
    """``ended`` refused our bytes: what it sent before that is still in our buffer; pass it on."""
    with contextlib.suppress(OSError):
        set_timeouts(ended, LINGER_S)
        while data := ended.recv(READ):
            to.sendall(data)


def _linger(client: socket.socket) -> None:
    """Hypercorn ended the connection, maybe with the client still sending (a 413 before the body
    was read): closing now would reset the connection and the client could lose the answer it has
    not read yet. Say we are done (FIN) and drop what still comes, for a short while."""
    with contextlib.suppress(OSError):
        client.shutdown(socket.SHUT_WR)
        set_timeouts(client, LINGER_S)
        deadline = time.monotonic() + LINGER_S
        dropped = 0
        while time.monotonic() < deadline and dropped < LINGER_BYTES:
            data = client.recv(READ)
            if not data:
                return
            dropped += len(data)
