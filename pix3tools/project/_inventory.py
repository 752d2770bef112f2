"""The project's files: the inventory (one walk), ``res://`` references as project paths, text."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

from pix3tools.core.walk import code_unit_key, sort_paths

__all__ = ["ProjectFiles", "code_unit_key", "project_path", "read_text", "sort_paths"]

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
# Scenes name the same few files over and over (every sprite's texture): normalise each once.
_PATHS: dict[str, str | None] = {}
_PATHS_MAX = 4096


def project_path(reference: str) -> str | None:
    """A reference (``res://a/b.png``, ``a/b.png``, ``./a/../b.png``…) as a project path (``a/b.png``),
    or None when it is not a project file: another URI scheme, above the root, or empty
    (docs/project-model.md, "References")."""
    try:
        return _PATHS[reference]
    except KeyError:
        pass
    found = _normalise(reference)
    if len(_PATHS) < _PATHS_MAX:
        _PATHS[reference] = found
    return found


def _normalise(reference: str) -> str | None:
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


class ProjectFiles:
    """The project inventory: every file under the root that the walk's ``INVENTORY`` rules reach
    (relative, ``/``-separated, code-unit order), walked once, with a case-folded index for
    "the file is … (case differs)" hints.

    Listed: every entry that is not a folder, so a link to a file (or a dangling link) is a project
    file, read through the link; a link to a folder is neither listed nor entered.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        # Imported here: reading one scene (pix3 tree <scene>) never walks, and pays nothing for it.
        from pix3tools.core.walk import INVENTORY, walk_files

        self.files: list[str] = sort_paths(walk_files(root, INVENTORY))
        self.set: frozenset[str] = frozenset(self.files)
        self._folded: dict[str, str] | None = None
        self._scenes: list[str] | None = None

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

    @property
    def scenes(self) -> list[str]:
        """Every ``.pix3scene`` (the suffix compared case-sensitively), in code-unit order."""
        if self._scenes is None:
            self._scenes = self.with_suffix(".pix3scene")
        return self._scenes


def read_text(path: Path, limit: int | None = None) -> str | None:
    """A file's text (UTF-8, BOM stripped, undecodable bytes replaced); None when unreadable."""
    try:
        with path.open("rb") as handle:
            raw = handle.read() if limit is None else handle.read(limit)
    except OSError:
        return None
    text = raw.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text
