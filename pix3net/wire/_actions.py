"""What the router returns: the actions its transport carries out, in order (:mod:`pix3net.wire.router`).

Each is a plain frozen record; the router is their only maker and :mod:`pix3net.owner.proxy._executor`
(with the hot path, :mod:`pix3net.owner.proxy._hot`) their only reader. Offered by ``router``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pix3net.wire.envelope import Chunk

__all__ = ["Action", "Attached", "CallDone", "Close", "Note", "Sweep", "ToChrome", "ToClient"]


@dataclass(frozen=True)
class ToChrome:
    data: bytes


@dataclass(frozen=True)
class ToClient:
    client: int
    parts: tuple[Chunk, ...]

    @property
    def data(self) -> bytes:
        return b"".join(bytes(p) for p in self.parts)


@dataclass(frozen=True)
class Close:
    client: int
    code: int
    reason: str


@dataclass(frozen=True)
class Attached:
    """The outcome of :meth:`Router.open_client`: error None = the client may upgrade."""

    client: int
    error: str | None


@dataclass(frozen=True)
class CallDone:
    call: int
    result: Any
    error: str | None


@dataclass(frozen=True)
class Sweep:
    """Call :meth:`Router.sweep` for ``client`` after ``seconds``: what it left open is closed then."""

    client: int
    seconds: float


@dataclass(frozen=True)
class Note:
    """A line for the owner's log."""

    text: str


Action = ToChrome | ToClient | Close | Attached | CallDone | Sweep | Note
