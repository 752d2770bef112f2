"""A minimal dev server for the file API tests: Quart on hypercorn/trio mounting only our routes.

The real app (guard, socket, barrier) is the devapp branch's; this one adds what the tests need
to observe: every emitted `pix3:fs` frame (`GET /__test/frames`) and a writer claim route.
Run as a script (`python -m tests.support.file_api <root> <port-file> [fault]`) it
is a separate process a test can SIGKILL at a chosen point of a changeset.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from quart import Response, request
from quart_trio import QuartTrio

from pix3net.devserver.files import FileError, FileStore, http_error, register_file_routes
from pix3net.devserver.http import answer_errors, pace_bodies


@dataclass
class Harness:
    url: str
    store: FileStore
    frames: list[dict[str, Any]] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)


def make_app(store: FileStore, frames: list[dict[str, Any]]) -> QuartTrio:
    app = QuartTrio(__name__)
    app.config["MAX_CONTENT_LENGTH"] = None
    pace_bodies(app)  # as the dev server's app does
    answer_errors(app, store.root, logging.getLogger("pix3.test.files"))  # so does this
    register_file_routes(app, store)

    @app.get("/__test/frames")
    async def get_frames() -> Response:
        return Response(json.dumps(frames), content_type="application/json")

    @app.post("/__pix3/api/handover/claim")
    async def claim() -> Response:
        body = await request.get_json(force=True, silent=True) or {}
        try:
            reply = await store.claim(body.get("writerId"))
        except FileError as refused:
            exc = http_error(refused)
            return Response(json.dumps(exc.body()), status=exc.status, content_type="application/json")
        return Response(json.dumps(reply), content_type="application/json")

    return app


def _config() -> Config:
    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    config.errorlog = None
    return config


@asynccontextmanager
async def running(root: Path, *, watch: bool = True, **store_kwargs: Any) -> AsyncIterator[Harness]:
    """Serve ``root`` on a free loopback port for the body of the ``async with``."""
    frames: list[dict[str, Any]] = []
    logs: list[str] = []
    store = FileStore(root, emit=frames.append, log=logs.append, **store_kwargs)
    await store.start()
    app = make_app(store, frames)
    async with trio.open_nursery() as nursery:
        urls = await nursery.start(serve, app, _config())
        if watch:
            await nursery.start(store.watch)
        yield Harness(urls[0], store, frames, logs)
        await store.aclose()
        nursery.cancel_scope.cancel()


async def _main(root: Path, port_file: Path, fault_point: str | None) -> None:
    def fault(point: str) -> None:
        if point == fault_point:
            os.kill(os.getpid(), signal.SIGKILL)

    async with running(root, fault=fault) as harness:
        for line in harness.logs:
            print(line, flush=True)
        harness.store.core.log = lambda line: print(line, flush=True)
        await trio.Path(port_file).write_text(harness.url)
        await trio.sleep_forever()


if __name__ == "__main__":
    trio.run(_main, Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
