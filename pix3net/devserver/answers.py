"""The dev server's JSON answers: one way to write them.

Every `/__pix3` JSON reply is compact UTF-8 with `Content-Type: application/json; charset=utf-8`
and `Cache-Control: no-store` (docs/devserver.md); errors are `{"error": code, "message": text,
…extra}`. The same bytes are sent from Quart routes (`json_response`) and from raw ASGI code
in front of the app (`send_json`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from quart import Response

from pix3net.devserver.errors import ApiError

JSON_TYPE = "application/json; charset=utf-8"
SendAsgi = Callable[[dict[str, Any]], Awaitable[None]]


# 502 `vite_unavailable`: what happened, and where to look.
VITE_NOT_RUNNING = "Vite is not running (it crashed or is restarting); see .pix3/dev.log."
VITE_REFUSED = "Vite does not answer (is it restarting?); see .pix3/dev.log."
VITE_CLOSED = "Vite closed the connection before answering (did it crash?); see .pix3/dev.log."


def vite_unavailable(message: str) -> dict[str, str]:
    return {"error": "vite_unavailable", "message": message}


def json_bytes(body: Any) -> bytes:
    # surrogatepass: a lone surrogate echoed back from a JSON request (a bad path) still encodes
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
    response = Response(json_bytes(body), status=status, content_type=JSON_TYPE)
    response.headers["Cache-Control"] = "no-store"
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def error_response(error: ApiError) -> Response:
    """The reply of ``error``; a 413 also closes the connection (the rest of the body is not read)."""
    return json_response(error.status, error.body(), {"Connection": "close"} if error.status == 413 else None)


async def send_json(send: SendAsgi, status: int, body: Any) -> None:
    """The same reply from plain ASGI code (before the app, or the Vite proxy)."""
    data = json_bytes(body)
    headers = [
        (b"content-type", JSON_TYPE.encode()),
        (b"cache-control", b"no-store"),
        (b"content-length", str(len(data)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
