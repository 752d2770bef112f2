"""Spec → the files to write: the `.pix3anim`, the prefab, the frames (docs/character-compile.md,
"Compile rules" and "Outputs").

Deterministic: no timestamps, ids or randomness; the same spec and frames give the same bytes.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from pix3tools._js import plain_number
from pix3tools.character._prefab import prefab_yaml
from pix3tools.character._spec import CharacterError, Frame, Spec

__all__ = ["ClipPlan", "Plan", "PlannedFile", "clip_file_prefix", "compile_spec", "default_loop", "slugify"]

DEFAULT_FPS = 12
ONCE_STATES = frozenset({"attack", "die", "death", "hit", "hurt"})  # loop: false by default
_SLUG_RUN = re.compile(r"[^a-z0-9]+")
_PLAIN_FOLDER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_FILE_NAME_RUN = re.compile(r'[\\/:*?"<>|]+')


@dataclass(frozen=True)
class PlannedFile:
    path: str  # project-relative, "/"
    kind: str  # "animation" | "prefab" | "frame"
    data: bytes


@dataclass(frozen=True)
class ClipPlan:
    name: str
    frames: int
    fps: float
    loop: bool


@dataclass(frozen=True)
class Plan:
    name: str
    slug: str
    animation_path: str
    prefab_path: str
    clips: list[ClipPlan]
    warnings: list[str]
    files: list[PlannedFile]


def slugify(name: str) -> str:
    """``Goblin Scout`` → ``goblin-scout``."""
    return _SLUG_RUN.sub("-", name.strip().lower()).strip("-")


def clip_file_prefix(clip_name: str) -> str:
    """The editor's sanitiser: ``sword.idle`` → ``sword_idle``, ``...`` → ``frame``."""
    return re.sub(r"[^a-z0-9]+", "_", clip_name.strip().lower()).strip("_") or "frame"


def default_loop(state: str) -> bool:
    return state.strip().lower() not in ONCE_STATES


def _folder(value: str | None, default: str) -> str:
    folder = (default if value is None else value).replace("\\", "/").strip("/")
    if any(segment in ("..", ".") for segment in folder.split("/")):
        raise CharacterError(f'"{folder}" must be a path inside the project.')
    return folder


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _extension(frame: Frame) -> str:
    name = frame.path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot + 1 :].lower() if dot > 0 and dot < len(name) - 1 else "png"


def _frame_json(anchor: tuple[float, float], target: str, frame: Frame) -> dict[str, Any]:
    return {
        "textureIndex": 0,
        "offset": {"x": 0, "y": 0},
        "repeat": {"x": 1, "y": 1},
        "durationMultiplier": 1,
        "anchor": {"x": plain_number(anchor[0]), "y": plain_number(anchor[1])},
        "texturePath": f"res://{target}",
        "boundingBox": {"x": 0, "y": 0, "width": frame.width, "height": frame.height},
        "collisionPolygon": [],
        "events": [],
        "sourceSize": {"width": frame.width, "height": frame.height},
        "points": [],
    }


