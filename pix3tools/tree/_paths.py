"""Project paths: `res://` references, the scene walk, reading a scene file."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pix3tools.tree._yaml import YamlError, load_yaml

__all__ = ["SceneError", "project_path", "read_scene", "scene_files"]

# Folders the reference never walks into (spec/validate.md §1.1).
IGNORED_DIRS = frozenset({"node_modules", ".yalc", ".git", ".pix3", "dist", ".vite", ".cache"})
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class SceneError(Exception):
    """A scene that cannot be outlined; ``str()`` is the reason without the path."""


def project_path(reference: str) -> str | None:
    """A `res://`, bare or `/`-rooted reference as a project-relative path (None: not a file of
    the project: another URI scheme, or above the root)."""
    text = reference.strip()
    if text[:6].lower() == "res://":
        text = text[6:]
    elif _SCHEME.match(text):
        return None
    text = re.split(r"[?#]", text, maxsplit=1)[0].replace("\\", "/")
    parts: list[str] = []
    for segment in text.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(unquote(segment))
    return "/".join(parts) if parts else None


def read_scene(path: Path) -> dict[str, Any]:
    """The scene document; raises SceneError when it is not YAML or has no `root:` list."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SceneError(f"cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SceneError("is not valid YAML: the file is not UTF-8 text") from None
    try:
        doc = load_yaml(text)
    except YamlError as exc:
        raise SceneError(f"is not valid YAML: {str(exc).rstrip('.')}") from None
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
