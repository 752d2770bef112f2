"""Request bodies: read with backpressure, counted against a limit, JSON parsed with a bound.

Quart reads a request body in a task of its own and appends every chunk to one buffer, as fast
as the client sends; a route that writes the body to disk more slowly than loopback delivers
it (a 900 MiB PUT) would hold the difference in memory. `pace_bodies` makes that task wait while
more than PACE_BYTES are buffered, so the client is slowed to the route's pace by TCP itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import trio
from quart import Quart, request
from quart_trio.asgi import TrioASGIHTTPConnection
from quart_trio.wrappers.request import TrioBody, TrioRequest

from ._errors import ApiError

MAX_JSON_BYTES = 1024 * 1024  # JSON bodies ≤ 1 MiB unless a route says more (docs/devserver.md)
PACE_BYTES = 1024 * 1024  # body bytes Quart may buffer ahead of the route reading them
THREAD_PARSE_BYTES = 256 * 1024  # bigger JSON (changesets) is parsed off the event loop


def too_large() -> ApiError:
    return ApiError(413, "too_large", "Request body too large.")


def bad_json() -> ApiError:
    return ApiError(400, "bad_json", "Body must be a JSON object.")


class _PacedBody(TrioBody):
    """A body whose reader task waits for the route once PACE_BYTES are buffered."""

    def __init__(self, expected_content_length: int | None, max_content_length: int | None) -> None:
        super().__init__(expected_content_length, max_content_length)
        self._room = trio.Event()
        self._room.set()
        self._whole = False  # awaited whole (get_data, get_json): no pacing, or it would never end

    def append(self, data: bytes) -> None:
        super().append(data)
        if len(self._data) >= PACE_BYTES and not self._whole and self._room.is_set():
            self._room = trio.Event()

    async def __anext__(self) -> bytes:
        try:
            return await super().__anext__()
        finally:
            self._room.set()

    def __await__(self) -> Any:
        self._whole = True
        self._room.set()
        return super().__await__()

    async def room(self) -> None:
        await self._room.wait()


class _PacedRequest(TrioRequest):
    body_class = _PacedBody


class _PacedConnection(TrioASGIHTTPConnection):
    async def handle_messages(self, nursery: trio.Nursery, request: Any, receive: Any) -> None:  # type: ignore[override]
        body = request.body
        while True:
            if isinstance(body, _PacedBody):
                await body.room()
            message = await receive()
            if message["type"] == "http.request":
                body.append(message.get("body", b""))
                if not message.get("more_body", False):
                    body.set_complete()
            elif message["type"] == "http.disconnect":
                break
        nursery.cancel_scope.cancel()


def pace_bodies(app: Quart) -> None:
    """Install the paced body on ``app`` (a QuartTrio app)."""
    app.request_class = _PacedRequest
    app.asgi_http_class = _PacedConnection


def _unlimit() -> None:
    """Quart applies MAX_CONTENT_LENGTH to every body; our routes count against their own limits."""
    body = request.body
    body._max_content_length = None
    if body._must_raise is not None and type(body._must_raise).__name__ == "RequestEntityTooLarge":
        body._must_raise = None


class BodyChunks:
    """The request body as chunks, refused with ``error()`` beyond ``limit`` bytes (declared or counted).

    A plain iterator class rather than an async generator: a reader may stop midway and nothing
    is left to finalise.
    """

    def __init__(self, limit: int, error: Callable[[], ApiError] = too_large) -> None:
        self._limit = limit
        self._error = error
        self._total = 0
        self._started = False

    def __aiter__(self) -> BodyChunks:
        return self

    async def __anext__(self) -> bytes:
        if not self._started:
            self._started = True
            declared = request.content_length
            if declared is not None and declared > self._limit:
                raise self._error()
            _unlimit()
        chunk: bytes = await request.body.__anext__()
        self._total += len(chunk)
        if self._total > self._limit:
            raise self._error()
        return chunk


async def drain() -> None:
    """Read and drop what is left of the body (a reply before the body is read confuses keep-alive)."""
    _unlimit()
    async for _chunk in request.body:
        pass


def parse_json_object(data: bytes) -> dict[str, Any]:
    """A JSON object; empty → {}; anything else, nesting too deep for the parser included → 400."""
    if not data.strip():
        return {}
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise bad_json() from None
    if not isinstance(value, dict):
        raise bad_json()
    return value


async def read_json(limit: int = MAX_JSON_BYTES) -> dict[str, Any]:
    """The request's JSON object, counted against ``limit`` (413 ``too_large``)."""
    data = b"".join([chunk async for chunk in BodyChunks(limit)])
    if len(data) > THREAD_PARSE_BYTES:
        return await trio.to_thread.run_sync(parse_json_object, data)
    return parse_json_object(data)
