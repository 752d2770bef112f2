"""Chrome's `--remote-debugging-pipe` as a :class:`~pix3net.owner.proxy.channel.ChromeChannel` (docs/chrome-owner.md,
"The pipe").

Chrome reads commands on its fd 3 and writes replies and events on its fd 4; each message is one
UTF-8 JSON text followed by a NUL byte, both ways. Messages can be hundreds of MiB (a screenshot
of a big page), so the reader keeps a list of chunks and joins once per message: linear in the
message size, never quadratic.
"""

from __future__ import annotations

import json
import os
import re
import select
from collections import deque
from collections.abc import Callable
from typing import Any

import trio

# A read asks for FIRST_READ bytes, and while reads come back full (a big message is streaming)
# for up to READ_CHUNK: with the pipe buffer raised to 1 MiB a 30 MB message is ~30 reads instead
# of ~460. Not 1 MiB every time: os.read allocates the whole size first, and for a 100-byte reply
# a 1 MiB allocation costs ~12 µs against ~1 µs (measured).
FIRST_READ = 64 * 1024
READ_CHUNK = 1024 * 1024
# Up to this size a message from Chrome is fully parsed to drop unparsable JSON; above it only
# the object braces are checked: a full parse of a 30 MB screenshot costs ~50 ms and the router
# reads the envelope of every message anyway.
FULL_CHECK_BYTES = 1024 * 1024
# Below this a message and its NUL go in one write (one syscall); above, two writes (no copy).
SMALL_MESSAGE_BYTES = 64 * 1024
# A pipe write of at most this many bytes is atomic: all of it or, non-blocking, nothing (POSIX).
PIPE_BUF = select.PIPE_BUF
# A reader of the channel gets this many messages that were already buffered before it yields:
# Chrome flooding events must not starve the other tasks, and a wake-up must not cost a yield.
_YIELD_EVERY = 16
_NUL = b"\0"
_DECODER = json.JSONDecoder()
_SCAN: Any = _DECODER.scan_once  # type: ignore[attr-defined]
_WS = re.compile(r"[ \t\n\r]*")


def is_json_object_text(message: bytes) -> bool:
    """Whether a message from Chrome is kept (unparsable JSON is dropped)."""
    if len(message) > FULL_CHECK_BYTES:  # first and last non-blank bytes, without copying 30 MB
        head = message[:64].lstrip()
        tail = message[-64:].rstrip()
        return head[:1] == b"{" and tail[-1:] == b"}"
    # json.loads, without its wrappers (encoding detection, type checks, a regex per call): the
    # C scanner on the decoded text, then only whitespace may follow. Same verdicts, a third
    # of the cost on a 150-byte reply (measured; every message from Chrome passes here).
    try:
        text = message.decode("utf-8")
        if text[:1] == "{":
            _, end = _SCAN(text, 0)
        else:
            _, end = _DECODER.raw_decode(text, _WS.match(text, 0).end())  # type: ignore[union-attr]
        return end == len(text) or _WS.match(text, end).end() == len(text)  # type: ignore[union-attr]
    except (ValueError, UnicodeDecodeError, StopIteration, RecursionError):
        return False


class NulSplitter:
    """Sans-IO NUL framing: feed chunks, collect complete messages."""

    def __init__(self) -> None:
        self._partial: list[bytes] = []
        self.messages: deque[bytes] = deque()

    def feed(self, chunk: bytes) -> None:
        start = 0
        while (end := chunk.find(_NUL, start)) != -1:
            piece = chunk[start:end]
            if self._partial:
                self._partial.append(piece)
                piece = b"".join(self._partial)
                self._partial.clear()
            if is_json_object_text(piece):
                self.messages.append(piece)
            start = end + 1
        if start < len(chunk):
            self._partial.append(chunk[start:] if start else chunk)

    @property
    def has_partial(self) -> bool:
        return bool(self._partial)

    @property
    def pending_bytes(self) -> int:
        return sum(len(p) for p in self._partial)


class PipeReader:
    """Chrome's side of the pipe read without trio: what the proxy's hot-path thread uses
    (docs/cdp-proxy.md, "The hot path"). Taken from a channel by :meth:`PipeChannel.take_reader`,
    with whatever the channel had already buffered.

    Each :meth:`read` is one non-blocking read into :attr:`messages`; it returns False once the
    pipe ended: end of file, an error, the channel closed, or (:attr:`draining`, Chrome's process
    gone) nothing more to read. The reader's owner closes the descriptor with :meth:`close`, from
    trio: that ends the channel too (a send waiting on a pipe nobody reads fails).
    """

    def __init__(self, fd: int, splitter: NulSplitter, on_close: Callable[[], None] | None = None) -> None:
        self.fd = fd
        self.messages = splitter.messages
        self._splitter = splitter
        self._size = FIRST_READ
        self._on_close = on_close
        self.draining = False  # Chrome's process is gone: read what is left, then end
        self.ended = False  # the channel was closed: end at the next read
        self._closed = False

    def read(self) -> bool:
        """One read (complete messages land in :attr:`messages`); False at the end of the pipe."""
        if self.ended:
            return False
        try:
            chunk = os.read(self.fd, self._size)
        except BlockingIOError:
            return not self.draining
        except OSError:
            return False
        if not chunk:
            return False
        # A full read means more is waiting (a big message streaming): read more next time.
        self._size = min(self._size * 4, READ_CHUNK) if len(chunk) == self._size else FIRST_READ
        self._splitter.feed(chunk)
        return True

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self.fd)
            if self._on_close is not None:
                self._on_close()


