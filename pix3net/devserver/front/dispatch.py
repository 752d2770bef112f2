"""Behind Hypercorn: every request's first stop. A URL with a `.pix3` segment is 404, `/__pix3`
goes to the Quart app, the rest to Vite (the ASGI proxy) or, without Vite, to the project folder
served as plain files. The same rule (`guard.route_of`) decides for the splice in front.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from pix3net.devserver import guard
from pix3net.devserver.answers import JSON_TYPE, json_bytes, send_json
from pix3net.devserver.front.plainfiles import serve_static
from pix3net.devserver.front.proxy import Receive, Scope, Send, ViteProxy

Asgi = Callable[..., Awaitable[None]]


class Dispatch:
    """The ASGI application Hypercorn serves."""

    def __init__(self, app: Asgi, root: Path, proxy: ViteProxy | None) -> None:
        self._app = app
        self._root = root.resolve()
        self._proxy = proxy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._app(scope, receive, send)
            return
        raw = scope.get("raw_path") or scope["path"].encode()
        route = guard.route_of(raw.split(b"?", 1)[0])
        if route == "private":
            await _refuse_private(kind, receive, send)
        elif route == "pix3":
            await self._app(scope, receive, send)
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


async def _refuse_private(kind: str, receive: Receive, send: Send) -> None:
    """404 ``not_found`` for any URL with a `.pix3` segment, body drained."""
    if kind == "websocket":
        await receive()
        await send(
            {
                "type": "websocket.http.response.start",
                "status": 404,
                "headers": [(b"content-type", JSON_TYPE.encode())],
            }
        )
        await send({"type": "websocket.http.response.body", "body": json_bytes(guard.NOT_FOUND.body())})
        return
    while (await receive()).get("more_body"):
        pass
    await send_json(send, 404, guard.NOT_FOUND.body())
