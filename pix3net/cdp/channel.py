"""The seam between the proxy and whatever speaks CDP to Chrome.

The owner gives the proxy a channel over Chrome's pipe (fds 3/4, NUL-framed); tests give it an
in-memory fake Chrome. One message is one complete JSON text as bytes, without the NUL.
"""

from __future__ import annotations

from typing import Protocol


class ChromeChannel(Protocol):
    async def send(self, message: bytes) -> None:
        """Send one message to Chrome. After Chrome is gone, sends are silently dropped."""

    def send_nowait(self, message: bytes) -> bool:
        """Send one message at once without waiting, if the channel can; False (nothing sent)
        when it would have to wait or hold the message. True after Chrome is gone (dropped)."""

    async def receive(self) -> bytes:
        """The next message from Chrome; raises ``trio.EndOfChannel`` once Chrome is gone."""
