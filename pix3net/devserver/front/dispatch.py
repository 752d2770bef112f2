"""Behind Hypercorn: every request's first stop (docs/devserver.md, "Shape").

In order: the Host rule (403 `forbidden_host`, every request and upgrade, whatever its path); a
URL with a `.pix3` segment is 404; `/__pix3` goes to the Quart app; the rest must pass the front
door's target rules (404 `not_found`; a navigation another site's page asked for, 403
`foreign_navigation`) and goes to Vite (the ASGI proxy) or, without Vite, to the
project folder served as plain files. The splice in front asks the same rules (`door.py`) and
hands anything they refuse here, so every refusal is answered by this one place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from pix3net.devserver.app import FORBIDDEN_HOST
from pix3net.devserver.front import targets
from pix3net.devserver.front.door import Door
from pix3net.devserver.front.plainfiles import serve_static
from pix3net.devserver.front.viteproxy import Receive, Scope, Send, ViteProxy
from pix3net.devserver.http import JSON_TYPE, NOT_FOUND, Refusal, json_bytes, send_error

Asgi = Callable[..., Awaitable[None]]

FOREIGN_NAVIGATION = Refusal(
    403,
    "foreign_navigation",
    "A page of another site may not open this project's pages (the game runs only in the editor's frame); "
    "type the address in the address bar instead.",
)


class Dispatch:
    """The ASGI application Hypercorn serves."""

    def __init__(self, app: Asgi, root: Path, proxy: ViteProxy | None, door: Door) -> None:
        self._app = app
        self._root = root.resolve()
        self._proxy = proxy
        self._door = door

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._app(scope, receive, send)
            return
        hosts = [value.decode("latin-1") for name, value in scope["headers"] if name.lower() == b"host"]
        if not self._door.host_ok(hosts):
            await _refuse(FORBIDDEN_HOST, kind, receive, send)
            return
        raw = scope.get("raw_path") or scope["path"].encode()
        route = targets.route_of(raw.split(b"?", 1)[0])
        if route == "private":
            await _refuse(NOT_FOUND, kind, receive, send)
        elif route == "pix3":
            await self._app(scope, receive, send)
        elif _foreign_navigation(scope["headers"]):
            await _refuse(FOREIGN_NAVIGATION, kind, receive, send)
        elif await self._refused(raw, scope.get("query_string", b"")):
            await _refuse(NOT_FOUND, kind, receive, send)
        elif self._proxy is not None:
            if kind == "http":
                await self._proxy.http(scope, receive, send)
            else:
                await self._proxy.websocket(scope, receive, send)
        elif kind == "http":
            await serve_static(self._root, scope, receive, send)
        else:
            await receive()
            await send({"type": "websocket.close", "code": 1000})

    async def _refused(self, raw_path: bytes, query: bytes) -> bool:
        target = raw_path + b"?" + query if query else raw_path
        if self._door.plain(target):
            return False
        # The rules may look at the disk (`Door.outside`): off the event loop.
        return await trio.to_thread.run_sync(self._door.target_refusal, target) is not None


def _foreign_navigation(headers: list[tuple[bytes, bytes]]) -> bool:
    fields = {
        name.lower(): value.decode("latin-1") for name, value in headers if name.lower().startswith(b"sec-fetch-")
    }
    return targets.foreign_navigation(fields.get(b"sec-fetch-mode"), fields.get(b"sec-fetch-site"))


async def _refuse(refusal: Refusal, kind: str, receive: Receive, send: Send) -> None:
    """``refusal`` as JSON, the request body drained; for an upgrade, before accepting it."""
    if kind == "websocket":
        await receive()
        await send(
            {
                "type": "websocket.http.response.start",
                "status": refusal.status,
                "headers": [(b"content-type", JSON_TYPE.encode())],
            }
        )
        await send({"type": "websocket.http.response.body", "body": json_bytes(refusal.body())})
        return
    while (await receive()).get("more_body"):
        pass
    await send_error(send, refusal)
