"""Create a project from a starter (docs/new.md, "The project"): files, manifest, template record, the kit.

Either the whole project is created or nothing is: a failure half-way removes what was written
(and the folder, when this call created it).
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pix3tools.core import CLI_VERSION, PROJECT_FILE
from pix3tools.core.private import open_folder
from pix3tools.core.timestamps import iso_time
from pix3tools.kit import yaml_scalar
from pix3tools.new._templates import Template

# Files whose text gets the {{…}} substitutions (by source extension; `gitignore` has none).
SUBSTITUTED = frozenset({".pix3scene", ".ts", ".md", ".yaml", ".yml", ".json", ".txt", ".html"})
ALWAYS_DIRS = ("design", "scenes", "sprites", "scripts", "audio")
# npm's own limit on a package name.
MAX_PACKAGE_NAME = 214
_QUALITY = {
    "mobile": (False, False, 2),
    "desktop": (True, True, 3),
    "universal": (True, True, 2),
}


class CreateError(ValueError):
    pass


@dataclass
class Created:
    root: Path
    project_name: str
    project_id: str
    template: Template
    files: list[str] = field(default_factory=list)
    kit_version: str = CLI_VERSION


def package_name_of(name: str) -> str:
    slug = re.sub(r"[^a-z0-9._~-]+", "-", name.lower())
    slug = slug.strip("-._~")[:MAX_PACKAGE_NAME]
    return slug or "pix3-game"


def _substitute(text: str, values: dict[str, str], *, escape_html: bool) -> str:
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", html.escape(value) if escape_html else value)
    return text


def template_files(template: Template, values: dict[str, str]) -> dict[str, bytes]:
    """Target path → bytes: layers first, the template's own files override the same path; the
    template's ``omit`` paths are left out."""
    files: dict[str, bytes] = {}
    for layer in template.layer_dirs:
        for source in sorted(p for p in layer.rglob("*") if p.is_file()):
            rel = source.relative_to(layer)
            parts = [".gitignore" if part == "gitignore" else part for part in rel.parts]
            target = "/".join(parts)
            data = source.read_bytes()
            if source.suffix in SUBSTITUTED:
                text = _substitute(data.decode("utf-8"), values, escape_html=source.suffix == ".html")
                data = text.encode("utf-8")
            files[target] = data
    for target in template.omit:
        files.pop(target, None)
    return dict(sorted(files.items()))


def _yaml_scalar(value: str) -> str:
    return yaml_scalar(value)


def project_yaml(template: Template, project_name: str, project_id: str) -> str:
    width, height = (max(64, v) for v in template.viewport)
    antialias, shadows, ratio = _QUALITY[template.target_platform]
    lines = ["version: 1.0.0"]
    if template.entry_scene:
        lines.append(f"defaultExportScenePath: {_yaml_scalar(template.entry_scene)}")
    lines += [
        "viewportBaseSize:",
        f"  width: {width}",
        f"  height: {height}",
        "ambientOcclusion: baked",
        "textureFiltering: linear",
        f"projectType: {template.project_type}",
        f"targetPlatform: {template.target_platform}",
        "quality:",
        f"  antialias: {'true' if antialias else 'false'}",
        f"  shadows: {'true' if shadows else 'false'}",
        f"  maxPixelRatio: {ratio}",
        "metadata:",
        f"  projectName: {_yaml_scalar(project_name)}",
        f"  templateId: {_yaml_scalar(template.id)}",
        f"  projectId: {project_id}",
        "autoloads: []",
    ]
    return "\n".join(lines) + "\n"


def _is_empty_dir(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())


def create_project(
    template: Template,
    target: Path,
    *,
    name: str | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    post_create: Callable[[Path], list[str]] | None = None,
) -> Created:
    """Write the starter into ``target`` (missing or empty), then run ``post_create`` (the kit)."""
    target = target.resolve()
    if target.exists() and not target.is_dir():
        raise CreateError(f"{target} is a file. Choose an empty or new folder for a new project.")
    if target.exists() and not _is_empty_dir(target):
        raise CreateError(f"{target} is not empty. Choose an empty or new folder for a new project.")
    project_name = (name if name is not None else target.name).strip() or "Pix3 Project"
    project_id = new_id()
    values = {
        "PROJECT_NAME": project_name,
        "PACKAGE_NAME": package_name_of(project_name),
        "PIX3_VERSION": CLI_VERSION,
    }
    files = template_files(template, values)
    files[PROJECT_FILE] = project_yaml(template, project_name, project_id).encode("utf-8")
    record = {
        "templateId": template.id,
        "editorVersion": CLI_VERSION,
        "createdBy": "@pix3/cli",
        "createdAt": iso_time(now()),
    }
    files[".pix3/template.json"] = (json.dumps(record, indent=2) + "\n").encode("utf-8")
    created_folder = not target.exists()
    try:
        target.mkdir(parents=True, exist_ok=True)
        for folder in (*ALWAYS_DIRS, *template.directories):
            (target / folder).mkdir(parents=True, exist_ok=True)
        for rel, data in files.items():
            *folders, name = rel.split("/")
            with open_folder(target, folders, create=True) as into:  # never through a link (.pix3 too)
                into.write_new(name, data, durable=False)
        written = sorted(files)
        if post_create is not None:
            written = sorted({*written, *post_create(target)})
    except BaseException:
        _undo(target, created_folder)
        raise
    return Created(root=target, project_name=project_name, project_id=project_id, template=template, files=written)


def _undo(target: Path, created_folder: bool) -> None:
    if created_folder:
        shutil.rmtree(target, ignore_errors=True)
        return
    for child in list(target.iterdir()) if target.is_dir() else []:
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(child)
