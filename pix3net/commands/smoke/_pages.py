"""Game pages opened ahead of their scene (docs/smoke.md, "A run").

Opening a fresh context and page and installing the page script does not depend on the scene:
the first page is made ready while the editor flushes (and a scene argument is resolved) and the
dev server is found, and each next one while the scene before it runs. Pages never taken are closed.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import trio

from pix3net.commands.smoke._headless import Browser, BrowserSource, Page, PageMode
from pix3net.commands.smoke._scenerun import open_game_page

__all__ = ["PagePool", "open_pages"]

CLOSE_SECONDS = 5.0


@dataclass
class _Pending:
    done: trio.Event = field(default_factory=trio.Event)
    page: Page | None = None
    error: BaseException | None = None
    taken: bool = False


class PagePool:
    def __init__(self, nursery: trio.Nursery, browsers: BrowserSource, frames: int, mode: PageMode) -> None:
        self._nursery = nursery
        self._browsers = browsers
        self._frames = frames
        self.mode = mode
        self._queue: list[_Pending] = []
        self._all: list[_Pending] = []

    def prefetch(self) -> None:
        """Start making one more page ready."""
        pending = _Pending()
        self._queue.append(pending)
        self._all.append(pending)
        self._nursery.start_soon(self._prepare, pending)

    async def _prepare(self, pending: _Pending) -> None:
        try:
            browser: Browser = await self._browsers.get()
            pending.page = await open_game_page(browser, self._frames, self.mode)
        except Exception as exc:  # handed to whoever takes the page
            pending.error = exc
        finally:
            pending.done.set()

    async def take(self) -> Page:
        """The oldest page made ready (one is started if none is on its way); raises what
        preparing it raised (``BrowserUnavailable``, ``Gone``, ``CdpError``)."""
        if not self._queue:
            self.prefetch()
        pending = self._queue.pop(0)
        pending.taken = True
        await pending.done.wait()
        if pending.error is not None:
            raise pending.error
        assert pending.page is not None
        return pending.page

    async def close(self) -> None:
        """Close every page prepared and never taken (bounded, shielded)."""
        with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_SECONDS):
            for pending in self._all:
                if pending.taken:
                    continue
                await pending.done.wait()
                if pending.page is not None:
                    await pending.page.close()


@contextlib.asynccontextmanager
async def open_pages(
    browsers: BrowserSource, frames: int, mode: PageMode, *, early: bool = True
) -> AsyncIterator[PagePool]:
    """A pool whose first page starts being prepared now (``early``), else when first taken."""
    async with trio.open_nursery() as nursery:
        pool = PagePool(nursery, browsers, frames, mode)
        if early:
            pool.prefetch()
        try:
            yield pool
        finally:
            await pool.close()
            nursery.cancel_scope.cancel()
