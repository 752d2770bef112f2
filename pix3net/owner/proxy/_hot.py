"""The proxy's hot path: one thread reads Chrome's pipe and the WebSocket clients and routes whole
data messages without trio (docs/cdp-proxy.md, "The hot path").

A round trip through trio costs two passes of its scheduler, about half of what the owner spends
on it; this thread waits on a plain ``epoll`` and does the same work in six system calls. It only
does what it can finish without waiting and without trio:

- a client's whole data messages go to the router, and what the router asks is written at once
  when nothing is queued ahead of it (one pipe write, one socket ``writev``);
- Chrome's messages go to the router the same way.

Everything else is handed to trio, in order, with ``TrioToken.run_sync_soon``: any other action,
a write that would wait, and the reading of a client whose next event is not a data message
(ping, close, protocol error, end of file) or while the queue towards Chrome is long. That
client's trio task goes on from there with the same frame reader, as if it had read the bytes
itself, and hands the socket back to the thread when it waits again.

The proxy's state (router, clients, queues) is shared with trio. :class:`StepLock` makes every
trio task step and every batch of the thread mutually exclusive; the thread never calls trio
itself (only ``run_sync_soon``, which is thread-safe), so trio's own state is never touched from
it. A socket is removed from the thread's ``epoll`` before its trio task can close it.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Protocol

import trio

from pix3net.owner.proxy.channel import ChromeReader
from pix3net.owner.proxy.outbound import Client
from pix3net.wire.frames import Event, FrameReader, Message
from pix3net.wire.router import Action, Router, ToChrome, ToClient

# A client's reads start small and grow while they come back full (os.read allocates its size).
FIRST_RECEIVE_BYTES = 16 * 1024
RECEIVE_BYTES = 256 * 1024
# When trio waits for the lock, the thread lets it take one step before its next batch, for at
# most this long (a flood on the pipe or a socket must not starve trio's tasks).
HANDOFF_SECONDS = 0.05
# Reads of a draining pipe in one batch: a read takes up to 1 MiB, what a pipe holds, so the rest
# is usually one read and the one that finds it empty; no batch reads much more than a usual one.
DRAIN_READS = 2
# How long stopping waits for the thread (it only has to see the flag).
JOIN_SECONDS = 2.0


class _Queued(Protocol):
    @property
    def size(self) -> int:
        """Bytes queued for Chrome."""


class _Proxy(Protocol):
    """What the hot path needs of the proxy (``transport._Proxy``)."""

    router: Router
    clients: dict[int, Client]
    internal_clients: frozenset[int]

    @property
    def to_chrome(self) -> _Queued: ...

    def execute(self, actions: list[Action]) -> None: ...

    def send_chrome_now(self, data: bytes) -> bool: ...

    def log(self, text: str) -> None: ...


class StepLock(trio.abc.Instrument):
    """A lock held by trio around every task step (an instrument) and by the thread around every
    batch. Installed from inside a task step: that step's ``after_task_step`` releases it, so it
    starts held."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()
        self._trio_holds = True
        self._trio_waiting = False
        self._trio_took = threading.Event()

    # trio's side (its instrument hooks run on trio's thread)
    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if not self._lock.acquire(blocking=False):
            self._trio_waiting = True
            self._lock.acquire()
            self._trio_waiting = False
            self._trio_took.set()
        self._trio_holds = True

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        self._trio_holds = False
        self._lock.release()

    def release_from_trio(self) -> None:
        """The instrument was removed during a step: that step's hold ends here."""
        if self._trio_holds:
            self._trio_holds = False
            self._lock.release()

    # the thread's side
    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._lock.release()
        if self._trio_waiting:
            self._trio_took.wait(HANDOFF_SECONDS)
            self._trio_took.clear()


class _Reading:
    """A client whose socket the thread reads, until it hands it back to the client's task."""

    __slots__ = ("back", "client", "error", "events", "frames", "size")

    def __init__(self, client: Client, frames: FrameReader) -> None:
        self.client = client
        self.frames = frames
        self.size = FIRST_RECEIVE_BYTES
        self.back = trio.Event()
        self.events: list[Event] | None = None  # what the task goes on with; None: the socket ended
        self.error: Exception | None = None


