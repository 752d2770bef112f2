"""The dev server's JSON answers, errors included: one way to write them.

Every `/__pix3` JSON reply is compact UTF-8 with `Content-Type: application/json; charset=utf-8`
and `Cache-Control: no-store` (docs/devserver.md); errors are `{"error": code, "message": text,
…extra}` (`_errors.py`). The same bytes are sent from Quart routes (`json_response`,
`error_response`) and from raw ASGI code in front of the app (`send_json`, `send_error`). What an
exception a route did not catch answers is decided once, for every route of the app, by the
handlers :func:`answer_errors` installs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

import quart
from quart import Response, request

from ._errors import INTERNAL, NOT_FOUND, ApiError, Refusal, api_error_of

JSON_TYPE = "application/json; charset=utf-8"
SendAsgi = Callable[[dict[str, Any]], Awaitable[None]]


# 502 `vite_unavailable`: what happened, and where to look.
VITE_NOT_RUNNING = Refusal(
    502, "vite_unavailable", "Vite is not running (it crashed or is restarting); see .pix3/dev.log."
)
VITE_REFUSED = Refusal(502, "vite_unavailable", "Vite does not answer (is it restarting?); see .pix3/dev.log.")
VITE_CLOSED = Refusal(
    502, "vite_unavailable", "Vite closed the connection before answering (did it crash?); see .pix3/dev.log."
)


def json_bytes(body: Any) -> bytes:
    # surrogatepass: a lone surrogate echoed back from a JSON request (a bad path) still encodes
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
    response = Response(json_bytes(body), status=status, content_type=JSON_TYPE)
    response.headers["Cache-Control"] = "no-store"
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def error_response(error: ApiError | Refusal) -> Response:
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


async def send_error(send: SendAsgi, error: ApiError | Refusal) -> None:
    await send_json(send, error.status, error.body())


def error_bytes(error: ApiError | Refusal) -> bytes:
    """The same reply as a whole HTTP/1.1 answer that closes the connection (the splice's threads
    write it on a raw socket)."""
    body = json_bytes(error.body())
    head = (
        f"HTTP/1.1 {error.status} {HTTPStatus(error.status).phrase}\r\ncontent-type: {JSON_TYPE}\r\n"
        f"cache-control: no-store\r\nconnection: close\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def answer_errors(app: quart.Quart, root: str, log: logging.Logger) -> None:
    """Install on ``app`` the one answer to what a route raises: its `ApiError`, a link refused or
    a full disk (`api_error_of`), 404 `not_found` for an unknown route or method, else 500
    `internal` (logged with where it happened)."""

    @app.errorhandler(404)
    @app.errorhandler(405)
    async def _not_found(_: Exception) -> Response:
        return error_response(NOT_FOUND)

    @app.errorhandler(Exception)
    async def _other(error: Exception) -> Response:
        answer = api_error_of(error, root)
        if answer is not None:
            return error_response(answer)
        where = f"{request.method} {request.path}" if quart.has_request_context() else "the editor socket"
        log.error("internal error on %s", where, exc_info=error)
        return error_response(INTERNAL)
