"""Carrying out the pure router's actions: the proxy's state that they change, and its own calls.

The router (:mod:`pix3net.wire.router`) decides and returns actions; :class:`Executor` performs
them: writes to Chrome (at once when nothing is queued ahead, else in order by one writer task),
writes or queues for a client (a client over its bound, or the largest when all together pass
the owner's, is closed 1008), hangs up, wakes whoever waits on an attach or a call, and starts the
sweeps. The proxy's transport (:mod:`pix3net.owner.proxy.transport`) is an :class:`Executor` with sockets.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable
from typing import Any

import trio

from pix3net.owner.proxy._watchrun import WATCHDOG_CLIENT, WatchRun
from pix3net.owner.proxy.channel import ChromeChannel
from pix3net.owner.proxy.outbound import Budget, Client
from pix3net.wire.router import Action, Attached, CallDone, Close, Note, Router, Sweep, ToChrome, ToClient

# Client readers wait while this much is queued for Chrome (backpressure, not a limit).
CHROME_QUEUE_BYTES = 64 * 1024 * 1024
# The reference waits forever on Chrome; a hung Chrome should not hold an HTTP client forever.
INTERNAL_CALL_SECONDS = 10.0
# The watch view's "editor tab answering": a page that does not evaluate `1` within a second is
# busy or hung, as a person looking at it would find it.
EDITOR_ANSWER_SECONDS = 1.0

CLOSE_TOO_SLOW = 1008


class Waiter:
    """One awaited answer: an attach or one of the proxy's own calls."""

    def __init__(self) -> None:
        self.event = trio.Event()
        self.result: Any = None
        self.error: str | None = None

    def done(self, result: Any, error: str | None) -> None:
        self.result, self.error = result, error
        self.event.set()


