"""The seam between the proxy and whatever speaks CDP to Chrome.

The owner gives the proxy a channel over Chrome's pipe (fds 3/4, NUL-framed); tests give it a
fake Chrome that answers over a real pipe. One message is one complete JSON text as bytes,
without the NUL. The proxy sends through the channel and reads through the channel's reader,
which it takes once and reads from a thread of its own (docs/cdp-proxy.md, "The hot path").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Protocol


class ChromeReader(Protocol):
    """Chrome's messages, read without trio: one non-blocking read at a time."""

    @property
    def fd(self) -> int:
        """The descriptor to wait on (readable: call :meth:`read`); -1 when the channel had
        ended before the reader was taken (:meth:`read` then says the end at once)."""

    @property
    def messages(self) -> deque[bytes]:
        """Complete messages read so far, oldest first; the reader's user pops them."""

    @property
    def draining(self) -> bool:
        """Chrome's process is gone: read until nothing is left, whatever the descriptor says."""

    def read(self) -> bool:
        """One non-blocking read into :attr:`messages`; False once the pipe ended."""

    def close(self) -> None:
        """Close the descriptor (the reader's user does, from trio, once it stopped reading);
        the channel ends with it: later sends are dropped."""


class ChromeChannel(Protocol):
    async def send(self, message: bytes) -> None:
        """Send one message to Chrome. After Chrome is gone, sends are silently dropped."""

    def send_nowait(self, message: bytes) -> bool:
        """Send one message at once without waiting, if the channel can; False (nothing sent)
        when it would have to wait or hold the message. True after Chrome is gone (dropped)."""

    async def receive(self) -> bytes:
        """The next message from Chrome; raises ``trio.EndOfChannel`` once Chrome is gone.
        Not used once the reader was taken."""

    def take_reader(self, wake: Callable[[], None]) -> ChromeReader:
        """Hand Chrome's side over to a reader (once); ``wake`` is called from trio when the
        reader must read again without its descriptor being readable (the channel ended)."""
