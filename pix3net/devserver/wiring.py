"""Builds one dev server: file store, tabs, barrier, the Quart app and the front door."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from quart import Response
from quart_trio import QuartTrio

from pix3net.devserver.app import Context, create_app, json_response
from pix3net.devserver.asgi import FrontDoor
from pix3net.devserver.barrier import Barrier
from pix3net.devserver.page import gate_page, host_page, version_gate
from pix3net.devserver.proxy import ViteProxy
from pix3net.devserver.tabs import Frame, Hub
from pix3net.devserver.vite import Vite

RES_ROOT = "."
BUILD = "html"


@dataclass
class Server:
    asgi: FrontDoor
    hub: Hub
    store: Any

    async def close(self) -> None:
        """Finish accepted writes, then answer every pending request ``tab_closed``."""
        await self.store.aclose()
        self.hub.close_all()


def _find_editor_css(root: Path) -> Path | None:
    for folder in (root, *root.parents):
        candidate = folder / "node_modules" / "@pix3" / "editor-core" / "dist" / "editor.css"
        if candidate.is_file():
            return candidate
    return None


async def build(
    root: Path,
    log: logging.Logger,
    versions: dict[str, str | None],
    vite: Vite | None,
    record: Any,
    nursery: trio.Nursery,
) -> Server:
    from pix3net.devserver.files import FileApiError, FileStore, parse_wire_path, register_file_routes

    hub_box: list[Hub] = []

    def emit(frame: Frame) -> None:
        hub_box[0].broadcast(frame)

    store = FileStore(root, emit=emit, log=log.info)

    def shared_state() -> Frame:
        return {
            "seq": store.seq,
            "revision": store.revision,
            "writerId": store.writer_id,
        }

    def welcome_state() -> Frame:
        return {
            **shared_state(),
            "root": str(root),
            "projectName": root.name,
            "resRoot": RES_ROOT,
            "versions": versions,
        }

    hub = Hub(welcome_state, on_tabs_changed=lambda: record.learn(hub.newest_origin()))
    hub_box.append(hub)
    await store.start()
    nursery.start_soon(store.watch)

    def hello_state() -> Frame:
        state = shared_state()
        body: Frame = {
            "root": str(root),
            "resRoot": RES_ROOT,
            "seq": state["seq"],
            "revision": state["revision"],
            "writerId": state["writerId"],
            "tabs": hub.tab_ids(),
            "versions": versions,
            "build": BUILD,
        }
        if vite is not None:
            body["vite"] = vite.status.as_json()
        return body

    editor_css = _find_editor_css(root)
    gate = version_gate(versions.get("runtime"), versions.get("editorCore"))
    if gate is not None:
        log.error("%s", gate)
    page_body = gate_page(gate) if gate else host_page(root.name, editor_css=editor_css is not None)
    page_status = 409 if gate else 200

    def register_files(app: QuartTrio) -> None:
        register_file_routes(app, store, base="/")

        @app.errorhandler(FileApiError)
        async def _file_error(error: FileApiError) -> Response:
            return json_response(error.status, error.body())

    ctx = Context(
        root=root,
        hub=hub,
        barrier=Barrier(hub, store),
        claims=store,
        hello_state=hello_state,
        page=lambda: (page_status, page_body),
        editor_css=editor_css,
        log=log,
        register_files=register_files,
        check_path=parse_wire_path,
    )
    app = create_app(ctx)
    proxy = ViteProxy(vite.wait_ready) if vite is not None else None
    return Server(asgi=FrontDoor(app, root, proxy), hub=hub, store=store)