class ChromeQueue:
    """What waits to be written to Chrome, in order, and its size in bytes."""

    def __init__(self) -> None:
        self.items: deque[bytes] = deque()
        self.size = 0
        self.changed = trio.Event()
        self.busy = False  # the writer holds a message it has not finished sending

    def put(self, data: bytes) -> None:
        self.items.append(data)
        self.size += len(data)
        self._wake()

    def _wake(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def get(self) -> bytes:
        while not self.items:
            await self.changed.wait()
        data = self.items.popleft()
        self.size -= len(data)
        self._wake()
        return data

    async def wait_room(self) -> None:
        while self.size > CHROME_QUEUE_BYTES:
            await self.changed.wait()


class Executor:
    """The router, Chrome's channel, the clients and the waiters; :meth:`execute` runs actions."""

    def __init__(
        self, channel: ChromeChannel, token: str, log: Callable[[str], None], owner_queue_bytes: int, editor_url: str
    ) -> None:
        self.channel = channel
        self.token = token
        self._log = log
        self.owner_queue_bytes = owner_queue_bytes
        self.budget = Budget()
        self.router = Router(editor_url=editor_url)
        self.nursery: trio.Nursery | None = None  # set by serve_proxy: runs the sweeps
        self.to_chrome = ChromeQueue()
        self.clients: dict[int, Client] = {}
        self.calls: dict[int, Waiter] = {}
        self.attaching: dict[int, Waiter] = {}
        # The owner's own session on the editor tab (docs/chrome-owner.md, "The watchdog").
        self.watchdog: WatchRun | None = None
        self.internal_clients = frozenset({WATCHDOG_CLIENT})

    def log(self, text: str) -> None:
        # The token is never logged, even when a client puts it in a URL.
        self._log(text.replace(self.token, "<token>"))

    def execute(self, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, ToChrome):
                self.send_chrome(action.data)
            elif isinstance(action, ToClient):
                client = self.clients.get(action.client)
                if client is None:
                    if action.client == WATCHDOG_CLIENT and self.watchdog is not None:
                        self.watchdog.deliver(action.data)
                    continue
                size = sum(map(len, action.parts))
                if client.try_write(action.parts, size, _now):
                    continue
                if not client.enqueue(action.parts, size):
                    self.cut(client, f"more than {client.bound} bytes queued for it")
                elif self.budget.used > self.owner_queue_bytes:
                    self.cut_largest()
            elif isinstance(action, Close):
                client = self.clients.get(action.client)
                if client is not None:
                    client.hang_up(action.code, action.reason)
                elif action.client == WATCHDOG_CLIENT and self.watchdog is not None:
                    self.watchdog.closed()
            elif isinstance(action, Attached):
                waiter = self.attaching.pop(action.client, None)
                if waiter is not None:
                    waiter.done(None, action.error)
                elif action.client == WATCHDOG_CLIENT and self.watchdog is not None:
                    self.watchdog.attached(action.error)
            elif isinstance(action, CallDone):
                call = self.calls.pop(action.call, None)
                if call is not None:
                    call.done(action.result, action.error)
            elif isinstance(action, Sweep):
                if self.nursery is not None:
                    self.nursery.start_soon(self._sweep_later, action)
            elif isinstance(action, Note):
                self.log(action.text)

    async def _sweep_later(self, sweep: Sweep) -> None:
        await trio.sleep(sweep.seconds)
        self.execute(self.router.sweep(sweep.client))

    def send_chrome(self, data: bytes) -> None:
        """To Chrome in order: at once when nothing is ahead and it fits one pipe write, else queued."""
        if not self.send_chrome_now(data):
            self.to_chrome.put(data)

    def send_chrome_now(self, data: bytes) -> bool:
        """Written at once (nothing ahead, one pipe write); False: nothing was written."""
        queue = self.to_chrome
        return not queue.items and not queue.busy and self.channel.send_nowait(data)

    def cut(self, client: Client, why: str) -> None:
        """A client too slow to read: close frame 1008 ahead of what was queued, root detached."""
        self.log(f"client too slow: {why}; closing it (1008)")
        client.hang_up(CLOSE_TOO_SLOW, "client too slow", drop_queued=True)
        self.execute(self.router.client_gone(client.number))

    def cut_largest(self) -> None:
        """All clients together hold more than the owner's bound: cut the largest queues first
        (a client whose only message is the one being delivered is never cut for it)."""
        while self.budget.used > self.owner_queue_bytes:
            candidates = [c for c in self.clients.values() if not c.closing and c.messages > 1]
            if not candidates:
                return
            largest = max(candidates, key=lambda c: c.pending)
            total = self.budget.used
            self.cut(largest, f"{total} bytes queued for all clients, over the owner's {self.owner_queue_bytes}")

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        seconds: float = INTERNAL_CALL_SECONDS,
    ) -> Any:
        """The proxy's own CDP call on the pipe root (or its own ``session``); raises RuntimeError
        with the 502 text."""
        call_id, actions = self.router.call(method, params, session)
        waiter = Waiter()
        self.calls[call_id] = waiter
        self.execute(actions)
        with trio.move_on_after(seconds):
            await waiter.event.wait()
        self.calls.pop(call_id, None)
        if not waiter.event.is_set():
            raise RuntimeError(f"{method}: no answer within {int(seconds * 1000)} ms")
        if waiter.error is not None:
            raise RuntimeError(waiter.error)
        return waiter.result

    async def editor_answers(self) -> bool | None:
        """Whether the editor tab answers: the watchdog's heartbeat says so when it runs (the
        owner's serve); else it must evaluate `1` within :data:`EDITOR_ANSWER_SECONDS` on a session
        of the proxy's own attached for the question and detached after it (only while someone
        watches). None: no editor tab, or Chrome refused the attach."""
        editor = self.router.editor
        if editor is None:
            return None
        if self.watchdog is not None:  # the owner's own session already asks it every second
            return self.watchdog.silent_since() is None
        try:
            attached = await self.call("Target.attachToTarget", {"targetId": editor, "flatten": True})
        except RuntimeError:
            return None
        session = attached.get("sessionId") if isinstance(attached, dict) else None
        if not isinstance(session, str):
            return None
        try:
            await self.call("Runtime.evaluate", {"expression": "1"}, session=session, seconds=EDITOR_ANSWER_SECONDS)
        except RuntimeError:
            return False
        else:
            return True
        finally:
            with contextlib.suppress(RuntimeError):
                await self.call("Target.detachFromTarget", {"sessionId": session}, seconds=EDITOR_ANSWER_SECONDS)

    async def write_chrome(self) -> None:
        """The one writer to Chrome: what could not be written at once, in order (reading Chrome is
        the hot path's)."""
        while True:
            data = await self.to_chrome.get()
            self.to_chrome.busy = True
            # The channel drops sends once Chrome is gone; a channel that raises instead is
            # treated the same (the reader will see the end).
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self.channel.send(data)
            self.to_chrome.busy = False
            del data


def _now(function: Callable[[], object]) -> None:
    function()
