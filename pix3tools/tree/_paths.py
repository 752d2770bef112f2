"""Reading scenes for the outline, through the scene model (pix3tools.scene)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pix3tools.scene import IGNORED_DIRS, YamlError, parse_yaml, project_path

__all__ = ["IGNORED_DIRS", "SceneError", "parse_scene", "project_path", "read_scene", "scene_files"]


class SceneError(Exception):
    """A scene that cannot be outlined; ``str()`` is the reason without the path."""


def read_scene(path: Path) -> dict[str, Any]:
    """The scene document; raises SceneError when it is not YAML or has no `root:` list."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SceneError(f"cannot be read ({exc.strerror or exc})") from None
    return parse_scene(raw)


def parse_scene(raw: bytes | str) -> dict[str, Any]:
    """A scene document from its bytes (or text); raises SceneError as ``read_scene`` does."""
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw.removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise SceneError("is not valid YAML: the file is not UTF-8 text") from None
    try:
        doc = parse_yaml(text).data
    except YamlError as exc:
        where = f" at line {exc.line}" if exc.line else ""
        raise SceneError(f"is not valid YAML: {exc.message.rstrip('.')}{where}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("root"), list):
        raise SceneError("is not a .pix3scene (no `root:` list)")
    return doc


def scene_files(root: Path) -> list[str]:
    """Every `.pix3scene` of the project, project-relative with `/`, in code-unit order."""
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in IGNORED_DIRS]
        rel = os.path.relpath(folder, root)
        for name in files:
            if name.endswith(".pix3scene"):
                found.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return sorted(found)
