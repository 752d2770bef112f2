"""The character spec file: read, checked in the reference's order, frames measured
(docs/character-compile.md, "The spec file" and "Sequences"). Every refusal is a CharacterError with the reference's message."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pix3tools._js import is_number
from pix3tools.character._png import png_size_of_file
from pix3tools.character._scan import scan_frames, sequence_key

__all__ = ["CharacterError", "ClipSpec", "Frame", "Spec", "load_spec"]

TOP_KEYS = (
    "name",
    "slug",
    "anchor",
    "defaultVariant",
    "defaultState",
    "separator",
    "spriteDirectory",
    "prefabDirectory",
    "clips",
)
CLIP_KEYS = ("variant", "state", "fps", "loop", "frames", "sequence")


class CharacterError(Exception):
    """The spec cannot be compiled; ``str()`` is the one-line reason."""


@dataclass(frozen=True)
class Frame:
    path: str  # relative to the spec's folder, with "/" (may start with "../")
    file: Path
    width: int
    height: int


@dataclass
class ClipSpec:
    variant: str
    state: str
    fps: float | None
    loop: bool | None
    frames: list[Frame] = field(default_factory=list)


@dataclass
class Spec:
    name: str
    slug: str | None
    anchor: tuple[float, float]
    default_variant: str | None
    default_state: str | None
    separator: str | None
    sprite_directory: str | None
    prefab_directory: str | None
    clips: list[ClipSpec]
    warnings: list[str]


def _measure(where: str, given: str, file: Path, spec_dir: Path) -> Frame:
    if not file.is_file():
        raise CharacterError(f"{where}: {given} does not exist.")
    try:
        size = png_size_of_file(file)
    except OSError as exc:
        raise CharacterError(f"{where}: {given} cannot be read ({exc.strerror or exc}).") from None
    if size is None:
        raise CharacterError(f"{where}: {given} is not a PNG (frames must be PNG files).")
    stored = os.path.relpath(file, spec_dir).replace(os.sep, "/")
    return Frame(stored, file, size[0], size[1])


def _sequence(where: str, sequence: str, spec_dir: Path, warnings: list[str]) -> list[Frame]:
    key = sequence_key(sequence)
    folder, slash, _ = key.rpartition("/")
    directory = spec_dir / folder if slash else spec_dir
    if not directory.is_dir():
        raise CharacterError(f"{where}: folder {folder if slash else '.'} does not exist.")
    names = [n for n in os.listdir(directory) if n.lower().endswith(".png")]
    scan = scan_frames([f"{folder}/{n}" if slash else n for n in names])
    group = scan.group(key)
    if group is None:
        there = ", ".join(g.key for g in scan.groups) or "none"
        raise CharacterError(f"{where}: no numbered PNGs {key}<n>.png (sequences there: {there}).")
    if group.duplicates:
        numbers = ", ".join(str(n) for n in group.duplicates)
        raise CharacterError(f"{where}: {key} has frame number(s) {numbers} more than once — rename one.")
    if group.gaps:
        warnings.append(f"{where}: {key} skips frame number(s) {', '.join(str(n) for n in group.gaps)}.")
    return [_measure(where, path, spec_dir / path, spec_dir) for path in group.paths]


def _clip(index: int, raw: object, spec_dir: Path, warnings: list[str]) -> ClipSpec:
    where = f"clips[{index}]"
    if not isinstance(raw, dict):
        raise CharacterError(f"{where} must be a mapping.")
    unknown = [str(k) for k in raw if k not in CLIP_KEYS]
    if unknown:
        raise CharacterError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(CLIP_KEYS)}).")
    state = raw.get("state")
    if state is not None and not isinstance(state, str):
        raise CharacterError(f"{where}.state must be a string.")
    if state is None or not state.strip():
        raise CharacterError(f"{where}.state is required.")
    variant = raw.get("variant", "")
    if variant is None:
        variant = ""
    if not isinstance(variant, str):
        raise CharacterError(f"{where}.variant must be a string.")
    fps = raw.get("fps")
    if fps is not None and not is_number(fps):
        raise CharacterError(f"{where}.fps must be a number.")
    loop = raw.get("loop")
    if loop is not None and not isinstance(loop, bool):
        raise CharacterError(f"{where}.loop must be true or false.")
    if ("frames" in raw) == ("sequence" in raw):
        raise CharacterError(f"{where}: give exactly one of frames (a list) or sequence.")
    clip = ClipSpec(variant, state, fps, loop)
    if "frames" in raw:
        frames = raw["frames"]
        if not isinstance(frames, list) or not all(isinstance(f, str) for f in frames):
            raise CharacterError(f"{where}.frames must be a list of paths.")
        clip.frames = [_measure(where, f, spec_dir / f.replace("\\", "/"), spec_dir) for f in frames]
    else:
        sequence = raw["sequence"]
        if not isinstance(sequence, str):
            raise CharacterError(f"{where}.sequence must be a string.")
        clip.frames = _sequence(where, sequence, spec_dir, warnings)
    return clip


def _optional_string(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise CharacterError(f"{key} must be a string.")
    return value


def load_spec(spec_file: Path) -> Spec:
    """Read and check ``spec_file`` (YAML; JSON is YAML too)."""
    from pix3tools.scene import YamlError, parse_yaml

    try:
        text = spec_file.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise CharacterError(f"{spec_file}: cannot be read ({exc.strerror or exc}).") from None
    except UnicodeDecodeError:
        raise CharacterError(f"{spec_file}: the file is not UTF-8 text.") from None
    try:
        data = parse_yaml(text).data
    except YamlError as exc:
        where = f" at line {exc.line}" if exc.line else ""
        raise CharacterError(f"{spec_file}: {exc.message}{where}") from None
    if not isinstance(data, dict):
        raise CharacterError(f"{spec_file}: expected a mapping.")
    unknown = [str(k) for k in data if k not in TOP_KEYS]
    if unknown:
        raise CharacterError(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(TOP_KEYS)}).")
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise CharacterError("name must be a string.")
    if name is None or not name.strip():
        raise CharacterError("name is required.")
    slug = _optional_string(data, "slug")
    anchor = (0.5, 0.5)
    if "anchor" in data:
        raw_anchor = data["anchor"]
        if not (isinstance(raw_anchor, dict) and is_number(raw_anchor.get("x")) and is_number(raw_anchor.get("y"))):
            raise CharacterError("anchor must be { x: <number>, y: <number> }.")
        anchor = (raw_anchor["x"], raw_anchor["y"])
    clips = data.get("clips")
    if not isinstance(clips, list) or not clips:
        raise CharacterError("clips must be a non-empty list.")
    warnings: list[str] = []
    spec_dir = spec_file.parent
    parsed = [_clip(i, raw, spec_dir, warnings) for i, raw in enumerate(clips)]
    return Spec(
        name=name,
        slug=slug,
        anchor=anchor,
        default_variant=_optional_string(data, "defaultVariant"),
        default_state=_optional_string(data, "defaultState"),
        separator=_optional_string(data, "separator"),
        sprite_directory=_optional_string(data, "spriteDirectory"),
        prefab_directory=_optional_string(data, "prefabDirectory"),
        clips=parsed,
        warnings=warnings,
    )