def compile_spec(spec: Spec) -> Plan:
    name = spec.name.strip()
    slug = (spec.slug if spec.slug is not None else slugify(spec.name)).strip()
    if not name or not slug:
        raise CharacterError("name and slug are required.")
    if not _PLAIN_FOLDER.match(slug):
        raise CharacterError(f'slug "{slug}" must be a plain folder name.')
    if not spec.clips:
        raise CharacterError("a character needs at least one clip.")
    separator = spec.separator or "."
    sprite_dir = _folder(spec.sprite_directory, "sprites")
    prefab_dir = _folder(spec.prefab_directory, "scenes/prefabs")
    folder = _join(sprite_dir, slug)
    animation_path = f"{folder}/{slug}.pix3anim"
    if not all(math.isfinite(v) for v in spec.anchor):
        raise CharacterError("anchor must be finite numbers.")

    warnings = list(spec.warnings)
    clips: list[ClipPlan] = []
    clip_json: list[dict[str, Any]] = []
    frame_files: list[PlannedFile] = []
    sources: dict[str, str] = {}  # target -> source path
    first_frames: dict[str, Frame] = {}
    for clip in spec.clips:
        variant, state = clip.variant.strip(), clip.state.strip()
        if not state:
            raise CharacterError("every clip needs a state.")
        clip_name = f"{variant}{separator}{state}" if variant else state
        if clip_name in first_frames:
            raise CharacterError(f'duplicate clip "{clip_name}".')
        if not clip.frames:
            raise CharacterError(f'clip "{clip_name}" has no frames.')
        if clip.fps is not None and not (math.isfinite(clip.fps) and clip.fps > 0):
            raise CharacterError(f'clip "{clip_name}": fps must be a positive number.')
        sizes: list[str] = []
        for frame in clip.frames:
            size = f"{frame.width}x{frame.height}"
            if size not in sizes:
                sizes.append(size)
        if len(sizes) > 1:
            warnings.append(
                f"{clip_name}: frames differ in size ({', '.join(sizes)}); sizeMode native keeps each frame's own size."
            )
        fps = clip.fps if clip.fps is not None else DEFAULT_FPS
        if clip.fps is None:
            warnings.append(f"{clip_name}: fps defaulted to {DEFAULT_FPS}.")
        loop = clip.loop if clip.loop is not None else default_loop(state)
        if clip.loop is None:
            warnings.append(f"{clip_name}: loop defaulted to {'true' if loop else 'false'}.")
        prefix = clip_file_prefix(clip_name)
        frames_json = []
        for index, frame in enumerate(clip.frames, start=1):
            target = f"{folder}/{prefix}_{index:04d}.{_extension(frame)}"
            known = sources.get(target)
            if known is not None and known != frame.path:
                raise CharacterError(
                    f"two frames would be written to {target} (clip names that differ only in punctuation or case)."
                )
            if known is None:
                sources[target] = frame.path
                try:
                    data = frame.file.read_bytes()
                except OSError as exc:
                    raise CharacterError(f"{frame.path} cannot be read ({exc.strerror or exc}).") from None
                frame_files.append(PlannedFile(target, "frame", data))
            frames_json.append(_frame_json(spec.anchor, target, frame))
        first_frames[clip_name] = clip.frames[0]
        clips.append(ClipPlan(clip_name, len(clip.frames), plain_number(fps), loop))
        clip_json.append(
            {"name": clip_name, "fps": plain_number(fps), "loop": loop, "playbackMode": "normal", "frames": frames_json}
        )

    default_variant = (spec.default_variant if spec.default_variant is not None else spec.clips[0].variant).strip()
    default_state = (spec.default_state if spec.default_state is not None else spec.clips[0].state).strip()
    default_clip = f"{default_variant}{separator}{default_state}" if default_variant else default_state
    if default_clip not in first_frames:
        have = ", ".join(c.name for c in clips)
        raise CharacterError(f"default pair {default_variant or '<none>'}/{default_state} has no clip (have: {have}).")
    first = first_frames[default_clip]

    animation = {"version": "1.0.0", "texturePath": "", "clips": clip_json}
    animation_bytes = (json.dumps(animation, indent=2, ensure_ascii=False) + "\n").encode()
    prefab_path = _join(prefab_dir, _FILE_NAME_RUN.sub("_", name) + ".pix3scene")
    prefab = prefab_yaml(
        name=name,
        slug=slug,
        animation_path=animation_path,
        clip=default_clip,
        width=first.width,
        height=first.height,
        variant=default_variant,
        state=default_state,
        separator=separator,
    )
    files = [
        PlannedFile(animation_path, "animation", animation_bytes),
        PlannedFile(prefab_path, "prefab", prefab.encode()),
        *frame_files,
    ]
    return Plan(name, slug, animation_path, prefab_path, clips, warnings, files)