class HotPath:
    """The thread and its ``epoll`` (see the module doc). Created and stopped from a trio task."""

    def __init__(
        self, proxy: _Proxy, channel_reader: Callable[[Callable[[], None]], ChromeReader], chrome_room: int
    ) -> None:
        self.proxy = proxy
        self.chrome_room = chrome_room  # past this many bytes queued for Chrome, its clients' tasks wait
        self.token = trio.lowlevel.current_trio_token()
        self.readings: dict[int, _Reading] = {}
        self.deferred: deque[list[Action] | Callable[[], object]] = deque()
        self.deferred_chrome_bytes = 0  # what deferred actions will put on the queue to Chrome
        self.flush_scheduled = False
        self.chrome_done = trio.Event()
        self.chrome_error: BaseException | None = None
        self.stopping = False
        self.reader: ChromeReader | None = None
        self.ended_reader: ChromeReader | None = None  # the thread is done with it; trio closes it
        self.wake_fd = -1
        self.epoll = select.epoll()
        try:  # out of descriptors or threads: nothing is left behind, the caller says why
            self.wake_fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
            self.epoll.register(self.wake_fd, select.EPOLLIN)
            self.thread = threading.Thread(target=self._run, name="pix3 CDP hot path", daemon=True)
            self.lock = StepLock()
            self.reader = channel_reader(self._wake)
            if self.reader.fd >= 0:  # else the channel had ended: the first wake-up ends the reader
                self.epoll.register(self.reader.fd, select.EPOLLIN)
            trio.lowlevel.add_instrument(self.lock)
            try:
                self.thread.start()
            except BaseException:
                trio.lowlevel.remove_instrument(self.lock)
                self.lock.release_from_trio()
                raise
        except BaseException:
            if self.reader is not None:
                self.reader.close()
            self.epoll.close()
            if self.wake_fd >= 0:
                os.close(self.wake_fd)
            self.wake_fd = -1
            raise
        self._wake()  # what the channel read before it was handed over is routed at once

    # -- trio's side ---------------------------------------------------------------------------
    async def read(self, client: Client, frames: FrameReader) -> list[Event] | None:
        """Let the thread read ``client`` until it hands the socket back: the events left for the
        task (starting with the first that is not a routed data message), or None at the end of
        the socket. Cancellation takes the socket back at once."""
        reading = _Reading(client, frames)
        fd = client.fd
        self.readings[fd] = reading
        try:
            try:
                self.epoll.register(fd, select.EPOLLIN)
            except FileExistsError:  # a registration the thread left behind (it is harmless)
                self.epoll.modify(fd, select.EPOLLIN)
            await reading.back.wait()
        finally:
            if self.readings.get(fd) is reading:
                del self.readings[fd]
                with contextlib.suppress(OSError, ValueError):
                    self.epoll.unregister(fd)
        if reading.error is not None:
            raise reading.error
        return reading.events

    def stop(self) -> None:
        """End the thread, from a trio task step (the proxy is done); closes Chrome's reader."""
        if self.stopping:
            return
        self.stopping = True
        self._wake()
        with contextlib.suppress(KeyError):
            trio.lowlevel.remove_instrument(self.lock)
        self.lock.release_from_trio()
        self.thread.join(JOIN_SECONDS)
        for reader in (self.reader, self.ended_reader):
            if reader is not None:
                reader.close()
        self.reader = self.ended_reader = None
        self.epoll.close()
        os.close(self.wake_fd)
        self.wake_fd = -1  # the channel may still wake us (Chrome reaped later): its number is reused

    def _wake(self) -> None:
        if self.wake_fd >= 0:
            with contextlib.suppress(OSError):
                os.eventfd_write(self.wake_fd, 1)

    def _flush(self) -> None:
        """Run what the thread handed over, in order (a trio task step: the lock is held)."""
        self.flush_scheduled = False
        while self.deferred:
            item = self.deferred.popleft()
            try:
                if isinstance(item, list):
                    self.deferred_chrome_bytes -= _chrome_bytes(item)
                    self.proxy.execute(item)
                else:
                    item()
            except Exception as error:  # one bad action must not stop the others
                self.proxy.log(f"proxy error: {type(error).__name__}: {error}")
            del item

    def _end_chrome(self) -> None:
        if self.ended_reader is not None:
            self.ended_reader.close()
            self.ended_reader = None
        self.proxy.execute(self.proxy.router.chrome_gone())
        self.chrome_done.set()

    # -- the thread ----------------------------------------------------------------------------
    def _run(self) -> None:
        epoll = self.epoll
        wake_fd = self.wake_fd
        while True:
            try:
                events = epoll.poll()
            except (OSError, ValueError):  # closed under us: the proxy is gone
                return
            with self.lock:
                if self.stopping:
                    return
                try:
                    for fd, _ in events:
                        reading = self.readings.get(fd)
                        if reading is not None:
                            self._client(fd, reading)
                        elif fd == wake_fd:
                            with contextlib.suppress(OSError):
                                os.eventfd_read(wake_fd)
                            self._chrome()
                        elif self.reader is not None and fd == self.reader.fd:
                            self._chrome()
                except Exception as error:  # a bug: let trio see it rather than hang
                    self._fail(error)
                    return

    def _fail(self, error: Exception) -> None:
        for fd, reading in list(self.readings.items()):
            reading.error = error
            self._hand_back(fd, reading, None)
        self.chrome_error = error
        self._defer(self.chrome_done.set)

    def _chrome(self) -> None:
        reader = self.reader
        if reader is None:
            return
        alive = reader.read()
        reads = 1
        router = self.proxy.router
        messages = reader.messages
        while True:
            while messages:
                raw = messages.popleft()
                try:
                    actions = router.from_chrome(raw)
                except Exception as error:  # a message we cannot route is dropped, not fatal
                    self._defer(self.proxy.log, f"dropped a message from Chrome: {type(error).__name__}: {error}")
                    continue
                self._act(actions)
                # A 30 MB reply must not stay alive beside the next one (peak RSS).
                del raw, actions
            # Chrome's process is gone: what is left in the pipe is read now, whatever epoll says,
            # a few reads a batch (something Chrome left behind may still write to it).
            if not alive or not reader.draining:
                break
            if reads == DRAIN_READS:
                self._wake()  # the rest in the next batch, after trio's step
                break
            alive = reader.read()
            reads += 1
        if not alive:
            with contextlib.suppress(OSError, ValueError):
                self.epoll.unregister(reader.fd)
            self.reader = None
            self.ended_reader = reader  # closed by trio: closing it ends the channel
            self._defer(self._end_chrome)

    def _client(self, fd: int, reading: _Reading) -> None:
        client = reading.client
        try:
            data = os.read(fd, reading.size)
        except BlockingIOError:
            return
        except OSError:
            self._hand_back(fd, reading, None)
            return
        if not data:
            self._hand_back(fd, reading, None)
            return
        full = len(data) == reading.size
        reading.size = min(reading.size * 4, RECEIVE_BYTES) if full else FIRST_RECEIVE_BYTES
        events = reading.frames.feed(data)
        del data
        router = self.proxy.router
        for n, event in enumerate(events):
            if type(event) is not Message:
                self._hand_back(fd, reading, events[n:])
                return
            if not client.closing:
                try:
                    actions = router.from_client(client.number, event.text)
                except Exception as error:  # ends this client only, as in its task (logged there)
                    reading.error = error
                    self._hand_back(fd, reading, None)
                    return
                self._act(actions)
            if self.proxy.to_chrome.size + self.deferred_chrome_bytes > self.chrome_room:
                # Chrome is not keeping up: the task waits for room before the client's next event.
                self._hand_back(fd, reading, events[n + 1 :])
                return

    def _hand_back(self, fd: int, reading: _Reading, events: list[Event] | None) -> None:
        if self.readings.get(fd) is reading:
            del self.readings[fd]
            with contextlib.suppress(OSError, ValueError):
                self.epoll.unregister(fd)
        reading.events = events
        self._defer(reading.back.set)

    def _act(self, actions: list[Action]) -> None:
        """Do what can be done now; the rest, and everything after it, goes to trio in order."""
        if not self.deferred:
            proxy = self.proxy
            for n, action in enumerate(actions):
                if isinstance(action, ToChrome):
                    if proxy.send_chrome_now(action.data):
                        continue
                elif isinstance(action, ToClient):
                    client = proxy.clients.get(action.client)
                    if client is not None:
                        parts = action.parts
                        if client.try_write(parts, sum(map(len, parts)), self._defer):
                            continue
                    elif action.client not in proxy.internal_clients:
                        continue
                    # else the owner's own session (the watchdog): trio delivers it, in order
                if n:
                    actions = actions[n:]
                break
            else:
                return
        self.deferred.append(actions)
        self.deferred_chrome_bytes += _chrome_bytes(actions)
        self._schedule()

    def _defer(self, function: Callable[..., object], *args: object) -> None:
        self.deferred.append((lambda: function(*args)) if args else function)
        self._schedule()

    def _schedule(self) -> None:
        if not self.flush_scheduled:
            self.flush_scheduled = True
            with contextlib.suppress(trio.RunFinishedError):
                self.token.run_sync_soon(self._flush)


def _chrome_bytes(actions: list[Action]) -> int:
    return sum(len(a.data) for a in actions if isinstance(a, ToChrome))
