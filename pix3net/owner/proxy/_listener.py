"""Who gets a connection to the proxy, and how long a connection may take to ask.

The owner must outlive whatever a local process does to its port: idle connections, heads sent
a byte at a time (slowloris), more connections than it has file descriptors, connections that ask
without the token and never read the answers. So a connection that has not sent a whole request
head in time is closed, at most so many connections are open at once, and when they are, a
newcomer takes the place of a connection that has shown no token (the oldest), else of the one
that has waited longest for its next request; only connections serving token holders are never
evicted (docs/cdp-proxy.md, "Limits"). ``accept`` failing for want of descriptors (EMFILE) backs
off and keeps serving instead of ending the listener.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from pix3net.daemon.acceptbackoff import AcceptBackoff
from pix3net.wire import auth

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
# An answer on a plain HTTP connection must be taken within this: the same grace a head gets. A
# peer that asks and never reads held its place forever before (a write without a timeout).
ANSWER_SECONDS = 10.0
# Requests a connection may make without the token; the last answer closes it (so does the answer
# to a tokenless request with more requests already sent behind it: no client pipelines, and a peer
# pipelining thousands of them got each answered, one by one, while it read none). A client proving
# a port asks once without the token, then with it on the same connection (docs/cdp-proxy.md,
# "Client side").
TOKENLESS_REQUESTS = 8


@dataclass(frozen=True)
class Limits:
    """The listener's limits; tests pass small ones."""

    max_connections: int = MAX_CONNECTIONS
    max_waiting_heads: int = MAX_WAITING_HEADS
    head_seconds: float = HEAD_SECONDS
    keep_alive_seconds: float = KEEP_ALIVE_SECONDS
    answer_seconds: float = ANSWER_SECONDS
    tokenless_requests: int = TOKENLESS_REQUESTS


class Slot:
    """One connection's place at the gate. ``scope`` covers all of its handling: evicting the
    connection cancels it. A connection that has not shown the token may be evicted at any time;
    one that has, only while it waits for its next request."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.scope = trio.CancelScope()
        self.first = True  # no head heard yet
        self.trusted = False  # a request on it carried the token
        self.tokenless = 0  # requests without the token answered on it
        self.waiting = False  # between requests: no answer or upgrade in progress
        self.evicted: str | None = None  # why, when it was evicted
        self.evicted_waiting = False  # it was between requests then: it may be told why
        self.closed = False
        gate.slots[self] = None

    def wait(self, seconds: float) -> trio.CancelScope:
        """A scope for waiting ``seconds`` for the next head."""
        self.waiting = True
        self.gate.waiting[self] = None
        return trio.CancelScope(deadline=trio.current_time() + seconds)

    def heard(self) -> None:
        """A head came (a first one: no longer counted as waiting for its first)."""
        self.waiting = False
        self.gate.waiting.pop(self, None)
        self.first = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.gate.waiting.pop(self, None)
            self.gate.slots.pop(self, None)
            self.gate.open -= 1


class Gate:
    """Counts open connections; makes room by evicting a connection without the token, else the
    one that waited longest for its next request."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.open = 0
        self.slots: dict[Slot, None] = {}  # every open connection, oldest first
        self.waiting: dict[Slot, None] = {}  # waiting for a head, oldest first

    def admit(self) -> Slot | str:
        """A place for a new connection (evicting one if needed), or why not.

        Idle, slowloris and tokenless connections cannot lock anyone out: when too many wait for
        their first head, the oldest of them makes room; when every place is taken, the oldest
        connection that has shown no token does (whatever it is doing), else the one that has
        waited longest for its next request. Only when every place serves a token holder (WebSocket
        clients, requests in progress) is the newcomer refused.
        """
        first_waiting = sum(1 for slot in self.waiting if slot.first)
        if first_waiting >= self.limits.max_waiting_heads:
            why = f"{first_waiting} connections were waiting to send a request and this one had waited longest"
            self._evict(self.waiting, lambda slot: slot.first, why)
        if self.open >= self.limits.max_connections:
            full = f"{self.open} connections were open"
            if not (
                self._evict(
                    self.slots, lambda slot: not slot.trusted, f"{full} and this one, without the token, was the oldest"
                )
                or self._evict(self.waiting, lambda slot: True, f"{full} and this one had waited longest")
            ):
                return f"too many connections to the CDP proxy ({self.open} open); close some and try again"
        self.open += 1
        return Slot(self)

    def _evict(self, among: dict[Slot, None], which: Callable[[Slot], bool], why: str) -> bool:
        for slot in among:
            if which(slot):
                self.waiting.pop(slot, None)
                self.slots.pop(slot, None)
                slot.evicted = f"closed to make room: {why}"
                slot.evicted_waiting = slot.waiting
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
    kin back off (`pix3net.daemon.acceptbackoff`, logged once per episode) and the loop goes on."""
    backoff = AcceptBackoff()
    async with listener:
        while True:
            try:
                stream = await listener.accept()
            except OSError as error:
                if await backoff.failed(error):
                    name = errno.errorcode.get(error.errno or 0, str(error.errno))
                    log(
                        f"cannot accept connections ({name}: {os.strerror(error.errno or 0)}); "
                        "retrying until descriptors are free"
                    )
                continue
            if backoff.accepted():
                log("accepting connections again")
            nursery.start_soon(handle, stream)
