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
    from pix3tools.smoke._numbers import frame_count, positive_number
    from pix3tools.smoke._project import Failure, Manifest, Project, RunPlan, plan_runs, read_manifest, resolve_scene
    from pix3tools.smoke._report import (
        Run,
        SmokeReport,
        exit_code,
        format_snapshot,
        from_verdict,
        human_run,
        human_set,
        ms,
        run_json,
        set_json,
        set_ok,
        step_stats,
        timeout_failure,
        trim_stack,
    )
    from pix3tools.smoke._select import Selection, SelectionError, attached_scripts, select_scenes
    from pix3tools.smoke._sourcemap import SourceMap, SourceMapError, decode_data_url, map_url_of
    from pix3tools.smoke._stack import map_location, rewrite_stack, stack_urls

_HOMES = {
    "_git": ("changed_files", "parse_porcelain"),
    "_numbers": ("frame_count", "positive_number"),
    "_project": ("Failure", "Manifest", "Project", "RunPlan", "plan_runs", "read_manifest", "resolve_scene"),
    "_report": (
        "Run",
        "SmokeReport",
        "exit_code",
        "format_snapshot",
        "from_verdict",
        "human_run",
        "human_set",
        "ms",
        "run_json",
        "set_json",
        "set_ok",
        "step_stats",
        "timeout_failure",
        "trim_stack",
    ),
    "_select": ("Selection", "SelectionError", "attached_scripts", "select_scenes"),
    "_sourcemap": ("SourceMap", "SourceMapError", "decode_data_url", "map_url_of"),
    "_stack": ("map_location", "rewrite_stack", "stack_urls"),
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "Failure",
    "Manifest",
    "Project",
    "Run",
    "RunPlan",
    "Selection",
    "SelectionError",
    "SmokeReport",
    "SourceMap",
    "SourceMapError",
    "attached_scripts",
    "changed_files",
    "decode_data_url",
    "exit_code",
    "format_snapshot",
    "frame_count",
    "from_verdict",
    "human_run",
    "human_set",
    "map_location",
    "map_url_of",
    "ms",
    "parse_porcelain",
    "plan_runs",
    "positive_number",
    "read_manifest",
    "resolve_scene",
    "rewrite_stack",
    "run_json",
    "select_scenes",
    "set_json",
    "set_ok",
    "stack_urls",
    "step_stats",
    "timeout_failure",
    "trim_stack",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
