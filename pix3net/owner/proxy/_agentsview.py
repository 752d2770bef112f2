"""The owner's side of the editor page's Agents view (docs/cdp-proxy.md, "The editor page's Agents
view"). Thin: what is read and pushed is :mod:`pix3net.owner.proxy.agentspush` (pure); the facts are
:class:`pix3net.owner.proxy._views.Watch`'s; the page is reached through the watchdog's session on the
editor tab (:class:`pix3net.owner.proxy._watchrun.WatchRun`), whose binding tells us when it wants them.

Nothing listens for it and nothing polls: while the page does not want the agents this costs no
message at all. While it wants them, once a second: ``Target.getTargets`` (fresh titles), a
thumbnail of each client's tab that is due (on a session of the owner's own, attached while the
page wants, detached after; a tab whose picture does not change is taken less and less often,
:func:`pix3net.owner.proxy.agentspush.next_shot_seconds`), and one ``Runtime.callFunctionOn`` that pushes
the facts with only the pictures the page does not hold yet (:class:`pix3net.owner.proxy.agentspush.Held`).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any, Protocol

import trio

from pix3net.owner.proxy._status import Seen
from pix3net.owner.proxy._views import Watch
from pix3net.owner.proxy.agentspush import (
    PUSH_SECONDS,
    THUMBNAIL_QUALITY,
    THUMBNAIL_SECONDS,
    Held,
    next_shot_seconds,
    page_body,
    push_params,
    read_ask,
    read_push,
    thumbnail_clip,
)
from pix3net.wire.router import Action, Router

__all__ = ["AgentsView"]

# The push carries a few thumbnails; a page that cannot take it in this no longer wants them (it
# says so again when it does).
PUSH_ANSWER_SECONDS = 2.0
# Chrome answers an attach or a detach from its browser process.
ATTACH_SECONDS = 2.0


class _Proxy(Protocol):
    router: Router
    seen: dict[int, Seen]
    watch: Watch

    async def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None, seconds: float = ...
    ) -> Any: ...

    def execute(self, actions: list[Action]) -> None: ...

    def log(self, text: str) -> None: ...

    async def editor_answers(self) -> bool | None: ...


class _Page(Protocol):
    @property
    def session(self) -> str | None: ...


@dataclass
class _Shot:
    """A client tab's last picture: taken again at ``due``, or as soon as ``page`` (title, URL)
    changes."""

    data: str | None
    page: tuple[str, str]
    same: int = 0
    due: float = 0.0
    changed: int = 0  # pictures in a row that differed from the one before


class AgentsView:
    def __init__(self, proxy: _Proxy, page: _Page) -> None:
        self.proxy = proxy
        self.page = page  # the watchdog's run: its session on the editor tab
        self.wanted = False
        self.context: int | None = None  # the page's execution context, from its last call
        self.asks = 0  # calls of the binding so far (one during a push outdates its answer)
        self._wake = trio.Event()
        self.tabs: dict[str, str] = {}  # a client's tab → our session on it, while the page wants
        self.shots: dict[str, _Shot] = {}  # a client's tab → its last picture, while the page wants
        self.held = Held()  # the pictures the page holds (a push leaves those out)

    # -- from the watchdog's task --------------------------------------------------------------
    def asked(self, payload: str, context: int | None = None) -> None:
        """The page called the binding: kicks are done at once, as `pix3 editor --kick` does them
        (a socket's clients only: the owner's own session is no client)."""
        wanted, kicks = read_ask(payload)
        router = self.proxy.router
        for number in kicks:
            if number in self.proxy.seen and router.is_open(number):
                who = self.proxy.seen[number].name
                self.proxy.log(
                    f"client {number}{f' ({who})' if who else ''}: ended from the editor page's Agents panel"
                )
                self.proxy.execute(router.kick(number))
        if context is not None:
            self.context = context
        if wanted is not None:
            self.asks += 1
            self.wanted = wanted
            self._wake.set()

    # -- the task ------------------------------------------------------------------------------
    async def run(self) -> None:
        try:
            while True:
                if not self.wanted:
                    await self._let_go()
                    await self._wake.wait()
                    self._wake = trio.Event()
                    continue
                started, asks = trio.current_time(), self.asks
                try:
                    still = await self.push()
                except RuntimeError:  # a call Chrome refused or did not answer: the page asks again
                    still = False
                except Exception as error:  # a view must never end the owner that serves everyone
                    self.proxy.log(f"agents view: {error!r}; the page asks again")
                    still = False
                if not still and self.asks == asks:
                    self.wanted = False
                await trio.sleep_until(started + PUSH_SECONDS)
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(ATTACH_SECONDS):
                await self._let_go()

    async def push(self) -> bool:
        """Gather the facts and thumbnails and hand them to the page; whether it still wants them."""
        session, context = self.page.session, self.context
        if session is None or context is None:
            return False
        router = self.proxy.router
        with contextlib.suppress(RuntimeError):  # without fresh titles the view still answers
            listed = await self.proxy.call("Target.getTargets")
            router.owners.retitle(listed.get("targetInfos") if isinstance(listed, dict) else None)
        answering = await self.proxy.editor_answers()
        watched = self.proxy.watch.body(router, self.proxy.seen, router.clock(), time.time(), answering, record=False)
        editor = router.editor
        pages = {
            t["targetId"]: (t.get("title", ""), t.get("url", ""))
            for c in watched["clients"]
            for t in c.get("tabs", [])
            if t["targetId"] != editor
        }
        for gone in set(self.tabs) - set(pages):
            await self._detach(self.tabs.pop(gone))
        for gone in set(self.shots) - set(pages):
            del self.shots[gone]
        now = trio.current_time()
        thumbnails: dict[str, str | None] = {}
        async with trio.open_nursery() as nursery:
            for target, page in pages.items():
                shot = self.shots.get(target)
                if shot is not None and shot.page == page and now < shot.due:
                    thumbnails[target] = shot.data
                else:
                    nursery.start_soon(self._thumbnail, target, thumbnails)
        for target, page in pages.items():
            data, shot = thumbnails.get(target), self.shots.get(target)
            if shot is None or shot.page != page or data is None:
                self.shots[target] = _Shot(data, page, 0, now + next_shot_seconds(0))
            elif shot.data != data:  # taken again, and it moved
                shot.data, shot.same, shot.changed = data, 0, shot.changed + 1
                shot.due = now + next_shot_seconds(0, shot.changed)
            elif now >= shot.due:  # taken again, and the same
                shot.same, shot.changed = shot.same + 1, 0
                shot.due = now + next_shot_seconds(shot.same)
        held = self.held
        if held.context != context:  # another document: it holds no picture
            held.forget()
            held.context = context
        body = page_body(watched, thumbnails, editor, held)
        try:
            pushed = await self.proxy.call(
                "Runtime.callFunctionOn", push_params(body, context), session=session, seconds=PUSH_ANSWER_SECONDS
            )
        except BaseException:  # the page may or may not have it: the next push sends every picture
            held.forget()
            raise
        still = read_push(pushed)
        if still:
            held.taken()
        else:
            held.forget()
        return still

    async def _thumbnail(self, target: str, into: dict[str, str | None]) -> None:
        """A JPEG of ``target``'s visible part, at most 320 px wide, as a data URL (None: none)."""
        into[target] = None
        session = self.tabs.get(target)
        if session is None:
            try:
                attached = await self.proxy.call(
                    "Target.attachToTarget", {"targetId": target, "flatten": True}, seconds=ATTACH_SECONDS
                )
            except RuntimeError:
                return
            session = attached.get("sessionId") if isinstance(attached, dict) else None
            if not isinstance(session, str):
                return
            self.tabs[target] = session
        try:
            metrics = await self.proxy.call("Page.getLayoutMetrics", session=session, seconds=THUMBNAIL_SECONDS)
            clip = thumbnail_clip(metrics)
            if clip is None:
                return
            shot = await self.proxy.call(
                "Page.captureScreenshot",
                {"format": "jpeg", "quality": THUMBNAIL_QUALITY, "clip": clip, "optimizeForSpeed": True},
                session=session,
                seconds=THUMBNAIL_SECONDS,
            )
        except RuntimeError as error:
            if "no answer" not in str(error):  # a session Chrome no longer knows: attach again
                self.tabs.pop(target, None)
            return
        data = shot.get("data") if isinstance(shot, dict) else None
        if isinstance(data, str):
            into[target] = "data:image/jpeg;base64," + data

    async def _detach(self, session: str) -> None:
        with contextlib.suppress(RuntimeError):
            await self.proxy.call("Target.detachFromTarget", {"sessionId": session}, seconds=ATTACH_SECONDS)

    async def _let_go(self) -> None:
        """Nobody looks: no session of ours stays on a client's tab, no picture is kept."""
        self.shots.clear()
        self.held = Held()
        while self.tabs:
            _, session = self.tabs.popitem()
            await self._detach(session)
