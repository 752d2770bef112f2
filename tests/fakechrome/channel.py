"""A :class:`~pix3net.cdp.channel.ChromeChannel` over the fake Chrome model.

Commands reach the model in-process (the proxy's sends call it directly); what the model
answers travels to the proxy over a real pipe, NUL-framed as Chrome writes it, and is read by the
same :class:`~pix3net.chrome.pipe.PipeReader` the owner's proxy uses, so the proxy tests run the
proxy's real reading path (its hot-path thread). A small thread writes to the pipe, so the model
never blocks on a full pipe whoever calls it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Callable

import trio

from pix3net.chrome.pipe import PIPE_BUF, NulSplitter, PipeReader
from tests.fakechrome.model import FakeChrome

_END = b""


class FakeChannel:
    """What Chrome's pipe is to the proxy, with the fake model behind it. ``gone()`` = Chrome exits."""

    def __init__(self, chrome: FakeChrome, *, silent: bool = False) -> None:
        self.chrome = chrome
        self.silent = silent  # read commands, never answer (a hung Chrome)
        self.sent: list[bytes] = []
        self._read_fd, self._write_fd = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(self._read_fd, False)
        self._out: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._ended = False
        self._reader: PipeReader | None = None
        self._pump = threading.Thread(target=self._write_out, name="fake Chrome's pipe", daemon=True)
        self._pump.start()

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

    def take_reader(self, wake: Callable[[], None]) -> PipeReader:
        if self._reader is None:
            self._reader = PipeReader(self._read_fd, NulSplitter(), on_close=self._stop)
        return self._reader

    # -- what tests call -----------------------------------------------------------------------
    def inject(self, message: bytes) -> None:
        """Chrome writes something on its own (an event, a stray reply)."""
        self._emit(message)

    def gone(self) -> None:
        """Chrome exits: the proxy reads end of file after what is already written."""
        self.chrome.closed = True
        self._stop()

    def methods(self) -> list[str]:
        return [str(m.get("method")) for m in self.chrome.received]

    # -- inside --------------------------------------------------------------------------------
    def _handle(self, message: bytes) -> None:
        if self.chrome.closed:
            return
        self.sent.append(message)
        if self.silent:
            return
        for out in self.chrome.handle(message):
            self._emit(out)
        if self.chrome.closed:
            self.gone()

    def _emit(self, message: bytes) -> None:
        if not self._ended:
            self._out.put(message + b"\0")

    def _stop(self) -> None:
        if not self._ended:
            self._ended = True
            self._out.put(_END)

    def _write_out(self) -> None:
        try:
            while data := self._out.get():  # an empty item (never a message) is the end
                view = memoryview(data)
                while view:
                    view = view[os.write(self._write_fd, view) :]
                del view, data
        except OSError:  # the proxy closed its end
            pass
        finally:
            with contextlib.suppress(OSError):
                os.close(self._write_fd)
