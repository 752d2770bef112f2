"""The Quart app of `/__pix3/*`: guard, hello, page, editor socket, claim, flush, sync, check.

docs/devserver.md, "The /__pix3 routes". The file API routes come from `pix3net.devserver.files`; everything
outside `/__pix3` never reaches this app (see `front/dispatch.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import trio
from quart import Response, request, websocket
from quart_trio import QuartTrio

from pix3net.devserver.http import (
    NOT_FOUND,
    Refusal,
    answer_errors,
    drain,
    error_response,
    json_response,
    pace_bodies,
    read_json,
)

from . import _guard as guard
from ._barrier import Barrier, parse_expect, parse_timeout
from ._checks import BAD_CHECK, check_options, run_checks
from ._hostpage import GAME_FRAME_PAGE, game_frame_headers
from ._tabs import TAB_ID_RE, Frame, Hub

P = guard.PREFIX
BAD_WRITER = Refusal(400, "bad_writer", "`writerId` must be 1–128 chars of [A-Za-z0-9_.:-].")
GET_ONLY = Refusal(405, "method", "GET only.")
NO_EDITOR_CSS = Refusal(404, "not_found", "@pix3/editor-core is not installed.")
PAGE_HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin-allow-popups",
    # Never framed: an editor page framed by another page (a game, another site) claims the writer
    # on load and leaves the user's own editor page read-only (docs/devserver.md, "Routes").
    "Content-Security-Policy": "frame-ancestors 'none'",
}


class Claims(Protocol):
    """What a writer claim needs from the file store (the writer hand-over)."""

    async def claim(self, writer: object) -> dict[str, Any]:
        """Under the write mutex (writes already queued finish first): set the writer and
        return ``{writerId, seq, revision, hashes}``."""
        ...


@dataclass
class Context:
    """Everything the routes read; built once by the server process (no globals)."""

    root: Path
    hub: Hub
    barrier: Barrier
    claims: Claims
    hello_state: Callable[[], Frame]
    welcome_state: Callable[[], Frame]
    page: Callable[[], tuple[int, bytes]]
    editor_css: Path | None
    log: logging.Logger
    home: Path  # PIX3_HOME, for `POST /api/check` (TypeScript's cache lives there)
    public_hosts: frozenset[str] = frozenset()  # the Host rule's public names (PIX3_PUBLIC_URL's host)
    # Route sets mounted after ours, each `register(app)` (the file API; more `/__pix3/api/` routes)
    routes: tuple[Callable[[QuartTrio], None], ...] = ()
    check_path: Callable[[str, str], object] = field(default=lambda path, name: None)


def _peer(scope: dict[str, Any]) -> str | None:
    client = scope.get("client")
    return str(client[0]) if client else None


def create_app(ctx: Context) -> QuartTrio:
    app = QuartTrio(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = None
    app.config["BODY_TIMEOUT"] = 600
    app.config["RESPONSE_TIMEOUT"] = None
    app.config["PROVIDE_AUTOMATIC_OPTIONS"] = False
    pace_bodies(app)
    hub, barrier = ctx.hub, ctx.barrier

    @app.before_request
    async def _guard() -> Response | None:
        headers = guard.header_map(request.scope["headers"])
        refusal = guard.check_request(request.method, headers, _peer(dict(request.scope)), ctx.public_hosts)
        if refusal is None:
            refusal = guard.check_game(request.method, request.scope["path"], headers)
        if refusal is not None:
            await drain()
            return error_response(refusal)
        return None

    @app.after_request
    async def _drain_unread(response: Response) -> Response:
        # A reply sent before the request body has fully arrived makes Hypercorn drop the
        # keep-alive connection mid-cycle (the client's next request then hangs), and the
        # reference drains bodies before error replies anyway. 413s close instead.
        if response.headers.get("Connection", "").lower() != "close":
            await drain()
        return response

    @app.before_websocket
    async def _guard_socket() -> Response | None:
        headers = guard.header_map(websocket.scope["headers"])
        if guard.check_socket(headers, _peer(dict(websocket.scope)), ctx.public_hosts) is not None:
            return Response(b"", status=403, headers={"Connection": "close"})
        refused = guard.check_game("GET", websocket.scope["path"], headers)
        if refused is not None:  # the game's script, same-origin under its name: said in JSON
            response = error_response(refused)
            response.headers["Connection"] = "close"
            return response
        return None

    answer_errors(app, str(ctx.root), ctx.log)

    methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    @app.route(P, methods=methods)
    async def _redirect() -> Response:
        query = request.scope.get("query_string", b"").decode("latin-1")
        response = Response(b"", status=302)
        response.headers["Location"] = P + "/" + (f"?{query}" if query else "")
        return response

    @app.route(P + "/", methods=methods)
    @app.route(P + "/index.html", methods=methods)
    async def _page() -> Response:
        if request.method not in ("GET", "HEAD"):
            return error_response(GET_ONLY)
        # A browser's editor page lives under the editor's name: under the game's it could use no
        # API (the guard), and the game's frame may be framed only by `localhost` (docs/devserver.md).
        query = request.scope.get("query_string", b"").decode("latin-1")
        elsewhere = guard.editor_page_redirect(guard.header_map(request.scope["headers"]), query)
        if elsewhere is not None:
            return Response(b"", status=302, headers={"Location": elsewhere, "Cache-Control": "no-store"})
        status, body = ctx.page()
        return Response(b"" if request.method == "HEAD" else body, status=status, headers=PAGE_HEADERS)

    @app.route(P + "/game/", methods=["GET", "HEAD"])
    async def _game_frame() -> Response:
        headers = game_frame_headers(request.headers.get("Host"))
        return Response(b"" if request.method == "HEAD" else GAME_FRAME_PAGE, status=200, headers=headers)

    @app.route(P + "/editor.css", methods=["GET", "HEAD"])
    async def _editor_css() -> Response:
        if ctx.editor_css is None or not ctx.editor_css.is_file():
            return error_response(NO_EDITOR_CSS)
        data = await trio.Path(ctx.editor_css).read_bytes()
        headers = {"Content-Type": "text/css; charset=utf-8", "Cache-Control": "no-cache"}
        return Response(b"" if request.method == "HEAD" else data, status=200, headers=headers)

    @app.route(P + "/api/hello", methods=["GET"])
    async def _hello() -> Response:
        if request.method != "GET":  # Quart answers HEAD through GET routes; the reference does not
            return error_response(NOT_FOUND)
        return json_response(200, ctx.hello_state())

    @app.route(P + "/api/handover/claim", methods=["POST"])
    async def _claim() -> Response:
        body = await read_json()
        writer_id = body.get("writerId")
        if not isinstance(writer_id, str) or not TAB_ID_RE.match(writer_id):
            raise BAD_WRITER.error()
        snapshot = await ctx.claims.claim(writer_id)
        hub.set_writer(writer_id)
        ctx.log.info("writer is now %s", writer_id)
        return json_response(200, snapshot)

    @app.route(P + "/api/flush", methods=["POST"])
    async def _flush() -> Response:
        body = await read_json()
        result = await barrier.flush(parse_timeout(body))
        ctx.log.info("flush: %s", _summary(result))
        return json_response(200, result)

    @app.route(P + "/api/sync", methods=["POST"])
    async def _sync() -> Response:
        body = await read_json()
        expect = parse_expect(body, ctx.check_path)
        timeout_ms = parse_timeout(body)
        tab_id = body.get("tabId")
        result = await barrier.sync(expect, timeout_ms, tab_id if isinstance(tab_id, str) else None)
        ctx.log.info("sync: %s", _summary(result))
        return json_response(200, result)

    check_lock = trio.Lock()

    @app.route(P + "/api/check", methods=["POST"])
    async def _check() -> Response:
        body = await read_json()
        options = check_options(body)
        if options is None:
            raise BAD_CHECK.error()
        timeout_ms = parse_timeout(body)
        report = await run_checks(
            ctx.root, ctx.home, options, lambda: barrier.flush(timeout_ms), request.host_url, check_lock
        )
        ctx.log.info("check: ok=%s errors=%s", report["ok"], report["errorCount"])
        return json_response(200, report)

    @app.websocket(P + "/ws")
    async def _socket() -> None:
        await editor_socket(hub, websocket.headers.get("Origin"), ctx.welcome_state, websocket.receive, websocket.send)

    for register in ctx.routes:
        register(app)
    return app


def _summary(result: Frame) -> str:
    keys = ("ok", "reason", "editor", "flushed", "step", "tabId")
    return " ".join(f"{k}={result[k]}" for k in keys if k in result)


async def editor_socket(
    hub: Hub,
    origin: str | None,
    welcome_state: Callable[[], Frame],
    receive: Callable[[], Awaitable[str | bytes]],
    send: Callable[[str], Awaitable[None]],
) -> None:
    """One tab: frames in go to the hub; the tab's outbox drains to the socket."""
    tab = hub.connect(origin, welcome_state)
    try:
        async with trio.open_nursery() as nursery:

            async def pump_out() -> None:
                async for text in tab.inbox:
                    await send(text)
                nursery.cancel_scope.cancel()

            nursery.start_soon(pump_out)
            while True:
                message = await receive()
                if isinstance(message, str):
                    hub.receive(tab, message)
    finally:
        hub.disconnect(tab)
