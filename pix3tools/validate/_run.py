"""One validate run over a project (docs/validate.md, "Running it"): targets, scenes, project rules."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pix3tools.core.walk import INVENTORY, walk_files
from pix3tools.project import sort_paths
from pix3tools.validate._anim import check_anims
from pix3tools.validate._autoload import check_autoloads
from pix3tools.validate._context import ValidateProject
from pix3tools.validate._locale import LocaleCheck, check_localization
from pix3tools.validate._nodes import check_scene
from pix3tools.validate._report import Diagnostic, ValidateReport, sort_diagnostics
from pix3tools.validate._unused import unused_assets
from pix3tools.validate._workers import in_workers, plan_chunks

__all__ = ["LEVEL2_UNAVAILABLE", "ValidateUsageError", "resolve_targets", "run_validate"]

SCENE_SUFFIX = ".pix3scene"
# Level 2 loads every scene through the JavaScript runtime (@pix3/runtime + esbuild); this
# implementation has no JavaScript engine, so it never runs (docs/validate.md, "Level 2 is not
# run"). Said once: in the summary line and as `level2.reason` (no note repeats it).
LEVEL2_CAUSE = "the Python CLI cannot load @pix3/runtime"
LEVEL2_UNAVAILABLE = (
    f"{LEVEL2_CAUSE}, so the loader checks (E_LOAD, E_PENDING_COMPONENT), user: component config and"
    " renderability are missing from this report, not passed"
)


class ValidateUsageError(Exception):
    """A bad path argument: ``pix3 validate`` prints it with the usage and exits 2."""


def resolve_targets(root: Path, paths: Sequence[str] | None, cwd: Path) -> list[str] | None:
    """Project-relative scene paths to validate; None for a whole-project run."""
    if not paths:
        return None
    root = root.resolve()
    targets: list[str] = []
    for arg in paths:
        absolute = Path(os.path.abspath(cwd / arg))
        resolved = absolute.resolve() if absolute.exists() else absolute
        try:
            rel = resolved.relative_to(root)
        except ValueError:
            raise ValidateUsageError(f"{arg} is outside the project {root}") from None
        if resolved.is_dir():
            if resolved == root:
                return None
            # The folder named is entered whatever its name; below it, the inventory's rules.
            targets.extend(p for p in walk_files(root, INVENTORY, rel.as_posix()) if p.endswith(SCENE_SUFFIX))
            continue
        if not resolved.name.endswith(SCENE_SUFFIX):
            raise ValidateUsageError(f"{arg} is not a .pix3scene file")
        targets.append(rel.as_posix())
    return sort_paths(dict.fromkeys(targets))


@dataclass
class _Scenes:
    """What checking a run of scenes found (sent back from a worker process as plain tuples)."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)  # (file, sha256)
    references: set[str] = field(default_factory=set)
    uses_user: bool = False

    def pack(self) -> tuple[Any, ...]:
        """Plain data for ``marshal`` (the diagnostics' lines are resolved: no document is held)."""
        diagnostics = [(d.code, d.file, d.message, d.node_id, d.path, d.line, d.fix) for d in self.diagnostics]
        return diagnostics, self.files, self.references, self.uses_user

    @classmethod
    def unpack(cls, packed: Any) -> _Scenes:
        diagnostics, files, references, uses_user = packed
        return cls([Diagnostic(*fields) for fields in diagnostics], files, references, uses_user)


def _check_scenes(project: ValidateProject, locale: LocaleCheck, targets: list[str]) -> _Scenes:
    """Level 1 for each target in turn; a scene is dropped once checked (memory stays flat)."""
    out = _Scenes()
    for rel in targets:
        load = project.load(rel)
        if load.raw is None:
            if load.unreadable is None:
                out.diagnostics.append(Diagnostic("E_SHAPE", rel, f"{rel} does not exist."))
            else:
                out.diagnostics.append(Diagnostic("E_YAML", rel, f"YAML does not parse: {load.problem}"))
            continue
        out.files.append((rel, hashlib.sha256(load.raw).hexdigest()))
        if load.doc is None:
            line = load.error.line if load.error else None
            # The reason on the first line, then the line to fix with a caret (docs/validate.md, "Bad input").
            shown = f"\n{load.error.excerpt}" if load.error and load.error.excerpt else ""
            out.diagnostics.append(Diagnostic("E_YAML", rel, f"YAML does not parse: {load.problem}{shown}", line=line))
            continue
        result = check_scene(project, rel, load.doc)
        found = result.diagnostics + locale.key_diagnostics(rel, result.key_uses, load.doc)
        for diag in found:
            diag.resolve_line()
        out.diagnostics.extend(found)
        out.references |= result.references
        out.uses_user = out.uses_user or result.uses_user
    return out


def run_validate(
    root: Path,
    paths: Sequence[str] | None = None,
    *,
    hydrate: bool = True,
    cwd: Path | None = None,
    workers: int = 1,
) -> ValidateReport:
    """Validate ``paths`` (scene files or folders, relative to ``cwd``) or, with none, the whole
    project at ``root``. Raises :class:`ValidateUsageError` for a path outside the project or not
    a scene. ``workers`` > 1 checks the scenes in that many processes when there are enough of
    them (``_workers``: only for a single-threaded caller)."""
    root = root.resolve()
    explicit = resolve_targets(root, paths, cwd or Path.cwd())
    project = ValidateProject(root)
    whole = explicit is None
    targets = project.files.scenes if explicit is None else explicit
    manifest = project.manifest
    locale = check_localization(project, manifest, whole)

    def check(run: list[str]) -> _Scenes:
        return _check_scenes(project, locale, run)

    chunks = plan_chunks(root, targets, workers)
    scenes = (
        [check(list(targets))] if chunks is None else in_workers(check, chunks, workers, _Scenes.pack, _Scenes.unpack)
    )
    diagnostics = [d for part in scenes for d in part.diagnostics]
    files = [f for part in scenes for f in part.files]
    references: set[str] = set()
    for part in scenes:
        references |= part.references
    uses_user = any(part.uses_user for part in scenes)
    diagnostics.extend(check_autoloads(project, manifest))
    diagnostics.extend(check_anims(project, references, whole))
    if whole:
        diagnostics.extend(locale.table_diagnostics)
        diagnostics.extend(locale.script_diagnostics())
        diagnostics.extend(unused_assets(project, references))
    for diag in diagnostics:
        diag.resolve_line()
    notes: list[str] = []
    if hydrate:
        level2: dict[str, object] = {"state": "skipped", "reason": LEVEL2_UNAVAILABLE}
        if uses_user:
            diagnostics.append(
                Diagnostic(
                    "W_HYDRATE_SKIPPED",
                    "scripts",
                    f"Level 2 skipped for scenes with user: components: {LEVEL2_CAUSE}"
                    " (user: component properties not checked).",
                    fix="run with --no-hydrate to check level 1 only",
                )
            )
    else:
        level2 = {"state": "disabled"}
        if uses_user:
            notes.append("Level 2 disabled (--no-hydrate) (user: component properties not checked).")
    return ValidateReport(
        project_root=str(root),
        files=files,
        diagnostics=sort_diagnostics(diagnostics),
        level2=level2,
        notes=notes,
    )
