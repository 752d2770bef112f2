"""The embedded default: without Vite, the project folder served as plain files (GET and HEAD
only; docs/devserver.md, "Without Vite: the project folder as plain files")."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import trio

from pix3net.devserver.front.viteproxy import Receive, Scope, Send
from pix3net.devserver.http import content_type


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
