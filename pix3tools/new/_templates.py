"""The starters: template folders with ``template.yaml`` + ``files/``, over layers (docs/new.md, "Starters").

The templates are package data (``pix3tools/new/templates/``); ``PIX3_TEMPLATES_DIR`` points at
another root (tests, a template author).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

TEMPLATES_ENV = "PIX3_TEMPLATES_DIR"
PACKAGED_ROOT = Path(__file__).resolve().parent / "templates"

_PROJECT_TYPES = ("2d", "3d")
_PLATFORMS = ("mobile", "desktop", "universal")


class TemplateError(ValueError):
    """A starter that cannot be used; the message is what the user reads."""


@dataclass(frozen=True)
class Template:
    id: str
    title: str
    description: str
    project_type: str
    target_platform: str
    viewport: tuple[int, int]
    entry_scene: str | None
    order: int
    hidden: bool
    directories: tuple[str, ...]
    # Files of the layers this template leaves out (target paths: `package.json`, `src/main.ts`).
    omit: tuple[str, ...] = ()
    # Folders whose files are copied, in order (layers first, the template's own last).
    layer_dirs: tuple[Path, ...] = field(default=())


def templates_root(env: Mapping[str, str]) -> Path:
    value = env.get(TEMPLATES_ENV, "")
    return Path(value) if value else PACKAGED_ROOT


def one_line(description: str) -> str:
    """The first sentence: up to and including the first ``. `` full stop."""
    head, dot, _ = description.partition(". ")
    return head + "." if dot else description


def _read_meta(path: Path) -> dict[str, Any]:
    from ruamel.yaml import YAML

    data = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise TemplateError(f"{path} is not a YAML mapping")
    return data


def _template(root: Path, folder: Path, err: TextIO) -> Template | None:
    meta_path = folder / "template.yaml"
    meta = _read_meta(meta_path)
    layers: list[Path] = []
    extends = meta.get("extends")
    if extends is not None:
        layer = root / str(extends) / "files"
        if not layer.is_dir():
            err.write(f'pix3: {meta_path} extends "{extends}", which has no files/\n')
            return None
        layers.append(layer)
    layers.append(folder / "files")
    project_type = str(meta.get("projectType", "3d"))
    platform = str(meta.get("targetPlatform", "universal"))
    if project_type not in _PROJECT_TYPES or platform not in _PLATFORMS:
        err.write(f"pix3: {meta_path} has projectType {project_type!r} / targetPlatform {platform!r}; skipped\n")
        return None
    viewport = meta.get("viewport") or {}
    entry = meta.get("entryScene")
    entry_path = str(entry).removeprefix("res://") if entry else None
    return Template(
        id=folder.name,
        title=str(meta.get("title", folder.name)),
        description=str(meta.get("description", "")),
        project_type=project_type,
        target_platform=platform,
        viewport=(int(viewport.get("width", 1920)), int(viewport.get("height", 1080))),
        entry_scene=entry_path,
        order=int(meta.get("order", 1000)),
        hidden=bool(meta.get("hidden", False)),
        directories=tuple(str(d) for d in meta.get("directories") or ()),
        omit=tuple(str(p) for p in meta.get("omit") or ()),
        layer_dirs=tuple(layers),
    )


def list_templates(root: Path, *, err: TextIO | None = None) -> list[Template]:
    """Every usable template under ``root`` (hidden ones too), by order then title."""
    err = err or sys.stderr
    found: list[Template] = []
    if not root.is_dir():
        return found
    for folder in sorted(root.iterdir()):
        if folder.is_dir() and (folder / "template.yaml").is_file():
            template = _template(root, folder, err)
            if template is not None:
                found.append(template)
    found.sort(key=lambda t: (t.order, t.title))
    return found


def find_template(templates: list[Template], query: str) -> Template:
    wanted = query.lower()
    for template in templates:
        if template.id.lower() == wanted:
            return template
    ids = ", ".join(t.id for t in templates if not t.hidden)
    raise TemplateError(f'Unknown template "{query}"; the starters are {ids}.')
