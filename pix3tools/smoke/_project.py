"""The project as `pix3 smoke` sees it: its files, its manifest, the scene argument resolved, and
the set of scenes to run (docs/smoke.md).

Synchronous. The files and the manifest are the shared project model's (``pix3tools.project``:
the one inventory walk validate, tree and the kit use, and its manifest reader); selection reads
the files' texts, cached here for the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pix3tools._js import is_number
from pix3tools.project import Project as ProjectModel
from pix3tools.project import load_manifest, read_text
from pix3tools.smoke._git import changed_files
from pix3tools.smoke._select import Selection, SelectionError, select_scenes

DEFAULT_VIEWPORT: tuple[int | float, int | float] = (1920, 1080)


@dataclass(frozen=True)
class Failure:
    """A run that could not happen: ``{ok: false, code, reason, [scene]}``."""

    code: str
    reason: str
    scene: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": False, "code": self.code, "reason": self.reason}
        if self.scene is not None:
            out["scene"] = self.scene
        return out


@dataclass(frozen=True)
class Manifest:
    viewport: tuple[int | float, int | float]
    default_scene: str | None


def read_manifest(root: Path) -> Manifest:
    """``viewportBaseSize`` (positive numbers, else 1920×1080) and ``defaultExportScenePath``
    (trimmed, without ``res://`` and leading ``/``); a missing or broken manifest gives defaults."""
    document = load_manifest(root)
    data = document.data if document is not None else None
    if not isinstance(data, dict):
        return Manifest(DEFAULT_VIEWPORT, None)
    size = data.get("viewportBaseSize")
    viewport = DEFAULT_VIEWPORT
    if isinstance(size, dict):
        width, height = size.get("width"), size.get("height")
        if is_number(width) and is_number(height) and width > 0 and height > 0:
            viewport = (width, height)
    default = data.get("defaultExportScenePath")
    scene: str | None = None
    if isinstance(default, str) and default.strip():
        scene = default.strip()
        if scene[:6].lower() == "res://":
            scene = scene[6:]
        scene = scene.lstrip("/")
    return Manifest(viewport, scene)


class Project:
    """The project model, plus the text of each file selection reads (read once; a path that is not
    an inventory file, or does not read, is empty text)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.model = ProjectModel(root)
        self._texts: dict[str, str] = {}

    @property
    def files(self) -> list[str]:
        return self.model.files.files

    def exists(self, path: str) -> bool:
        return self.model.files.exists(path)

    def read(self, path: str) -> str:
        text = self._texts.get(path)
        if text is None:
            text = (read_text(self.root / path) or "") if self.exists(path) else ""
            self._texts[path] = text
        return text


def resolve_scene(argument: str, project: Project, cwd: Path) -> str | Failure:
    """The scene argument as a project path: first as written (``res://`` and leading ``/``
    dropped), then as a path from ``cwd`` that lies in the project."""
    candidates: list[str] = []
    first = argument[6:] if argument[:6].lower() == "res://" else argument
    candidates.append(first.lstrip("/").replace(os.sep, "/"))
    absolute = Path(os.path.normpath(cwd / argument))
    try:
        inside = absolute.relative_to(project.root)
    except ValueError:
        inside = None
    if inside is not None and str(inside) != ".":
        candidates.append(inside.as_posix())
    winner = next((c for c in candidates if project.exists(c)), None)
    if winner is None:
        return Failure("E_SMOKE_NO_SCENE", f"{argument} is not a file in the project ({project.root}).")
    if not winner.endswith(".pix3scene"):
        return Failure("E_SMOKE_NO_SCENE", f"{winner} is not a .pix3scene.")
    return winner


@dataclass(frozen=True)
class RunPlan:
    """What to run: one scene (``single``) or a selection; or why nothing can run."""

    scenes: list[str]
    single: bool
    selection: Selection | None = None
    failure: Failure | None = None
    project: Project | None = None


def plan_runs(
    root: Path,
    cwd: Path,
    scene: str | None,
    *,
    changed_only: bool = False,
    run_all: bool = False,
) -> tuple[RunPlan, Manifest]:
    """Resolve the scene argument, or select the scenes to run (git asked unless ``--all``)."""
    if not root.is_dir():
        failure = Failure("E_SMOKE_NO_PROJECT", f"{root} is not a folder.", scene)
        return RunPlan([], scene is not None, failure=failure), Manifest(DEFAULT_VIEWPORT, None)
    manifest = read_manifest(root)
    project = Project(root)
    if scene is not None:
        resolved = resolve_scene(scene, project, cwd)
        if isinstance(resolved, Failure):
            return RunPlan([], True, failure=Failure(resolved.code, resolved.reason, scene)), manifest
        return RunPlan([resolved], True, project=project), manifest
    changed = None if run_all else changed_files(root)
    selection = select_scenes(
        project.files,
        project.read,
        changed,
        changed_only=changed_only,
        run_all=run_all,
        manifest_default=manifest.default_scene,
    )
    if isinstance(selection, SelectionError):
        return RunPlan([], False, failure=Failure("E_SMOKE_NO_SCENE", selection.reason)), manifest
    return RunPlan(list(selection.scenes), False, selection=selection, project=project), manifest
