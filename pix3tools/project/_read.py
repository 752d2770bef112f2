"""Reading a project's YAML files: a scene (``load_scene``) and the manifest (``load_manifest``).

One reader for every tool, so a file that validate calls binary or too large is the same file
tree cannot outline, and ``pix3project.yaml`` is parsed the same way by validate, tree, check
and kit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pix3tools.core import PROJECT_FILE
from pix3tools.project._inventory import read_text
from pix3tools.scene import Document, YamlError, parse_yaml

__all__ = ["MAX_SCENE_BYTES", "SceneLoad", "load_manifest", "load_scene", "scene_from_bytes"]

# A scene larger than this is not something the editor writes; parsing it would only hold memory.
MAX_SCENE_BYTES = 64 * 1024 * 1024
# A NUL byte in the first block: an image or an archive named like a scene, not YAML text.
_BINARY_PROBE = 8192


@dataclass
class SceneLoad:
    """One scene file read and parsed, or why not.

    ``raw`` is None when the file is missing or cannot be read (``unreadable`` then says why,
    as the system does); ``error`` is set when the bytes are not one YAML document.
    """

    raw: bytes | None
    doc: Document | None
    error: YamlError | None = None
    unreadable: str | None = None
    too_large: int | None = None  # the size, when over MAX_SCENE_BYTES (the bytes are not read)

    @property
    def problem(self) -> str | None:
        """The reason in words when there is no document (None: missing, or fine)."""
        if self.unreadable is not None:
            return f"the file cannot be read ({self.unreadable})"
        return self.error.message if self.error is not None else None


def load_scene(path: Path) -> SceneLoad:
    """Read and parse one scene file (nothing is cached here)."""
    try:
        size = path.stat().st_size
        if size > MAX_SCENE_BYTES:
            message = f"the file is {size} bytes, over the {MAX_SCENE_BYTES}-byte limit"
            return SceneLoad(b"", None, YamlError(message, None), too_large=size)
        raw = path.read_bytes()
    except FileNotFoundError:
        return SceneLoad(None, None)
    except OSError as exc:  # a permission, a symlink loop, a folder named like a scene
        return SceneLoad(None, None, unreadable=str(exc.strerror or exc))
    return scene_from_bytes(raw)


def scene_from_bytes(raw: bytes) -> SceneLoad:
    """Parse a scene's bytes (a file's, or a text an editor holds) the way ``load_scene`` does."""
    if len(raw) > MAX_SCENE_BYTES:
        message = f"the file is {len(raw)} bytes, over the {MAX_SCENE_BYTES}-byte limit"
        return SceneLoad(b"", None, YamlError(message, None), too_large=len(raw))
    if b"\x00" in raw[:_BINARY_PROBE]:
        return SceneLoad(raw, None, YamlError("the file is binary (it holds NUL bytes), not YAML text", None))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return SceneLoad(raw, None, YamlError("the file is not UTF-8 text", raw[: exc.start].count(b"\n") + 1))
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return SceneLoad(raw, parse_yaml(text))
    except YamlError as exc:
        return SceneLoad(raw, None, exc)
    except RecursionError:
        return SceneLoad(raw, None, YamlError("the file nests too deeply", None))


def load_manifest(root: Path) -> Document | None:
    """``pix3project.yaml`` parsed (lines on demand); None when absent, unreadable or not YAML."""
    text = read_text(root / PROJECT_FILE)
    if text is None:
        return None
    try:
        return parse_yaml(text)
    except (YamlError, RecursionError):
        return None
