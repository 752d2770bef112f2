"""A :class:`~pix3net.owner.proxy.channel.ChromeChannel` over the fake Chrome model, in memory.

Commands reach the model in-process (the proxy's sends call it directly). What the model answers
is handed to the proxy's reader as whole messages, with an ``eventfd`` saying there is something
to read: the proxy's hot-path thread waits on it and reads it exactly as it reads Chrome's pipe,
so the proxy tests run the proxy's real path, without a copy of every answer through the kernel
(the benches over this fake measure the proxy, not a pipe). Chrome's byte framing on a real pipe
(:class:`~pix3net.owner.chrome.pipe.PipeReader`) is tested with real pipes, the fake Chrome process and
real Chromium.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable

import trio

from pix3net.owner.chrome.pipe import PIPE_BUF, is_json_object_text
from tests.fakechrome.model import FakeChrome


class FakeReader:
    """The proxy's side of the fake: :class:`~pix3net.owner.proxy.channel.ChromeReader` without bytes."""

    def __init__(self) -> None:
        self.fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self.messages: deque[bytes] = deque()
        self.draining = False
        self.eof = False  # Chrome is gone: the end comes after the messages already written
        self._closed = False

    def deliver(self, message: bytes) -> None:
        """Called under the proxy's step lock (trio, or the hot path itself through a send)."""
        if is_json_object_text(message):  # as the pipe's reader drops what is not a JSON object
            self.messages.append(message)
            self._signal()

    def end(self) -> None:
        self.eof = True
        self._signal()

    def _signal(self) -> None:
        if not self._closed:
            os.eventfd_write(self.fd, 1)

    def read(self) -> bool:
        if self._closed:
            return False
        with contextlib.suppress(BlockingIOError):
            os.eventfd_read(self.fd)
        return not self.eof

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self.fd)


class FakeChannel:
    """What Chrome's pipe is to the proxy, with the fake model behind it. ``gone()`` = Chrome exits."""

    def __init__(self, chrome: FakeChrome, *, silent: bool = False) -> None:
        self.chrome = chrome
        self.silent = silent  # read commands, never answer (a hung Chrome)
        self.sent: list[bytes] = []
        self.reader = FakeReader()

    # -- what the proxy calls ------------------------------------------------------------------
    async def send(self, message: bytes) -> None:
        self._handle(message)
        await trio.lowlevel.checkpoint()

    def send_nowait(self, message: bytes) -> bool:
        """As the pipe: only what fits one atomic pipe write goes at once (both paths get used)."""
        if len(message) >= PIPE_BUF:
            return False
        self._handle(message)
        return True

    async def receive(self) -> bytes:
        raise RuntimeError("the fake channel is read through take_reader, as the proxy reads Chrome")

    def take_reader(self, wake: Callable[[], None]) -> FakeReader:
        return self.reader

    # -- what tests call -----------------------------------------------------------------------
    def inject(self, message: bytes) -> None:
        """Chrome writes something on its own (an event, a stray reply)."""
        if not self.chrome.closed:
            self.reader.deliver(message)

    def gone(self) -> None:
        """Chrome exits: the proxy sees the end after what is already written."""
        self.chrome.closed = True
        self.reader.end()

    def methods(self) -> list[str]:
        """What reached Chrome, but the proxy's own target discovery at its start."""
        return [str(m.get("method")) for m in self.chrome.received if not _discovery(m)]

    # -- inside --------------------------------------------------------------------------------
    def _handle(self, message: bytes) -> None:
        if self.chrome.closed:
            return
        self.sent.append(message)
        if self.silent:
            return
        for out in self.chrome.handle(message):
            self.reader.deliver(out)
        if self.chrome.closed:
            self.gone()


def _discovery(message: dict[str, object]) -> bool:
    return message.get("method") == "Target.setDiscoverTargets" and "sessionId" not in message
