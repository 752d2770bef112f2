"""The project on disk: ``res://`` paths, the walked file list, the manifest, scene nodes."""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pix3tools.scene._yaml import Document, PathSeg, YamlError, parse_yaml

__all__ = [
    "IGNORED_DIRS",
    "MANIFEST",
    "NodeRef",
    "ProjectFiles",
    "format_path",
    "iter_nodes",
    "load_manifest",
    "project_path",
    "read_text",
]

MANIFEST = "pix3project.yaml"
# Folders the reference's file walk never enters (spec/validate.md §1.1).
IGNORED_DIRS = frozenset({"node_modules", ".yalc", ".git", ".pix3", "dist", ".vite", ".cache"})
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def project_path(reference: str) -> str | None:
    """Normalise an asset reference to a project-relative path (``a/b.png``), or None when it is
    not a project file (another URI scheme, or above the root)."""
    ref = reference.strip()
    if ref[:6].lower() == "res://":
        ref = ref[6:]
    elif _SCHEME.match(ref):
        return None
    ref = ref.split("?", 1)[0].split("#", 1)[0].replace("\\", "/")
    parts: list[str] = []
    for segment in ref.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                return None
            parts.pop()
            continue
        try:
            parts.append(urllib.parse.unquote(segment, errors="strict"))
        except UnicodeDecodeError:
            parts.append(segment)
    return "/".join(parts) if parts else None


def format_path(path: Sequence[PathSeg]) -> str:
    """``root[0].children[1].properties.width``; the empty path is ``""``."""
    out = ""
    for seg in path:
        if isinstance(seg, int):
            out += f"[{seg}]"
        else:
            out += f".{seg}" if out else str(seg)
    return out


class ProjectFiles:
    """Every file of the project (relative, ``/``-separated), walked once, with a case-folded index
    for "the file is … (case differs)" hints. Symlinks are listed but never followed as folders."""

    def __init__(self, root: Path) -> None:
        self.root = root
        files: list[str] = []
        for folder, dirs, names in os.walk(root, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS)
            rel = os.path.relpath(folder, root)
            prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            files.extend(prefix + name for name in names)
        files.sort()
        self.files: list[str] = files
        self.set: frozenset[str] = frozenset(files)
        self._folded: dict[str, str] | None = None

    def exists(self, rel: str) -> bool:
        return rel in self.set

    def case_match(self, rel: str) -> str | None:
        """The existing file whose path equals ``rel`` ignoring case, if any."""
        if self._folded is None:
            self._folded = {}
            for name in self.files:
                self._folded.setdefault(name.lower(), name)
        return self._folded.get(rel.lower())

    def with_suffix(self, suffix: str) -> list[str]:
        return [f for f in self.files if f.endswith(suffix)]


def read_text(path: Path, limit: int | None = None) -> str | None:
    """A file's text (UTF-8, BOM stripped, undecodable bytes replaced); None when unreadable."""
    try:
        with path.open("rb") as handle:
            raw = handle.read() if limit is None else handle.read(limit)
    except OSError:
        return None
    text = raw.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def load_manifest(root: Path) -> Document | None:
    """``pix3project.yaml`` parsed with lines on demand; None when absent or not YAML."""
    text = read_text(root / MANIFEST)
    if text is None:
        return None
    try:
        return parse_yaml(text)
    except YamlError:
        return None


@dataclass(frozen=True)
class NodeRef:
    """One node mapping of a scene: its document path, depth, and the node's data."""

    path: tuple[PathSeg, ...]
    depth: int
    node: dict[str, Any]
    parent: NodeRef | None

    @property
    def id(self) -> str | None:
        value = self.node.get("id")
        return value if isinstance(value, str) and value.strip() else None


def iter_nodes(data: Any) -> Iterator[NodeRef]:
    """Every node mapping under ``root:`` depth-first, children of instance nodes excluded."""
    if not isinstance(data, dict) or not isinstance(data.get("root"), list):
        return

    def walk(items: list[Any], base: tuple[PathSeg, ...], depth: int, parent: NodeRef | None) -> Iterator[NodeRef]:
        for index, node in enumerate(items):
            if not isinstance(node, dict):
                continue
            ref = NodeRef((*base, index), depth, node, parent)
            yield ref
            children = node.get("children")
            if "instance" not in node and isinstance(children, list):
                yield from walk(children, (*ref.path, "children"), depth + 1, ref)

    yield from walk(data["root"], ("root",), 0, None)
