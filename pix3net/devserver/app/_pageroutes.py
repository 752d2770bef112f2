"""The editor page's own routes (ours, beyond the reference contract): its script modules and the
scene structure it shapes into `pix3_scene` answers (docs/bridge.md, docs/devserver.md).

- ``GET /__pix3/page/<name>``: a module or stylesheet of the page (``pix3net/devserver/page``).
- ``GET /__pix3/api/scenes``: ``{"scenes": [project paths], "defaultScene": path | null}``.
- ``GET /__pix3/api/scene?path=<wire>[&saved=1][&draw=1]``: the scene's outline, exactly what
  `pix3 tree <scene> --json` prints; ``saved=1`` adds each node's mapping as the file has it
  (``saved``) and the scene's ``description``; ``draw=1`` adds what each node draws with
  (``draw``) and the design size (``viewport``): the 2D renderer's input (docs/tree.md, "Drawing
  data"). ``ETag`` is the SHA-256 of the bytes read.
- ``POST /__pix3/api/scene {path, text, saved?, draw?}``: the same for a text the page holds unsaved.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio
from quart import Response, request
from quart_trio import QuartTrio

from pix3net.devserver.files import parse_wire_path, query_value, resolve
from pix3net.devserver.http import NOT_FOUND, ApiError, Refusal, error_response, json_response, read_json
from pix3net.devserver.page import NOT_SERVED, page_folder

from ._guard import PREFIX

SCENE_SUFFIX = ".pix3scene"
MAIN_SCENE = "scenes/main.pix3scene"  # where the starters put the game; the page opens it first
# An unsaved scene text travels as JSON; 1 MiB (the other routes' limit) is a few thousand nodes.
MAX_SCENE_BODY = 32 * 1024 * 1024
_ASSET = re.compile(r"^[a-z][a-z0-9-]*\.(js|css)$")
_ASSET_TYPES = {"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8"}
NOT_A_SCENE = Refusal(400, "not_a_scene", "`path` must name a .pix3scene file.")
BAD_TEXT = Refusal(400, "bad_request", "`text` must be a string.")
BAD_SAVED = Refusal(400, "bad_request", "`saved` must be a boolean.")
BAD_DRAW = Refusal(400, "bad_request", "`draw` must be a boolean.")


def page_assets() -> dict[str, tuple[bytes, str, str]]:
    """Every servable file of the page: name → (bytes, content type, ETag), read once."""
    assets: dict[str, tuple[bytes, str, str]] = {}
    for entry in page_folder().iterdir():
        match = _ASSET.match(entry.name)
        if match and entry.is_file() and entry.name not in NOT_SERVED:
            data = entry.read_bytes()
            assets[entry.name] = (data, _ASSET_TYPES[match.group(1)], f'"{hashlib.sha256(data).hexdigest()[:32]}"')
    return assets


def project_path(value: str) -> str:
    """A `res://` or project-relative reference as a project path (the editor's rule)."""
    text = value[6:] if value[:6].lower() == "res://" else value
    text = text.replace("\\", "/")
    while text.startswith(("./", "/")):
        text = text[2:] if text.startswith("./") else text[1:]
    return text.rstrip("/")


def default_scene(scenes: list[str], manifest: Mapping[str, Any] | None) -> str | None:
    """`scenes/main.pix3scene` when it exists, else the manifest's default scene, else None."""
    if MAIN_SCENE in scenes:
        return MAIN_SCENE
    named = manifest.get("defaultExportScenePath") if manifest else None
    if isinstance(named, str) and project_path(named) in scenes:
        return project_path(named)
    return None


def scene_wire_path(value: object) -> str:
    wire = parse_wire_path(value)
    if not wire.endswith(SCENE_SUFFIX):
        raise NOT_A_SCENE.error()
    return wire


def read_outline(
    root: Path, wire: str, text: str | None, saved: bool, draw: bool = False
) -> tuple[dict[str, Any], str]:
    """The outline and the SHA-256 of what was read (worker thread: parsing takes a while)."""
    if text is None:
        kind, _ = resolve(str(root), wire)
        if kind != "file":
            raise ApiError(404, "not_found", f"{wire} is not a file.")
        raw = (root / wire).read_bytes()
    else:
        raw = text.encode("utf-8", "surrogatepass")
    from pix3tools.tree import SceneError, scene_outline  # on first use: not on the dev server's way up

    try:
        outline = scene_outline(root, wire, raw, saved=saved, draw=draw)
    except SceneError as exc:
        raise ApiError(422, "bad_scene", f"{wire} {exc}.", path=wire) from None
    return outline, hashlib.sha256(raw).hexdigest()


def _list(root: Path) -> dict[str, Any]:
    from pix3tools.project import load_manifest
    from pix3tools.tree import scene_files

    scenes = scene_files(root)
    manifest = load_manifest(root)
    data = manifest.data if manifest is not None and isinstance(manifest.data, dict) else None
    return {"scenes": scenes, "defaultScene": default_scene(scenes, data)}


def register_workbench_routes(app: QuartTrio, root: Path, home: Path | None = None) -> None:
    assets = page_assets()

    @app.route(PREFIX + "/api/agents", methods=["GET"])
    async def _agents() -> Response:
        # The header's agent count: the proxy of this PIX3_HOME asked with its token (a few
        # loopback requests, in a thread); no proxy → null and why (docs/editor.md, "Status").
        if home is None:
            return json_response(200, {"agents": None, "detail": "no PIX3_HOME"})
        from pix3net.clients.ownerstatus import StatusError, agent_count

        try:
            count = await trio.to_thread.run_sync(agent_count, home)
        except StatusError as exc:
            return json_response(200, {"agents": None, "detail": str(exc)})
        return json_response(200, {"agents": count})

    @app.route(PREFIX + "/page/<name>", methods=["GET"])
    async def _asset(name: str) -> Response:
        found = assets.get(name)
        if found is None:
            return error_response(NOT_FOUND)
        data, kind, etag = found
        headers = {"Content-Type": kind, "Cache-Control": "no-cache", "ETag": etag}
        if request.headers.get("If-None-Match") == etag:
            return Response(b"", status=304, headers=headers)
        return Response(b"" if request.method == "HEAD" else data, status=200, headers=headers)

    @app.route(PREFIX + "/api/scenes", methods=["GET"])
    async def _scenes() -> Response:
        return json_response(200, await trio.to_thread.run_sync(_list, root))

    @app.route(PREFIX + "/api/scene", methods=["GET", "POST"])
    async def _scene() -> Response:
        text: str | None = None
        if request.method == "POST":
            body = await read_json(MAX_SCENE_BODY)
            wire = scene_wire_path(body.get("path"))
            text = body.get("text")
            if not isinstance(text, str):
                raise BAD_TEXT.error()
            saved = body.get("saved", False)
            if not isinstance(saved, bool):
                raise BAD_SAVED.error()
            draw = body.get("draw", False)
            if not isinstance(draw, bool):
                raise BAD_DRAW.error()
        else:
            wire = scene_wire_path(query_value("path"))
            saved = query_value("saved") == "1"
            draw = query_value("draw") == "1"
        outline, sha = await trio.to_thread.run_sync(read_outline, root, wire, text, saved, draw)
        return json_response(200, outline, {"ETag": f'"{sha}"'})
