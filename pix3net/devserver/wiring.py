"""Builds one dev server: tabs, file store, barrier, the Quart app and the dispatcher in front of it."""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import trio

from pix3net.devserver.app import (
    Barrier,
    Context,
    Frame,
    Hub,
    create_app,
    gate_page,
    host_page,
    register_workbench_routes,
    version_gate,
)
from pix3net.devserver.files import FileStore, parse_wire_path, register_file_routes
from pix3net.devserver.front.dispatch import Dispatch
from pix3net.devserver.front.door import Door
from pix3net.devserver.front.vite import Vite
from pix3net.devserver.front.viteproxy import ViteProxy
from pix3tools.core import pix3_home
from pix3tools.core.nodemodules import find_installed

RES_ROOT = "."
BUILD = "html"
EDITOR_CSS = "@pix3/editor-core/dist/editor.css"  # the real editor's stylesheet, when it is installed
# Scripts the editor executes (docs/devserver.md, "The sync barrier", step 3: the globbed roots;
# without the reference plugin we have no import graph, so the globs alone).
_EDITOR_SCRIPT = re.compile(r"^(?:scripts|src/scripts|design/tests/bots)/(?:[^/]+/)*[^/]+\.ts$")
_NOT_SCRIPT = (".d.ts", ".spec.ts", ".test.ts")


class PublicUrl(Protocol):
    def learn(self, newest_origin: str | None) -> None:
        """A tab said hello or left: rewrite dev.json when a new public URL shows
        (docs/devserver.md, "The public URL")."""
        ...


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


class Announcer:
    """Where the file store's `pix3:fs` frames go: every tab, and when Vite runs the game's
    scripts, one `pix3:scripts` per editor script an edit outside a sync touched."""

    def __init__(self, hub: Hub, scripts: bool) -> None:
        self._hub = hub
        self._scripts = scripts
        self._in_sync = False

    def emit(self, frame: Frame) -> None:
        self._hub.broadcast(frame)
        if self._scripts and not self._in_sync:
            for extra in script_frames(frame):
                self._hub.broadcast(extra)

    @contextlib.contextmanager
    def sync_rescan(self) -> Iterator[None]:
        """Frames of the barrier's own rescan are part of the sync: no script announcements."""
        self._in_sync = True
        try:
            yield
        finally:
            self._in_sync = False


@dataclass
class Server:
    asgi: Dispatch
    hub: Hub
    store: FileStore

    async def close(self) -> None:
        """Finish accepted writes, then answer every pending request ``tab_closed``."""
        await self.store.aclose()
        self.hub.close_all()


async def build(
    root: Path,
    log: logging.Logger,
    versions: dict[str, str | None],
    vite: Vite | None,
    record: PublicUrl,
    nursery: trio.Nursery,
    door: Door,
) -> Server:
    """Each part built after the parts it needs: hub → announcer → store → barrier → app."""
    hub = Hub(on_tabs_changed=record.learn)
    announcer = Announcer(hub, scripts=vite is not None)
    store = FileStore(root, emit=announcer.emit, log=log.info)
    barrier = Barrier(hub, store, quiet=announcer.sync_rescan)
    await store.start()
    nursery.start_soon(store.watch)

    def welcome_state() -> Frame:
        return {
            "seq": store.seq,
            "revision": store.revision,
            "writerId": store.writer_id,
            "root": str(root),
            "projectName": root.name,
            "resRoot": RES_ROOT,
            "versions": versions,
        }

    def hello_state() -> Frame:
        body: Frame = {
            "root": str(root),
            "resRoot": RES_ROOT,
            "seq": store.seq,
            "revision": store.revision,
            "writerId": store.writer_id,
            "tabs": hub.tab_ids(),
            "versions": versions,
            "build": BUILD,
        }
        if vite is not None:
            body["vite"] = vite.status.as_json()
        return body

    editor_css = find_installed(root, EDITOR_CSS)
    gate = version_gate(versions.get("runtime"), versions.get("editorCore"))
    if gate is not None:
        log.error("%s", gate)
    page_body = gate_page(gate) if gate else host_page(root.name, editor_css=editor_css is not None)
    page_status = 409 if gate else 200
    ctx = Context(
        root=root,
        hub=hub,
        barrier=barrier,
        claims=store,
        hello_state=hello_state,
        welcome_state=welcome_state,
        page=lambda: (page_status, page_body),
        editor_css=editor_css,
        log=log,
        home=pix3_home(),
        routes=(
            lambda app: register_file_routes(app, store, base="/"),
            lambda app: register_workbench_routes(app, root, pix3_home()),
        ),
        check_path=parse_wire_path,
        public_hosts=door.public,
    )
    app = create_app(ctx)
    proxy = ViteProxy(vite.wait_ready, door.invoke_refusal) if vite is not None else None
    return Server(asgi=Dispatch(app, root, proxy, door), hub=hub, store=store)
