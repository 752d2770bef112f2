"""The watchdog's transport: its session on the editor tab as the proxy's internal client, its
clock, its map fetches (the rules are :mod:`pix3net.owner.proxy.watchdog`, pure).

The session is the router's like any client's (ids remapped, events routed to their owner), but
its client number is :data:`WATCHDOG_CLIENT`, which no socket gets (sockets count from 1): what
the router sends it comes to :meth:`WatchRun.deliver` instead of a socket. It is attached as soon
as the proxy knows the editor tab, and again to each new editor tab (the old one's session ends
with it).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

import trio

from pix3net.owner.proxy.watchdog import (
    MAPS_SECONDS,
    FetchMap,
    Log,
    PageAsks,
    ReplaceEditor,
    Send,
    WatchAction,
    Watchdog,
)
from pix3net.wire.router import Action, Router

__all__ = ["WATCHDOG_CLIENT", "WatchRun"]

WATCHDOG_CLIENT = 0
# How often the watchdog looks for an editor tab to watch while there is none (in-process only:
# no message to Chrome).
LOOK_SECONDS = 0.2
# An attach that failed (the tab went meanwhile) is tried again after this.
RETRY_SECONDS = 1.0
# How long an attach may take (Chrome answers it from its browser process, in milliseconds).
ATTACH_SECONDS = 10.0
# How often a pause left by a client is looked for while one is held (in-process: the router
# knows who holds a session; Chrome resumed such a pause at once before the watchdog's session).
RELEASE_SECONDS = 0.25
# A source map beyond this is not read to name a frame.
MAX_MAP_BYTES = 32 * 1024 * 1024


class _Proxy(Protocol):
    router: Router

    def execute(self, actions: list[Action]) -> None: ...

    def log(self, text: str) -> None: ...


class WatchRun:
    def __init__(self, proxy: _Proxy) -> None:
        self.proxy = proxy
        self.dog: Watchdog | None = None
        self._inbox: deque[bytes] = deque()
        self._wake = trio.Event()
        self._closed = False
        self._attached: trio.Event | None = None
        self._attach_error: str | None = None
        # Wall clock at trio's clock zero, for the status's "not answering since".
        self._wall = time.time() - trio.current_time()
        # Who hears the editor page's calls of the agents binding (the Agents view; transport.py).
        self.on_page: Callable[[str, int | None], None] | None = None

    @property
    def session(self) -> str | None:
        """The watchdog's session on the editor tab, while it has one: the owner's own calls on
        it (the Agents view's pushes) are answered to the owner, not to the watchdog."""
        return self.proxy.router.root_of(WATCHDOG_CLIENT) if self.dog is not None else None

    # -- from the proxy's execute (a trio task step) ---------------------------------------------
    def deliver(self, data: bytes) -> None:
        self._inbox.append(data)
        self._wake.set()

    def closed(self) -> None:
        self._closed = True
        self._wake.set()

    def attached(self, error: str | None) -> None:
        self._attach_error = error
        if self._attached is not None:
            self._attached.set()

    def silent_since(self) -> float | None:
        """Wall-clock seconds since the epoch at which a silent editor tab last answered."""
        since = self.dog.silent_since(trio.current_time()) if self.dog is not None else None
        return None if since is None else since + self._wall

    # -- the task ------------------------------------------------------------------------------
    async def run(self) -> None:
        router = self.proxy.router
        async with trio.open_nursery() as nursery:
            while not router.chrome_is_gone:
                editor = router.editor
                if editor is None:
                    await trio.sleep(LOOK_SECONDS)
                    continue
                if not await self._attach(editor):
                    await trio.sleep(RETRY_SECONDS)
                    continue
                await self._watch(editor, nursery)

    async def _attach(self, editor: str) -> bool:
        self._attached, self._attach_error, self._closed = trio.Event(), None, False
        self._inbox.clear()
        self.proxy.execute(self.proxy.router.open_client(WATCHDOG_CLIENT, editor))
        with trio.move_on_after(ATTACH_SECONDS):
            await self._attached.wait()
        if not self._attached.is_set():
            self.proxy.execute(self.proxy.router.client_gone(WATCHDOG_CLIENT))
            return False
        return self._attach_error is None

    async def _watch(self, editor: str, nursery: trio.Nursery) -> None:
        dog = self.dog = Watchdog(editor, trio.current_time())
        try:
            self._do(dog.start(), nursery)
            while not self._closed:
                due = dog.due()
                if dog.held():
                    due = min(due, trio.current_time() + RELEASE_SECONDS)
                with trio.move_on_at(due):
                    await self._wake.wait()
                self._wake = trio.Event()
                while self._inbox:
                    self._do(dog.feed(self._inbox.popleft(), trio.current_time()), nursery)
                if not self._closed:
                    self._do(dog.tick(trio.current_time()), nursery)
                    self._release(dog, nursery)
        finally:
            self.dog = None
            if self.proxy.router.is_open(WATCHDOG_CLIENT):
                self.proxy.execute(self.proxy.router.client_gone(WATCHDOG_CLIENT))

    def _release(self, dog: Watchdog, nursery: trio.Nursery) -> None:
        for target in dog.held():
            if not self.proxy.router.debuggers(target) - {WATCHDOG_CLIENT}:
                self._do(dog.release(target), nursery)

    def _do(self, actions: list[WatchAction], nursery: trio.Nursery) -> None:
        router = self.proxy.router
        for action in actions:
            if isinstance(action, Send):
                self.proxy.execute(router.from_client(WATCHDOG_CLIENT, action.text))
            elif isinstance(action, Log):
                self.proxy.log(f"watchdog: {action.text}")
            elif isinstance(action, ReplaceEditor):
                self.proxy.execute(router.replace_editor(action.why))
            elif isinstance(action, FetchMap):
                nursery.start_soon(self._fetch, action.url, nursery)
            elif isinstance(action, PageAsks) and self.on_page is not None:
                self.on_page(action.payload, action.context)

    async def _fetch(self, url: str, nursery: trio.Nursery) -> None:
        text = None
        with trio.move_on_after(MAPS_SECONDS):
            text = await _get(url)
        dog = self.dog
        if dog is not None:
            self._do(dog.map_loaded(url, text, trio.current_time()), nursery)


async def _get(url: str) -> str | None:
    import httpx  # only when a loop is being named: the owner's start never loads it

    body = bytearray()
    try:
        async with (
            httpx.AsyncClient(trust_env=False, verify=False, timeout=MAPS_SECONDS) as client,
            client.stream("GET", url) as reply,
        ):
            if not reply.is_success:
                return None
            async for chunk in reply.aiter_bytes():
                body += chunk
                if len(body) > MAX_MAP_BYTES:
                    return None
    except (httpx.HTTPError, OSError, ValueError):
        return None
    return body.decode("utf-8", "replace")
