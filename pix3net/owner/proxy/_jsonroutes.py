"""The proxy's plain HTTP answers: `/json/version`, `/json/list`, and pix3's own `/json/pix3/*`.

A request that passed the listener (:mod:`pix3net.owner.proxy._listener`) and the auth checks (or was
refused by them: the refusal is answered here, with the proof when one was asked) gets its whole
answer from :meth:`JsonRoutes.answer`: the DevTools discovery bodies built from Chrome's own
answers, the status and watch views of the clients (`pix3 editor --status`, `--watch`) and
`pix3 editor --kick` (docs/cdp-proxy.md, "Wire protocol", "Status", "Watching").
"""

from __future__ import annotations

import contextlib
import time
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import trio

from pix3net.owner.proxy._status import STATUS_PATH, Seen, status_body
from pix3net.owner.proxy._views import KICK_PATH, WATCH_HOLD_SECONDS, WATCH_PATH, Watch, kick_number
from pix3net.owner.proxy._watchrun import WatchRun
from pix3net.wire import auth
from pix3net.wire.httpwire import RequestHead, http_route_path
from pix3net.wire.proof import (
    CHALLENGE_HEADER,
    FORWARD_SCOPE,
    SCOPE_HEADER,
    answer_proof,
    forward_key,
    port_key,
    read_forward_ports,
)
from pix3net.wire.router import Action, Router

# Target types /json/list leaves out: the browser itself, tabs (the containers of pages), and
# Chrome's own UI (``browser_ui``: the omnibox popup and the like) — an agent listing pages
# should see pages and workers, not Chrome's windows.
UNLISTED_TARGET_TYPES = frozenset({"browser", "tab", "browser_ui"})


class _Proxy(Protocol):
    """What the routes need of the proxy (``transport._Proxy``)."""

    router: Router
    seen: dict[int, Seen]
    watch: Watch
    watchdog: WatchRun | None
    nursery: trio.Nursery | None
    # The port the listening socket is bound to: the one port a port-scope proof is for.
    port: int | None

    async def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None, seconds: float = ...
    ) -> Any: ...

    def execute(self, actions: list[Action]) -> None: ...

    def refused(self, cause: str, line: str) -> None: ...

    async def editor_answers(self) -> bool | None: ...


class JsonRoutes:
    """The answers to plain requests, for one proxy (its token's proof keys, Chrome's version once
    asked)."""

    def __init__(self, proxy: _Proxy, token: str, home: Path) -> None:
        self.proxy = proxy
        self.token = token
        self.home = home
        self.forward_key = forward_key(token)
        self.port_key = port_key(token)
        self.version: dict[str, Any] | None = None

    def _proof(self, head: RequestHead) -> str | None:
        challenge = head.get(CHALLENGE_HEADER.lower())
        if challenge is None:
            return None
        scope = head.get(SCOPE_HEADER.lower())
        forward = scope is not None and scope.strip().lower() == FORWARD_SCOPE
        return answer_proof(
            self.token,
            challenge=challenge,
            scope=scope,
            host=head.get("host"),
            forward_ports=read_forward_ports(self.home) if forward else None,
            listen_port=self.proxy.port,
            forward_key_bytes=self.forward_key,
            port_key_bytes=self.port_key,
        )

    async def answer(self, head: RequestHead, refusal: auth.AuthRefusal | None, *, close: bool) -> bytes:
        """The answer to a plain request; ``refusal``: what the auth checks said of it."""
        proxy = self.proxy
        body_less = head.method == "HEAD"  # a HEAD answer has no body, or keep-alive breaks
        answer = partial(auth.http_answer, close=close, head=body_less)
        proof = self._proof(head)
        if refusal is not None:
            proxy.refused(f"refused HTTP {refusal.status}", f"refused {head.method} {head.target}: {refusal.message}")
            return answer(refusal.status, {"error": refusal.message}, proof)
        path = http_route_path(head.target)
        host = head.get("host") or ""
        if head.method == "GET" and path == STATUS_PATH:
            silent = proxy.watchdog.silent_since() if proxy.watchdog is not None else None
            return answer(200, status_body(proxy.router, proxy.seen, silent), proof)
        if head.method == "GET" and path == WATCH_PATH:
            if not proxy.router.recording and proxy.nursery is not None:
                proxy.nursery.start_soon(self._stop_recording)
            with contextlib.suppress(RuntimeError):  # without fresh titles the view still answers
                listed = await proxy.call("Target.getTargets")
                proxy.router.owners.retitle(listed.get("targetInfos") if isinstance(listed, dict) else None)
            answering = await proxy.editor_answers()
            watched = proxy.watch.body(proxy.router, proxy.seen, proxy.router.clock(), time.time(), answering)
            return answer(200, watched, proof)
        if path == KICK_PATH:
            return answer(*self.kick(head), proof)
        if head.method == "GET" and path in ("/json/version", "/json/list", "/json"):
            try:
                body = await (self.version_body(host) if path == "/json/version" else self.list_body(host))
            except RuntimeError as error:
                return answer(502, {"error": str(error)}, proof)
            return answer(200, body, proof)
        message = f"no {head.method} {path} here (only /json/version and /json/list)"
        return answer(404, {"error": message}, proof)

    def kick(self, head: RequestHead) -> tuple[int, dict[str, Any]]:
        """`pix3 editor --kick`: ``POST /json/pix3/kick?client=<n>`` ends that client."""
        if head.method != "POST":
            return 405, {"error": f"{KICK_PATH} takes POST (pix3 editor --kick <client>)"}
        router = self.proxy.router
        number = kick_number(head.target)
        if number is None or not router.is_open(number):
            return 404, {"error": f"no client {number if number is not None else '(none given)'} here"}
        who = self.proxy.seen.get(number)
        self.proxy.execute(router.kick(number))
        return 200, {"kicked": number, "name": who.name if who else None}

    async def _stop_recording(self) -> None:
        """Recent calls are kept only while someone watches: off again once nobody asks."""
        watch, router = self.proxy.watch, self.proxy.router
        while watch.last_asked is not None:
            await trio.sleep(max(0.0, watch.last_asked + WATCH_HOLD_SECONDS - router.clock()) + 0.05)
            if watch.expire(router, router.clock()):
                return

    async def version_body(self, host: str) -> dict[str, Any]:
        if self.version is None:
            version = await self.proxy.call("Browser.getVersion")
            self.version = version if isinstance(version, dict) else {}
        v = self.version
        return {
            "Browser": v.get("product"),
            "Protocol-Version": v.get("protocolVersion"),
            "User-Agent": v.get("userAgent"),
            "V8-Version": v.get("jsVersion"),
            "WebKit-Version": v.get("revision"),
            "Pix3-Cdp-Proxy": 1,
            "webSocketDebuggerUrl": f"ws://{host}/pix3",
        }

    async def list_body(self, host: str) -> list[dict[str, Any]]:
        result = await self.proxy.call("Target.getTargets")
        infos = result.get("targetInfos", []) if isinstance(result, dict) else []
        return [
            {
                "description": "",
                "id": info.get("targetId"),
                "title": info.get("title"),
                "type": info.get("type"),
                "url": info.get("url"),
                "webSocketDebuggerUrl": f"ws://{host}/pix3/page/{info.get('targetId')}",
            }
            for info in infos
            if isinstance(info, dict) and info.get("type") not in UNLISTED_TARGET_TYPES
        ]
