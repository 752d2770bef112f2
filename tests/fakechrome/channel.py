"""An in-memory :class:`~pix3net.cdp.channel.ChromeChannel` over the fake Chrome model."""

from __future__ import annotations

import trio

from pix3net.chrome.pipe import PIPE_BUF
from tests.fakechrome.model import FakeChrome


class FakeChannel:
    """What the proxy's pipe would be, minus the pipe. ``gone()`` = Chrome exits."""

    def __init__(self, chrome: FakeChrome, *, silent: bool = False) -> None:
        self.chrome = chrome
        self.silent = silent  # read commands, never answer (a hung Chrome)
        self._send, self._receive = trio.open_memory_channel[bytes](float("inf"))
        self.sent: list[bytes] = []

    async def send(self, message: bytes) -> None:
        self._handle(message)

    def _handle(self, message: bytes) -> None:
        if self.chrome.closed:
            return
        self.sent.append(message)
        if self.silent:
            return
        for out in self.chrome.handle(message):
            self._send.send_nowait(out)
        if self.chrome.closed:
            self.gone()

    def send_nowait(self, message: bytes) -> bool:
        """As the pipe: only what fits one atomic pipe write goes at once (both paths get used)."""
        if len(message) >= PIPE_BUF:
            return False
        self._handle(message)
        return True

    async def receive(self) -> bytes:
        try:
            return await self._receive.receive()
        except trio.EndOfChannel:
            raise
        except trio.ClosedResourceError:
            raise trio.EndOfChannel from None

    def inject(self, message: bytes) -> None:
        """Chrome writes something on its own (an event, a stray reply)."""
        self._send.send_nowait(message)

    def gone(self) -> None:
        """Chrome exits: the reader sees end of channel after what is already written."""
        self.chrome.closed = True
        self._send.close()

    def methods(self) -> list[str]:
        return [str(m.get("method")) for m in self.chrome.received]
