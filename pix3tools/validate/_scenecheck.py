"""One scene's level-1 check in progress: what it found so far, and the rules every part of a
scene shares — resource references, the string walk (``res://`` strings, emoji used as art),
the locale keys it collects. The rules themselves are in ``_nodes``, ``_components`` and
``_instances`` (docs/validate.md, "What level 1 checks")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pix3tools.project import project_path
from pix3tools.scene import Document, PathSeg
from pix3tools.validate._context import ValidateProject
from pix3tools.validate._emoji import is_emoji_only
from pix3tools.validate._keys import KeyUse
from pix3tools.validate._report import Diagnostic

__all__ = ["TEXT_KEYS", "Path_", "SceneCheck", "SceneResult", "worth_a_look"]

Path_ = tuple[PathSeg, ...]

# Keys whose string values are shown as text: an emoji-only value there is a picture standing in
# for art (E_EMOJI_AS_ART).
TEXT_KEYS = frozenset({"label", "text", "placeholder", "title", "caption", "buttonText", "labelText", "content"})


@dataclass
class SceneResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    references: set[str] = field(default_factory=set)
    key_uses: list[KeyUse] = field(default_factory=list)
    uses_user: bool = False


class SceneCheck:
    """The state of one scene's check: the output, ids seen, the node being checked, the
    references already checked (so the string walk does not report them twice)."""

    def __init__(self, project: ValidateProject, rel: str, doc: Document) -> None:
        self.project = project
        self.rel = rel
        self.doc = doc
        self.out = SceneResult()
        self.ids: dict[str, Path_] = {}
        self.node_id: str | None = None
        self.checked: set[Path_] = set()
        self.svg_seen: set[str] = set()

    def emit(self, code: str, path: Path_, message: str, fix: str | None = None) -> None:
        self.out.diagnostics.append(
            Diagnostic(code, self.rel, message, node_id=self.node_id, path=tuple(path), fix=fix, doc=self.doc)
        )

    # -- resources --------------------------------------------------------------------------------
    def resource_value(self, kind: str, value: Any, at: Path_) -> None:
        """Resource-typed values are references even without ``res://``."""
        if kind not in ("texture", "resource"):
            return
        if isinstance(value, str):
            self.reference(value, at)
        elif kind == "texture" and isinstance(value, dict) and isinstance(value.get("url"), str):
            self.reference(value["url"], (*at, "url"))

    def reference(self, value: str, at: Path_) -> bool:
        """Check one reference; True when it names an existing project file."""
        self.checked.add(at)
        rel = project_path(value)
        if rel is None:
            return True
        self.out.references.add(rel)
        files = self.project.files
        if not files.exists(rel):
            self.emit("E_MISSING_RESOURCE", at, f"{value} does not exist in the project.", self.project.case_fix(rel))
            return False
        if rel.lower().endswith(".svg") and rel not in self.svg_seen:
            self.svg_seen.add(rel)
            for finding in self.project.svg(rel):
                self.emit(finding.code, at, f"{value}: {finding.message}", finding.fix)
        return True

    def walk_strings(self, value: Any, at: Path_, key: str | None) -> None:
        """Every string under ``value``: ``res://`` references not checked yet, emoji-only texts."""
        for path, text, near in _strings(value, at, key):
            if text[:6].lower() == "res://" and path not in self.checked:
                self.reference(text, path)
            if near in TEXT_KEYS and is_emoji_only(text):
                self.emit(
                    "E_EMOJI_AS_ART",
                    path,
                    f"{near} is {text.strip()} — nothing but emoji, i.e. a picture standing in for art. Emoji draw"
                    " differently on every device and font.",
                    "use a Sprite2D with a generated sprite (or a ColorRect2D placeholder); an emoji inside a"
                    " sentence is fine",
                )


def worth_a_look(value: Any, near: str | None) -> bool:
    """Whether the string walk (``walk_strings(value, …, near)``) finds anything under ``value``:
    the same rules without building paths, for the values most scenes hold (numbers, vectors,
    enum words) that have nothing for it."""
    kind = type(value)
    if kind is str:
        return _wanted(value, near)
    if kind is dict:
        for k, v in value.items():
            sub = type(v)
            if sub is str:
                if (v[:1] in "rR" and v[:6].lower() == "res://") or (k in TEXT_KEYS and not v.isascii()):
                    return True
            elif (sub is dict or sub is list) and worth_a_look(v, str(k)):
                return True
        return False
    if kind is list:
        for v in value:
            sub = type(v)
            if sub is str:
                if _wanted(v, near):
                    return True
            elif (sub is dict or sub is list) and worth_a_look(v, near):
                return True
    return False


def _wanted(text: str, near: str | None) -> bool:
    return (text[:1] in "rR" and text[:6].lower() == "res://") or (near in TEXT_KEYS and not text.isascii())


def _strings(value: Any, at: Path_, key: str | None) -> list[tuple[Path_, str, str | None]]:
    """The strings worth a look (a ``res://`` reference, or non-ASCII text under a text key), in
    document order. Paths are built only for those: this walk sees every value of every scene, so
    the items of a list are looked at in place (most lists are vectors of numbers)."""
    found: list[tuple[Path_, str, str | None]] = []
    trail: list[PathSeg] = list(at)

    def in_list(items: list[Any], near: str | None) -> None:
        for i, v in enumerate(items):
            kind = type(v)
            if kind is str:
                if _wanted(v, near):
                    found.append(((*trail, i), v, near))
            elif kind is dict:
                trail.append(i)
                in_dict(v)
                trail.pop()
            elif kind is list:
                trail.append(i)
                in_list(v, near)
                trail.pop()

    def in_dict(item: dict[Any, Any]) -> None:
        for k, v in item.items():
            kind = type(v)
            if kind is str:
                if (v[:1] in "rR" and v[:6].lower() == "res://") or (k in TEXT_KEYS and not v.isascii()):
                    found.append(((*trail, k), v, str(k)))
            elif kind is dict:
                trail.append(k)
                in_dict(v)
                trail.pop()
            elif kind is list:
                for x in v:
                    if type(x) is str or type(x) is dict or type(x) is list:
                        trail.append(k)
                        in_list(v, str(k))
                        trail.pop()
                        break

    kind = type(value)
    if kind is str:
        if _wanted(value, key):
            found.append((tuple(trail), value, key))
    elif kind is dict:
        in_dict(value)
    elif kind is list:
        in_list(value, key)
    return found
