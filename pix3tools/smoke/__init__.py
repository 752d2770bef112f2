"""`pix3 smoke`'s pure side (docs/smoke.md): which scenes run, the scene argument, the report's
shapes and text, stacks and source maps. The run itself drives Chrome: ``pix3net.smoke``.

- ``plan_runs(root, cwd, scene, changed_only=, run_all=) -> (RunPlan, Manifest)``
- ``select_scenes(files, read, changed, …) -> Selection | SelectionError`` (pure, over texts)
- ``changed_files(root)`` (git) and ``parse_porcelain(output, toplevel, real_root)`` (pure)
- ``SmokeReport``, ``Failure``, ``run_json``, ``set_json``, ``human_run``, ``human_set``, ``exit_code``

Names load their module on first use: `pix3 smoke` reads its arguments (``_args``) and starts
Chrome before the scene model is imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pix3tools.smoke._git import changed_files, parse_porcelain
    from pix3tools.smoke._project import Failure, Manifest, Project, RunPlan, plan_runs, read_manifest, resolve_scene
    from pix3tools.smoke._report import (
        SmokeReport,
        exit_code,
        format_snapshot,
        human_run,
        human_set,
        ms,
        run_json,
        set_json,
        set_ok,
        step_stats,
        trim_stack,
    )
    from pix3tools.smoke._select import Selection, SelectionError, attached_scripts, select_scenes

_HOMES = {
    "_git": ("changed_files", "parse_porcelain"),
    "_project": ("Failure", "Manifest", "Project", "RunPlan", "plan_runs", "read_manifest", "resolve_scene"),
    "_report": (
        "SmokeReport",
        "exit_code",
        "format_snapshot",
        "human_run",
        "human_set",
        "ms",
        "run_json",
        "set_json",
        "set_ok",
        "step_stats",
        "trim_stack",
    ),
    "_select": ("Selection", "SelectionError", "attached_scripts", "select_scenes"),
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "Failure",
    "Manifest",
    "Project",
    "RunPlan",
    "Selection",
    "SelectionError",
    "SmokeReport",
    "attached_scripts",
    "changed_files",
    "exit_code",
    "format_snapshot",
    "human_run",
    "human_set",
    "ms",
    "parse_porcelain",
    "plan_runs",
    "read_manifest",
    "resolve_scene",
    "run_json",
    "select_scenes",
    "set_json",
    "set_ok",
    "step_stats",
    "trim_stack",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
