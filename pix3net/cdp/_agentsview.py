"""The proxy's side of the editor page's Agents view (docs/editor.md, "Watching the agents"):
once a second it asks the editor tab, on a session of its own, whether the page wants the agents;
while it does, it pushes the facts of `/json/pix3/watch` and a JPEG thumbnail of each client's
tabs, and does the kicks the page queued. Thin: what is asked, read and pushed is
:mod:`pix3net.cdp._agentspush` (pure); the facts are :class:`pix3net.cdp._watch.Watch`'s.

Nothing listens for it: the page is reached only through Chrome's pipe, so the page needs no
token and no port learns anything new. While a client is connected, a page that does not want
the agents costs one ``Runtime.evaluate`` a second; with no client nothing is asked; no session
is kept on a client's tab once the page stops wanting.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Protocol

import trio

from pix3net.cdp._agentspush import (
    ASK_EXPRESSION,
    LOOK_SECONDS,
    THUMBNAIL_QUALITY,
    THUMBNAIL_SECONDS,
    page_body,
    push_expression,
    read_ask,
    thumbnail_clip,
)
from pix3net.cdp._status import Seen
from pix3net.cdp._watch import Watch
from pix3net.cdp.router import Action, Router

__all__ = ["AgentsView"]

# The page answers the ask at once; one that does not within this is busy, and is asked again
# next second.
ASK_SECONDS = 1.0
# The push carries a few thumbnails; a page that cannot take it in this is asked again next second.
PUSH_SECONDS = 2.0


class _Proxy(Protocol):
    router: Router
    seen: dict[int, Seen]
    watch: Watch

    async def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None, seconds: float = ...
    ) -> Any: ...

    def execute(self, actions: list[Action]) -> None: ...

    def log(self, text: str) -> None: ...


class AgentsView:
    def __init__(self, proxy: _Proxy) -> None:
        self.proxy = proxy
        self.editor: tuple[str, str] | None = None  # (targetId, our session on it)
        self.tabs: dict[str, str] = {}  # a client's tab → our session on it, while the page wants

    async def run(self) -> None:
        """Look at the editor tab every :data:`LOOK_SECONDS` until cancelled."""
        while True:
            await trio.sleep(LOOK_SECONDS)
            with contextlib.suppress(RuntimeError):
                await self.look()

    async def _attach(self, target: str) -> str | None:
        try:
            attached = await self.proxy.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        except RuntimeError:
            return None
        session = attached.get("sessionId") if isinstance(attached, dict) else None
        return session if isinstance(session, str) else None

    async def _detach(self, session: str) -> None:
        with contextlib.suppress(RuntimeError):
            await self.proxy.call("Target.detachFromTarget", {"sessionId": session}, seconds=ASK_SECONDS)

    async def _editor_session(self) -> str | None:
        editor = self.proxy.router.editor
        if self.editor is not None and self.editor[0] != editor:
            await self._detach(self.editor[1])
            self.editor = None
        if editor is None:
            return None
        if self.editor is None:
            session = await self._attach(editor)
            if session is None:
                return None
            self.editor = (editor, session)
        return self.editor[1]

    async def look(self) -> None:
        """One look: ask the page; while it wants, kick, gather and push. Without a client there
        is nothing to show (and `pix3_agents` is asked by a client): nothing is asked."""
        if self.proxy.router.client_count == 0:
            await self._let_go()
            if self.editor is not None:
                await self._detach(self.editor[1])
                self.editor = None
            return
        session = await self._editor_session()
        if session is None:
            await self._let_go()
            return
        try:
            asked = await self.proxy.call(
                "Runtime.evaluate",
                {"expression": ASK_EXPRESSION, "returnByValue": True},
                session=session,
                seconds=ASK_SECONDS,
            )
        except RuntimeError as error:
            if "no answer" not in str(error):  # a session Chrome no longer knows: attach again
                self.editor = None
            raise
        wanted, kicks = read_ask(asked)
        router = self.proxy.router
        for number in kicks:
            if router.is_open(number):
                self.proxy.execute(router.kick(number))
        if not wanted:
            await self._let_go()
            return
        with contextlib.suppress(RuntimeError):  # without fresh titles the view still answers
            listed = await self.proxy.call("Target.getTargets")
            router.owners.retitle(listed.get("targetInfos") if isinstance(listed, dict) else None)
        watched = self.proxy.watch.body(router, self.proxy.seen, router.clock(), time.time(), True, record=False)
        editor = router.editor
        targets = {t["targetId"] for c in watched["clients"] for t in c.get("tabs", []) if t["targetId"] != editor}
        for gone in set(self.tabs) - targets:
            await self._detach(self.tabs.pop(gone))
        thumbnails: dict[str, str | None] = {}
        async with trio.open_nursery() as nursery:
            for target in targets:
                nursery.start_soon(self._thumbnail, target, thumbnails)
        await self.proxy.call(
            "Runtime.evaluate",
            {"expression": push_expression(page_body(watched, thumbnails, editor))},
            session=session,
            seconds=PUSH_SECONDS,
        )

    async def _thumbnail(self, target: str, into: dict[str, str | None]) -> None:
        """A JPEG of ``target``'s visible part, at most 320 px wide, as a data URL (None: none)."""
        into[target] = None
        session = self.tabs.get(target)
        if session is None:
            session = await self._attach(target)
            if session is None:
                return
            self.tabs[target] = session
        try:
            metrics = await self.proxy.call("Page.getLayoutMetrics", session=session, seconds=THUMBNAIL_SECONDS)
            clip = thumbnail_clip(metrics)
            if clip is None:
                return
            shot = await self.proxy.call(
                "Page.captureScreenshot",
                {"format": "jpeg", "quality": THUMBNAIL_QUALITY, "clip": clip},
                session=session,
                seconds=THUMBNAIL_SECONDS,
            )
        except RuntimeError as error:
            if "no answer" not in str(error):
                self.tabs.pop(target, None)
            return
        data = shot.get("data") if isinstance(shot, dict) else None
        if isinstance(data, str):
            into[target] = "data:image/jpeg;base64," + data

    async def _let_go(self) -> None:
        """Nobody looks: no session stays on a client's tab."""
        while self.tabs:
            _, session = self.tabs.popitem()
            await self._detach(session)
