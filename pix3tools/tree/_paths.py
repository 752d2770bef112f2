"""Reading scenes for the outline, through the project model (pix3tools.project)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pix3tools.project import MAX_SCENE_BYTES, ProjectFiles, SceneLoad, load_scene, scene_from_bytes

__all__ = ["SceneError", "parse_scene", "read_scene", "scene_files", "scene_of"]


class SceneError(Exception):
    """A scene that cannot be outlined; ``str()`` is the reason without the path (one line), and
    ``excerpt`` the line to fix with a caret under the place, when the YAML did not parse."""

    def __init__(self, reason: str, excerpt: str | None = None) -> None:
        super().__init__(reason)
        self.excerpt = excerpt


def scene_of(load: SceneLoad) -> dict[str, Any]:
    """The scene document of a read; raises SceneError when it is not YAML or has no `root:` list."""
    if load.unreadable is not None or load.raw is None:
        raise SceneError(f"cannot be read ({load.unreadable or 'no such file'})")
    if load.too_large is not None:
        raise SceneError(f"is too large: {load.too_large} bytes, over the {MAX_SCENE_BYTES}-byte limit")
    if load.doc is None:
        error = load.error
        message = error.message.rstrip(".") if error is not None else "unreadable"
        where = f" at line {error.line}" if error is not None and error.line else ""
        raise SceneError(f"is not valid YAML: {message}{where}", error.excerpt if error is not None else None)
    data = load.doc.data
    if not isinstance(data, dict) or not isinstance(data.get("root"), list):
        raise SceneError("is not a .pix3scene (no `root:` list)")
    return data


def read_scene(path: Path) -> dict[str, Any]:
    """The scene document at ``path``; raises SceneError when it cannot be outlined."""
    return scene_of(load_scene(path))


def parse_scene(raw: bytes | str) -> dict[str, Any]:
    """A scene document from its bytes (or text); raises SceneError as ``read_scene`` does."""
    return scene_of(scene_from_bytes(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw))


def scene_files(root: Path) -> list[str]:
    """Every `.pix3scene` of the project (the inventory's), project-relative, in code-unit order."""
    return ProjectFiles(root).scenes
