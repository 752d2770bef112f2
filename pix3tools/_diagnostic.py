"""One finding of `pix3 validate` or `pix3 check`: the one diagnostic type both report with
(docs/validate.md, "Output"; docs/check.md, "The report").

Stdlib only and no ``dataclasses``: `pix3 check` builds diagnostics before tsc starts, where
nothing may load more than it needs (docs/check.md, "Speed").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

__all__ = ["Diagnostic", "LineFinder", "PathSeg", "format_path", "severity_of"]

PathSeg = str | int

# The one diagnostic the reference writes with its code first (docs/check.md, "The report").
_CODE_FIRST = "E_EDITOR_UNSYNCED"


def format_path(path: Sequence[PathSeg]) -> str:
    """``root[0].children[1].properties.width``; the empty path is ``""``."""
    out = ""
    for seg in path:
        if isinstance(seg, int):
            out += f"[{seg}]"
        else:
            out += f".{seg}" if out else str(seg)
    return out


def severity_of(code: str) -> str:
    """A code starting ``W_`` is a warning, any other an error."""
    return "warning" if code.startswith("W_") else "error"


class LineFinder(Protocol):
    """What a diagnostic asks for its line: a parsed document (``pix3tools.scene.Document``)."""

    def line_of(self, path: Sequence[PathSeg]) -> int | None: ...


class Diagnostic:
    """One finding. ``path`` is the document path (None when the diagnostic has none); the line
    is looked up from ``doc`` lazily when not given."""

    __slots__ = ("code", "doc", "file", "fix", "line", "message", "node_id", "path")

    def __init__(
        self,
        code: str,
        file: str,
        message: str,
        node_id: str | None = None,
        path: tuple[PathSeg, ...] | None = None,
        line: int | None = None,
        fix: str | None = None,
        doc: LineFinder | None = None,
    ) -> None:
        self.code = code
        self.file = file
        self.message = message
        self.node_id = node_id
        self.path = path
        self.line = line
        self.fix = fix
        self.doc = doc

    def _fields(self) -> tuple[Any, ...]:
        return (self.code, self.file, self.message, self.node_id, self.path, self.line, self.fix)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Diagnostic) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable (the line is resolved late), as a dataclass is

    def __repr__(self) -> str:
        names = ("code", "file", "message", "node_id", "path", "line", "fix")
        return "Diagnostic(" + ", ".join(f"{n}={v!r}" for n, v in zip(names, self._fields(), strict=True)) + ")"

    @property
    def severity(self) -> str:
        return severity_of(self.code)

    @property
    def path_text(self) -> str | None:
        return None if self.path is None else format_path(self.path)

    def resolve_line(self) -> None:
        if self.line is None and self.doc is not None and self.path is not None:
            self.line = self.doc.line_of(self.path)
        self.doc = None

    def to_json(self, *, located_first: bool = False) -> dict[str, Any]:
        """Validate's order, ``{severity, code, file, message, nodeId?, path?, line?, fix?}``; with
        ``located_first`` check's own order, ``{severity, code, file, line?, path?, message, fix?}``
        (docs/check.md, "The report"). The reference writes ``E_EDITOR_UNSYNCED`` code first."""
        if self.code == _CODE_FIRST:
            out: dict[str, Any] = {"code": self.code, "severity": self.severity}
        else:
            out = {"severity": self.severity, "code": self.code}
        out["file"] = self.file
        if not located_first:
            out["message"] = self.message
        if self.node_id is not None:
            out["nodeId"] = self.node_id
        if located_first and self.line is not None:
            out["line"] = self.line
        if self.path is not None:
            out["path"] = self.path_text
        if not located_first and self.line is not None:
            out["line"] = self.line
        if located_first:
            out["message"] = self.message
        if self.fix is not None:
            out["fix"] = self.fix
        return out
