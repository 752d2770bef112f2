"""Behind Hypercorn: every request's first stop. A URL with a `.pix3` segment is 404, `/__pix3`
goes to the Quart app, the rest to Vite (the ASGI proxy) or, without Vite, to the project folder
served as plain files. The same rule (`guard.route_of`) decides for the splice in front.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import unquote

import trio

from pix3net.devserver import guard
from pix3net.devserver.answers import JSON_TYPE, json_bytes, send_json
from pix3net.devserver.mediatypes import content_type
from pix3net.devserver.proxy import Receive, Scope, Send, ViteProxy

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


async def _send(
    send: Send, status: int, body: bytes, kind: bytes, extra: list[tuple[bytes, bytes]], head: bool = False
) -> None:
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


def _static_path(root: Path, url_path: str) -> Path | None:
    """The file a URL names inside the root; None for anything that would leave it."""
    try:
        relative = unquote(url_path, errors="strict")
    except UnicodeDecodeError:
        return None
    parts = [p for p in relative.split("/") if p]
    if any(p in (".", "..") or "\\" in p or "\0" in p for p in parts):
        return None
    candidate = root.joinpath(*parts)
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if resolved != root and root not in resolved.parents:
        return None
    if resolved.is_dir():
        resolved = resolved / "index.html"
    return resolved if resolved.is_file() else None


async def serve_static(root: Path, scope: Scope, receive: Receive, send: Send) -> None:
    """The embedded default: the project folder as plain files (GET/HEAD only)."""
    while (await receive()).get("more_body"):
        pass
    method = scope["method"]
    if method not in ("GET", "HEAD"):
        await _send(send, 405, b"Method not allowed.\n", b"text/plain; charset=utf-8", [(b"allow", b"GET, HEAD")])
        return
    path = await trio.to_thread.run_sync(_static_path, root, scope["path"])
    if path is None:
        await _send(send, 404, b"Not found.\n", b"text/plain; charset=utf-8", [])
        return
    data = await trio.Path(path).read_bytes()
    # One table for every machine (docs/devserver.md, "Media types"): TypeScript is text/plain,
    # which a browser shows and refuses to run as a module; it needs Vite to become JavaScript.
    kind = content_type(path.name)
    extra: list[tuple[bytes, bytes]] = [(b"cache-control", b"no-cache")]
    await _send(send, 200, data, kind.encode(), extra, head=method == "HEAD")