class PipeChannel:
    """The owner's side of Chrome's pipe: ``write_fd`` is Chrome's fd 3, ``read_fd`` its fd 4.

    Closed once: end of file or an error on either side, or :meth:`close`. When Chrome's process
    has exited, :meth:`drain_and_close` lets :meth:`receive` return what is still in the pipe
    (the answer to ``Browser.close``) and then end, even if a grandchild keeps the pipe open.
    After that :meth:`receive` raises ``trio.EndOfChannel`` and :meth:`send` drops.
    """

    def __init__(self, write_fd: int, read_fd: int) -> None:
        self._out = trio.lowlevel.FdStream(write_fd)
        os.set_blocking(read_fd, False)
        self._read_fd = read_fd
        self._read_size = FIRST_READ
        self._drain_only = False
        self._send_lock = trio.Lock()
        self._splitter = NulSplitter()
        self._closed = False
        self._unyielded = 0
        self._woken = False
        self._drained = False
        self._reader: PipeReader | None = None
        self._wake_reader: Callable[[], None] = _nothing

    @property
    def closed(self) -> bool:
        return self._closed

    async def send(self, message: bytes) -> None:
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        async with self._send_lock:
            # Never half a message on the pipe: Chrome would read the next one as its tail. The
            # shield cannot hang the owner: a Chrome that stops reading is SIGKILLed, and then
            # the write fails at once.
            with trio.CancelScope(shield=True):
                try:
                    if len(message) < SMALL_MESSAGE_BYTES:
                        await self._out.send_all(message + _NUL)
                    else:  # no 30 MB copy just to append one byte
                        await self._out.send_all(message)
                        await self._out.send_all(_NUL)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    await self._mark_closed()

    def send_nowait(self, message: bytes) -> bool:
        """Write ``message`` now if it fits one atomic pipe write and no send is in progress
        (the proxy's hot path: no task switch, one system call); False when nothing was written."""
        if self._closed:
            return True
        if len(message) >= PIPE_BUF or self._send_lock.locked():
            return False
        try:
            os.write(self._out.fileno(), message + _NUL)
        except OSError:  # full (try the queued way) or broken (the queued send marks it closed)
            return False
        return True

    def take_reader(self, wake: Callable[[], None]) -> PipeReader:
        """Hand the reading side to a thread (the proxy's hot path): from now on :meth:`receive`
        is not used, and ``wake`` is called (from trio) when the reader must look again because
        Chrome's process is gone or the channel was closed. The reader owns the descriptor."""
        if self._reader is None:
            # Closed before: nothing to read, and the descriptor is gone (its number may be reused).
            self._reader = PipeReader(-1 if self._closed else self._read_fd, self._splitter, self._reader_closed)
            self._wake_reader = wake
            if self._closed:
                self._reader.ended = self._reader._closed = True
            self._reader.draining = self._drain_only  # Chrome was reaped before: read what is left
        return self._reader

    def _reader_closed(self) -> None:
        """The reader closed the reading side (from trio; the pipe ended, or its proxy did): the
        channel ends with it, as when :meth:`receive` sees the end. Sends are dropped from now on,
        and one waiting on a pipe nobody reads (something Chrome left behind holds it) fails."""
        if not self._closed:
            self._closed = True
            self._out.close()

    async def receive(self) -> bytes:
        if self._reader is not None:
            raise RuntimeError("the pipe's reading side was handed to a reader thread")
        messages = self._splitter.messages
        while not messages:
            # Chrome writes a message and its NUL separately: with part of a message in hand, the
            # rest is usually there already, so read before waiting.
            if self._splitter.has_partial:
                self._drained = False
            chunk = await self._read_chunk()
            if not chunk:
                await self._mark_closed()
                raise trio.EndOfChannel
            self._splitter.feed(chunk)
        if self._woken:  # this call waited for Chrome: it has yielded already
            self._woken = False
            self._unyielded = 0
        else:
            self._unyielded += 1
            if self._unyielded >= _YIELD_EVERY:
                self._unyielded = 0
                await trio.lowlevel.checkpoint()
        return messages.popleft()

    async def _read_chunk(self) -> bytes:
        # A short read means the pipe was drained: wait before the next read instead of trying
        # one that fails with EAGAIN (one system call and one exception less per message).
        while not self._closed:
            if self._drained and not self._drain_only:
                try:
                    await trio.lowlevel.wait_readable(self._read_fd)
                    self._woken = True
                except trio.ClosedResourceError:
                    # drain_and_close woke us: read what is left without waiting again
                    if not self._drain_only:
                        return b""
                self._drained = False
            try:
                chunk = os.read(self._read_fd, self._read_size)
            except BlockingIOError:
                if self._drain_only:
                    return b""
                self._drained = True
                continue
            except OSError:
                return b""
            full = len(chunk) == self._read_size
            self._drained = not full
            self._read_size = min(self._read_size * 4, READ_CHUNK) if full else FIRST_READ
            return chunk
        return b""

    def drain_and_close(self) -> None:
        """Chrome's process is gone: deliver what is left in the pipe, then end."""
        if self._reader is not None:
            self._reader.draining = True
            self._wake_reader()
            return
        if not self._drain_only and not self._closed:
            self._drain_only = True
            # Wakes a reader waiting on the pipe (it gets ClosedResourceError); from now on it
            # only reads what is there, and the fd is closed when that is done.
            trio.lowlevel.notify_closing(self._read_fd)

    async def close(self) -> None:
        await self._mark_closed()

    async def _mark_closed(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._reader is not None:  # its thread closes the descriptor when it is done with it
            self._reader.ended = True
            self._wake_reader()
        else:
            trio.lowlevel.notify_closing(self._read_fd)
            os.close(self._read_fd)
        await self._out.aclose()


def _nothing() -> None:
    pass
