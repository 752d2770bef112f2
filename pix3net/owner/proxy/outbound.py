"""One WebSocket client's outbound side: a byte-bounded queue, its writer, and a fast path.

A slow client hurts only itself (docs/cdp-proxy.md): the task reading Chrome never waits on a
client. A small message for a client with nothing queued is written at once by whoever produced
it (one non-blocking ``writev``: no task switch, no copy); everything else is queued and drained
by the client's own writer task. Passing the client's bound, or the owner's bound over all clients, cuts the client
with close 1008.

Messages over :data:`FRAGMENT_BYTES` go out as fragments (RFC 6455 §5.4). A close frame may
follow any fragment, so a client cut mid-message still receives the close frame right after the
fragment in progress instead of a truncated frame and then EOF. The rest of the message and the
queue are dropped at the cut: what the owner still holds for that client is at most one fragment.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import trio

from pix3net.wire.envelope import Chunk
from pix3net.wire.frames import close_frame
from pix3net.wire.websocket import frame_header

__all__ = [
    "CONTROL_QUEUE_BYTES",
    "CUT_SECONDS",
    "DIRECT_WRITE_BYTES",
    "FRAGMENT_BYTES",
    "HANG_UP_SECONDS",
    "Budget",
    "Client",
    "frames",
]


# A message larger than this goes out in fragments of this size: the most a cut client still
# gets of a message before its close frame, and the most the owner keeps for it after the cut.
FRAGMENT_BYTES = 1024 * 1024
# Messages up to this size are written at once when nothing is queued ahead of them (a CDP reply
# or event is usually a few hundred bytes); larger ones always go through the writer task.
DIRECT_WRITE_BYTES = 64 * 1024
# A hung-up peer gets this long to answer the close frame (the reference's "hang up": close
# frame, then terminate after 1 s).
HANG_UP_SECONDS = 1.0
# Pongs owed to a client that pings without reading: past this it is cut like a slow reader.
CONTROL_QUEUE_BYTES = 1024 * 1024
# A client cut mid-fragment must read the rest of that fragment before its close frame can go
# out; one that reads nothing for this long is cut off without it.
CUT_SECONDS = 10.0

_END = object()


@dataclass
class Budget:
    """Bytes queued for all clients together (the owner's bound counts this)."""

    used: int = 0


def frames(parts: tuple[Chunk, ...], size: int, limit: int = FRAGMENT_BYTES) -> Iterator[list[Chunk]]:
    """The frames of one text message as lists of buffers: one frame, or fragments of ``limit``."""
    if size <= limit:
        yield [frame_header(size), *parts]
        return
    views = deque(memoryview(p) for p in parts if len(p))
    remaining = size
    opcode = 0x1
    while remaining:
        length = min(limit, remaining)
        remaining -= length
        out: list[Chunk] = [frame_header(length, opcode=opcode, fin=not remaining)]
        need = length
        while need:
            view = views[0]
            if len(view) <= need:
                out.append(views.popleft())
                need -= len(view)
            else:
                out.append(view[:need])
                views[0] = view[need:]
                need = 0
        del view
        opcode = 0x0
        yield out


def _advance(buffers: list[Chunk], sent: int) -> None:
    """Drop ``sent`` bytes from the front of ``buffers``."""
    while sent:
        first = buffers[0]
        if len(first) <= sent:
            sent -= len(first)
            buffers.pop(0)
        else:
            buffers[0] = memoryview(first)[sent:]
            sent = 0


class Client:
    """A WebSocket client's connection state and outbound side (see the module doc)."""

    def __init__(self, number: int, stream: trio.SocketStream, trailing: bytes, bound: int, budget: Budget) -> None:
        self.number = number
        self.stream = stream
        self.fd = stream.socket.fileno()
        self.trailing = trailing
        self.close_sent = False  # our close frame is queued or out: no data frame after it
        self.peer_closed = False  # the client's close frame came
        self.bound = bound
        self.budget = budget
        self.queue: deque[tuple[Any, int]] = deque()
        self.pending = 0  # data bytes queued or being written: what the bounds count
        self.messages = 0  # data messages in ``pending``
        self.control_queued = 0  # bytes of control frames queued (pongs a client does not read)
        self._buffers: list[Chunk] = []  # what is left of the frame being written
        self._frames: Iterator[list[Chunk]] | None = None  # the rest of the message being written
        self._size = 0  # data bytes of the message being written
        self._close_frame: bytes | None = None
        self.wake = trio.Event()
        self.closing = False
        self.upgraded = False  # the 101 went out
        self.reader_done = trio.Event()
        self.scope = trio.CancelScope()

    # -- accounting ------------------------------------------------------------------------
    def _count(self, size: int, messages: int) -> None:
        self.pending += size
        self.messages += messages
        self.budget.used += size

    @property
    def mid_message(self) -> bool:
        return bool(self._buffers) or self._frames is not None

    # -- producers (never wait) -------------------------------------------------------------
    def try_write(self, parts: tuple[Chunk, ...], size: int, defer: Callable[[Callable[[], object]], None]) -> bool:
        """Write a small message at once when nothing is ahead of it; True when it is taken.

        Never calls trio: what must wake a task goes to ``defer`` (the proxy's hot-path thread
        calls this; trio's own callers pass a function that calls at once)."""
        if self.closing or not self.upgraded or self.queue or self.mid_message or size > DIRECT_WRITE_BYTES:
            return False
        buffers: list[Chunk] = [frame_header(size), *parts]
        try:
            sent = os.writev(self.fd, buffers)
        except BlockingIOError:
            return False
        except OSError:
            defer(self.scope.cancel)  # the peer is gone: the reader ends with it
            return True
        if sent < size + len(buffers[0]):  # the socket took part of it: the writer sends the rest
            _advance(buffers, sent)
            self._buffers = buffers
            self._frames = iter(())
            self._size = size
            self._count(size, 1)
            defer(self.wake_writer)
        return True

    def wake_writer(self) -> None:
        self.wake.set()

    def enqueue(self, parts: tuple[Chunk, ...], size: int) -> bool:
        """Queue one text message; False when it would pass the client's bound (it is too slow)."""
        if self.closing:
            return True
        # One message of any size is taken when nothing is pending (Chrome→client has no limit).
        if self.pending and self.pending + size > self.bound:
            return False
        self.queue.append((parts, size))
        self._count(size, 1)
        self.wake.set()
        return True

    def control(self, data: bytes) -> None:
        """Queue a control frame (pong, close); they count towards :data:`CONTROL_QUEUE_BYTES`."""
        self.queue.append((data, 0))
        self.control_queued += len(data)
        self.wake.set()

    def finish(self) -> None:
        """The peer closed: flush what is queued (our close answer last), then the socket."""
        if not self.closing:
            self.closing = True
            self.queue.append((_END, 0))
            self.wake.set()

    def hang_up(self, code: int, reason: str, *, drop_queued: bool = False) -> None:
        """Close frame with code and reason, then the socket after the peer answers (≤ 1 s).

        ``drop_queued`` (a cut): the queue and the rest of the message in progress are dropped
        and the close frame follows the fragment being written.
        """
        if self.closing:
            return
        self.closing = True
        if drop_queued:
            self._drop()
        if not self.close_sent and not self.peer_closed:
            self.close_sent = True
            self._close_frame = close_frame(code, reason)
            self.control(self._close_frame)
        self.queue.append((_END, 0))
        self.wake.set()
        wait = CUT_SECONDS if self._buffers else HANG_UP_SECONDS
        self.scope.deadline = min(self.scope.deadline, trio.current_time() + wait)

    def _drop(self) -> None:
        self.queue.clear()  # data, and pongs: a client being cut is owed neither
        self.control_queued = 0
        self._frames = None
        if self._buffers:  # finish this frame from a copy: the message itself is let go
            self._buffers = [b"".join(self._buffers)]
        self.budget.used -= self.pending
        self.pending = self.messages = 0

    def close_now(self, code: int, reason: str) -> None:
        """Best effort, without waiting: a close frame if the socket is between frames (the
        proxy is being cancelled; the socket is closed right after)."""
        if self.closing or self._buffers or not self.upgraded or self.close_sent or self.peer_closed:
            return
        self.closing = self.close_sent = True
        with contextlib.suppress(OSError):
            os.write(self.fd, close_frame(code, reason))

    def release(self) -> None:
        """The connection is over: what is still counted leaves the owner's budget."""
        self._frames = None
        self._buffers = []
        self.queue.clear()
        self.budget.used -= self.pending
        self.pending = self.messages = 0

    # -- the writer task ----------------------------------------------------------------------
    async def write(self) -> None:
        try:
            await self._write()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            self.scope.cancel()  # the peer is gone; the reader ends with it

    async def _write(self) -> None:
        while True:
            if not self._buffers:
                if self._frames is not None:
                    frame = next(self._frames, None)
                    if frame is None:
                        self._frames = None
                        self._count(-self._size, -1)
                        continue
                    self._buffers = frame
                    del frame
                else:
                    while not self.queue and not self.mid_message:
                        self.wake = trio.Event()
                        await self.wake.wait()
                    if self.mid_message:
                        continue
                    item, size = self.queue.popleft()
                    if item is _END:
                        with trio.move_on_after(HANG_UP_SECONDS):
                            await self.reader_done.wait()
                        self.scope.cancel()
                        return
                    if isinstance(item, bytes):
                        self._buffers = [item]
                        self.control_queued -= len(item)
                    else:
                        self._size = size
                        self._frames = frames(item, size)
                    del item  # the message is held by the frames only, and let go with them
                    continue
            await self._flush()

    async def _flush(self) -> None:
        """Write the current frame whole (a frame is never cut, only the socket)."""
        buffers = self._buffers
        closing_frame = len(buffers) == 1 and buffers[0] is self._close_frame
        while buffers:
            try:
                sent = os.writev(self.fd, buffers)
            except BlockingIOError:
                await trio.lowlevel.wait_writable(self.fd)
                buffers = self._buffers  # a cut may have replaced them by a copy
                continue
            _advance(buffers, sent)
        if closing_frame:
            self.scope.deadline = min(self.scope.deadline, trio.current_time() + HANG_UP_SECONDS)
        await trio.lowlevel.checkpoint()  # a fast peer must not starve the other tasks
