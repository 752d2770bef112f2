"""Who gets a connection to the proxy, and how long a connection may take to ask.

The owner must outlive whatever a local process does to its port: idle connections, heads sent
a byte at a time (slowloris), more connections than it has file descriptors. So a connection
that has not sent a whole request head in time is closed, at most so many connections are open
at once (the rest are answered 503 at once), and ``accept`` failing for want of descriptors
(EMFILE) backs off and keeps serving instead of ending the listener.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from pix3net.cdp import auth

# Far above what agents open (one or two WebSockets each; our load test runs 16 clients) and
# far below the usual 1024 open files, so the pipe, the log and accept always find a descriptor.
MAX_CONNECTIONS = 256
# Connections that have not yet sent a whole head: until then nobody has shown the token, so
# they may not take the places of clients that have.
MAX_WAITING_HEADS = 64
# A CDP client sends its request head in the first packet; 10 s covers a loaded machine and
# bounds how long an idle or slowloris connection holds a place.
HEAD_SECONDS = 10.0
# Between two requests of a keep-alive HTTP connection (Node's http server default, which the
# reference runs on).
KEEP_ALIVE_SECONDS = 5.0
# accept(2) errors that mean "no resources right now", not "the listener is broken".
_CAPACITY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
BACKOFF_FIRST_SECONDS = 0.05
BACKOFF_MAX_SECONDS = 1.0


@dataclass(frozen=True)
class Limits:
    """The listener's limits; tests pass small ones."""

    max_connections: int = MAX_CONNECTIONS
    max_waiting_heads: int = MAX_WAITING_HEADS
    head_seconds: float = HEAD_SECONDS
    keep_alive_seconds: float = KEEP_ALIVE_SECONDS


class Slot:
    """One connection's place at the gate. While it waits for a request head it may be evicted
    (its ``scope`` cancelled) to make room; once it is being answered or upgraded it may not."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.scope = trio.CancelScope()
        self.first = True  # no head heard yet: nobody has shown a token on it
        self.evicted: str | None = None
        self.closed = False

    def wait(self, seconds: float) -> trio.CancelScope:
        """A scope for waiting ``seconds`` for the next head; the slot is evictable inside it."""
        self.scope = trio.CancelScope(deadline=trio.current_time() + seconds)
        self.gate.waiting[self] = None
        return self.scope

    def heard(self) -> None:
        """A head came: no longer evictable (a first one: no longer counted as waiting)."""
        self.gate.waiting.pop(self, None)
        self.first = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.gate.waiting.pop(self, None)
            self.gate.open -= 1


class Gate:
    """Counts open connections; makes room by evicting the connection that waited longest."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.open = 0
        self.waiting: dict[Slot, None] = {}  # waiting for a head, oldest first

    def admit(self) -> Slot | str:
        """A place for a new connection (evicting the longest-waiting one if needed), or why not.

        Idle and slowloris connections cannot lock anyone out: a newcomer takes the place of the
        oldest connection that has not sent its head. Only when every place is taken by a
        connection being served (WebSocket clients, requests in progress) is the newcomer refused.
        """
        first_waiting = sum(1 for slot in self.waiting if slot.first)
        if first_waiting >= self.limits.max_waiting_heads:
            self._evict(lambda slot: slot.first, f"{first_waiting} connections were waiting to send a request")
        if self.open >= self.limits.max_connections and not self._evict(
            lambda slot: True, f"{self.open} connections were open"
        ):
            return f"too many connections to the CDP proxy ({self.open} open); close some and try again"
        self.open += 1
        return Slot(self)

    def _evict(self, which: Callable[[Slot], bool], why: str) -> bool:
        for slot in self.waiting:
            if which(slot):
                del self.waiting[slot]
                slot.evicted = f"closed to make room: {why} and this one had waited longest"
                slot.scope.cancel()
                return True
        return False


def busy_answer(message: str) -> bytes:
    return auth.http_answer(503, {"error": message}, None, close=True)


async def accept_forever(
    listener: trio.SocketListener,
    handle: Callable[[trio.SocketStream], Awaitable[None]],
    nursery: trio.Nursery,
    log: Callable[[str], None],
) -> None:
    """``listener.accept`` in a loop, each connection handled in ``nursery``; EMFILE and its
    kin back off (50 ms doubling to 1 s, logged once per episode) and the loop goes on."""
    backoff = 0.0
    async with listener:
        while True:
            try:
                stream = await listener.accept()
            except OSError as error:
                if error.errno not in _CAPACITY_ERRNOS:
                    raise
                if not backoff:
                    name = errno.errorcode.get(error.errno or 0, str(error.errno))
                    log(
                        f"cannot accept connections ({name}: {os.strerror(error.errno or 0)}); "
                        "retrying until descriptors are free"
                    )
                backoff = min(backoff * 2, BACKOFF_MAX_SECONDS) if backoff else BACKOFF_FIRST_SECONDS
                await trio.sleep(backoff)
                continue
            if backoff:
                log("accepting connections again")
                backoff = 0.0
            nursery.start_soon(handle, stream)
