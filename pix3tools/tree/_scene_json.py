"""A scene's outline as JSON data: what `pix3 tree <scene> --json` prints, for any caller.

The dev server answers the editor page with it (docs/bridge.md, `pix3_scene`), from the file or
from a text the page holds; ``saved=True`` adds, per node, the node as the file has it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from pix3tools.core import PROJECT_FILE
from pix3tools.project import load_manifest
from pix3tools.tree._draw import draw_record, draw_viewport
from pix3tools.tree._outline import Node, OutlineOptions, Size, build_outline
from pix3tools.tree._paths import parse_scene, read_scene
from pix3tools.tree._render import node_json
from pix3tools.tree._text import is_number

__all__ = ["json_safe", "manifest_data", "scene_outline", "viewport_of"]


def manifest_data(root: Path) -> dict[str, Any] | None:
    """`pix3project.yaml` as a mapping; None without one, {} when it is not a YAML mapping."""
    if not (root / PROJECT_FILE).is_file():
        return None
    doc = load_manifest(root)
    return doc.data if doc is not None and isinstance(doc.data, dict) else {}


def viewport_of(manifest: dict[str, Any] | None) -> Size:
    """The design size the root nodes' layout resolves against (`viewportBaseSize`)."""
    size = manifest.get("viewportBaseSize") if manifest else None
    if isinstance(size, dict):
        w, h = size.get("width"), size.get("height")
        return (float(w) if is_number(w) else None, float(h) if is_number(h) else None)
    return (None, None)


def json_safe(value: Any) -> Any:
    """JSON.stringify writes NaN and ±Infinity (legal YAML: .nan, .inf) as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def _add_saved(node: Node, data: dict[str, Any]) -> None:
    data["saved"] = {key: value for key, value in node.raw.items() if key != "children"}
    for child, child_data in zip(node.children, data["children"], strict=True):
        _add_saved(child, child_data)


def _add_draw(node: Node, data: dict[str, Any]) -> None:
    data["draw"] = draw_record(node)
    for child, child_data in zip(node.children, data["children"], strict=True):
        _add_draw(child, child_data)


def scene_outline(
    root: Path, scene: str, text: str | bytes | None = None, *, saved: bool = False, draw: bool = False
) -> dict[str, Any]:
    """``{"scene": scene, "nodes": [...]}`` as `pix3 tree <scene> --json` gives it.

    ``scene`` is the project-relative path; ``text`` replaces the file's content when given.
    ``saved`` adds ``"saved"`` (the node's mapping minus ``children``) to every node and
    ``"description"`` (``metadata.description`` or None) to the answer. ``draw`` adds ``"draw"``
    (what the node draws with, docs/tree.md "Drawing data") to every node and ``"viewport"`` (the
    design size) to the answer. Raises SceneError.
    """
    doc = read_scene(root / scene) if text is None else parse_scene(text)
    viewport = viewport_of(manifest_data(root))
    nodes = build_outline(doc, root, viewport, OutlineOptions())
    data: dict[str, Any] = {"scene": scene, "nodes": [node_json(n) for n in nodes]}
    if draw:
        for node, node_data in zip(nodes, data["nodes"], strict=True):
            _add_draw(node, node_data)
        data["viewport"] = draw_viewport(viewport)
    if saved:
        for node, node_data in zip(nodes, data["nodes"], strict=True):
            _add_saved(node, node_data)
        metadata = doc.get("metadata")
        description = metadata.get("description") if isinstance(metadata, dict) else None
        data["description"] = description if isinstance(description, str) else None
    result: dict[str, Any] = json_safe(data)
    return result
