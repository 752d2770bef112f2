"""Builds one dev server: file store, tabs, barrier, the Quart app and the front door."""

from __future__ import annotations

import logging
import re
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
from pix3net.devserver.workbench import register_workbench_routes
from pix3tools.core import pix3_home

RES_ROOT = "."
BUILD = "html"
# Scripts the editor executes (spec/devserver.md §5.2 step 3: the globbed roots; without the
# reference plugin we have no import graph, so the globs alone).
_EDITOR_SCRIPT = re.compile(r"^(?:scripts|src/scripts|design/tests/bots)/(?:[^/]+/)*[^/]+\.ts$")
_NOT_SCRIPT = (".d.ts", ".spec.ts", ".test.ts")


def editor_script(path: str) -> bool:
    return bool(_EDITOR_SCRIPT.match(path)) and not path.endswith(_NOT_SCRIPT)


def script_frames(frame: Frame) -> list[Frame]:
    """`pix3:scripts` for every editor script a `pix3:fs` batch created or changed."""
    events = frame.get("events")
    if frame.get("type") != "pix3:fs" or not isinstance(events, list):
        return []
    return [
        {"type": "pix3:scripts", "path": event["path"]}
        for event in events
        if event.get("kind") == "file" and event.get("op") != "delete" and editor_script(str(event.get("path")))
    ]


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
    barrier_box: list[Barrier] = []

    def emit(frame: Frame) -> None:
        hub = hub_box[0]
        hub.broadcast(frame)
        # Vite runs the game's scripts: an edit outside a sync tells the tabs (§6 `pix3:scripts`).
        if vite is not None and not barrier_box[0].in_rescan:
            for extra in script_frames(frame):
                hub.broadcast(extra)

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
    barrier = Barrier(hub, store)
    barrier_box.append(barrier)
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
        register_workbench_routes(app, root)

        @app.errorhandler(FileApiError)
        async def _file_error(error: FileApiError) -> Response:
            return json_response(error.status, error.body())

    ctx = Context(
        root=root,
        hub=hub,
        barrier=barrier,
        claims=store,
        hello_state=hello_state,
        page=lambda: (page_status, page_body),
        editor_css=editor_css,
        log=log,
        register_files=register_files,
        check_path=parse_wire_path,
        home=pix3_home(),
    )
    app = create_app(ctx)
    proxy = ViteProxy(vite.wait_ready) if vite is not None else None
    return Server(asgi=FrontDoor(app, root, proxy), hub=hub, store=store)
