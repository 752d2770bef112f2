"""What one validate run knows about the project: files, parsed scenes, SVG findings, scripts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pix3tools.scene import Document, ProjectFiles, YamlError, parse_yaml, read_text
from pix3tools.validate._scripts import ScriptIndex, scan_scripts
from pix3tools.validate._svg import SvgFinding, inspect_svg

__all__ = ["MAX_SCENE_BYTES", "Project", "SceneLoad"]

# A scene larger than this is not something the editor writes; parsing it would only hold memory.
MAX_SCENE_BYTES = 64 * 1024 * 1024


@dataclass
class SceneLoad:
    """One scene file read and parsed (or why not)."""

    raw: bytes | None  # None: missing or unreadable
    doc: Document | None
    error: YamlError | None
    problem: str | None = None  # unreadable / binary / too large: said in E_YAML's message


@dataclass
class Project:
    root: Path
    files: ProjectFiles
    _scenes: dict[str, SceneLoad] = field(default_factory=dict)
    _svg: dict[str, list[SvgFinding]] = field(default_factory=dict)
    _scripts: ScriptIndex | None = None

    @classmethod
    def open(cls, root: Path) -> Project:
        return cls(root=root, files=ProjectFiles(root))

    @property
    def scripts(self) -> ScriptIndex:
        if self._scripts is None:
            self._scripts = scan_scripts(self.files)
        return self._scripts

    def scene(self, rel: str) -> SceneLoad:
        """A scene other scenes instance (cached for the run)."""
        cached = self._scenes.get(rel)
        if cached is None:
            cached = self.load(rel)
            if cached.doc is not None:
                cached.doc.text = ""  # only the data is needed for prefab lookups
            cached.raw = None
            self._scenes[rel] = cached
        return cached

    def load(self, rel: str) -> SceneLoad:
        """Read and parse one scene (not cached: validated scenes are dropped after their check)."""
        path = self.root / rel
        try:
            size = path.stat().st_size
            if size > MAX_SCENE_BYTES:
                return SceneLoad(
                    b"", None, YamlError(f"the file is {size} bytes, over the {MAX_SCENE_BYTES}-byte limit", None)
                )
            raw = path.read_bytes()
        except FileNotFoundError:
            return SceneLoad(None, None, None)
        except OSError as exc:  # a permission, a symlink loop, a folder named like a scene
            return SceneLoad(None, None, YamlError(f"the file cannot be read ({exc.strerror or exc})", None))
        if b"\x00" in raw[:8192]:
            return SceneLoad(raw, None, YamlError("the file is binary (it holds NUL bytes), not YAML text", None))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            return SceneLoad(raw, None, YamlError("the file is not UTF-8 text", line))
        if text.startswith("\ufeff"):
            text = text[1:]
        try:
            return SceneLoad(raw, parse_yaml(text), None)
        except YamlError as exc:
            return SceneLoad(raw, None, exc)
        except RecursionError:
            return SceneLoad(raw, None, YamlError("the file nests too deeply", None))

    def scene_data(self, rel: str) -> Any:
        """Parsed data of a scene, or None when it is missing or does not parse."""
        load = self.scene(rel)
        return load.doc.data if load.doc is not None else None

    def svg(self, rel: str) -> list[SvgFinding]:
        cached = self._svg.get(rel)
        if cached is None:
            cached = inspect_svg(read_text(self.root / rel) or "")
            self._svg[rel] = cached
        return cached
