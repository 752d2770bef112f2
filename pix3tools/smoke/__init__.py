"""`pix3 smoke`'s pure side (docs/smoke.md): which scenes run, the scene argument, the report's
shapes and text, stacks and source maps. The run itself drives Chrome: ``pix3net.commands.smoke``.

- ``plan_runs(root, cwd, scene, changed_only=, run_all=) -> (RunPlan, Manifest)``
- ``select_scenes(files, read, changed, …) -> Selection | SelectionError`` (pure, over texts)
- ``changed_files(root)`` (git) and ``parse_porcelain(output, toplevel, real_root)`` (pure)
- ``SmokeReport``, ``Failure``, ``run_json``, ``set_json``, ``human_run``, ``human_set``, ``exit_code``

Names load their module on first use: `pix3 smoke` reads its arguments (``_args``) and starts
Chrome before the scene model is imported. ``_HOMES`` is the one list of what each private
module gives (they have no ``__all__`` of their own); a name another private module uses but
the package does not offer (``_report.JSON_STACK_LINES``) is imported from its module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pix3tools.core.lazy import lazy_names

if TYPE_CHECKING:
    from pix3tools.smoke._artifacts import (
        CONSOLE_FILE,
        REPORT_FILE,
        SCREENSHOT_FILE,
        artifact_folder,
        console_log,
        wants_artifacts,
    )
    from pix3tools.smoke._git import changed_files, parse_porcelain
    from pix3tools.smoke._github import escape_data, escape_property, github_annotations
    from pix3tools.smoke._junit import junit_xml, xml_text
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
    from pix3tools.smoke._scale import WORKER_BYTES, Shard, default_workers, parse_shard, shard_scenes
    from pix3tools.smoke._select import Selection, SelectionError, attached_scripts, select_scenes
    from pix3tools.smoke._sourcemap import SourceMap, SourceMapError, decode_data_url, map_url_of
    from pix3tools.smoke._spin import spin_frames, where_text
    from pix3tools.smoke._stack import first_project_location, map_location, rewrite_stack, stack_urls

_HOMES = {
    "_artifacts": (
        "CONSOLE_FILE",
        "REPORT_FILE",
        "SCREENSHOT_FILE",
        "artifact_folder",
        "console_log",
        "wants_artifacts",
    ),
    "_git": ("changed_files", "parse_porcelain"),
    "_github": ("github_annotations", "escape_data", "escape_property"),
    "_junit": ("junit_xml", "xml_text"),
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
    "_scale": ("WORKER_BYTES", "Shard", "default_workers", "parse_shard", "shard_scenes"),
    "_select": ("Selection", "SelectionError", "attached_scripts", "select_scenes"),
    "_spin": ("spin_frames", "where_text"),
    "_sourcemap": ("SourceMap", "SourceMapError", "decode_data_url", "map_url_of"),
    "_stack": ("first_project_location", "map_location", "rewrite_stack", "stack_urls"),
}

__all__ = [
    "CONSOLE_FILE",
    "REPORT_FILE",
    "SCREENSHOT_FILE",
    "WORKER_BYTES",
    "Failure",
    "Manifest",
    "Project",
    "Run",
    "RunPlan",
    "Selection",
    "SelectionError",
    "Shard",
    "SmokeReport",
    "SourceMap",
    "SourceMapError",
    "artifact_folder",
    "attached_scripts",
    "changed_files",
    "console_log",
    "decode_data_url",
    "default_workers",
    "escape_data",
    "escape_property",
    "exit_code",
    "first_project_location",
    "format_snapshot",
    "frame_count",
    "from_verdict",
    "github_annotations",
    "human_run",
    "human_set",
    "junit_xml",
    "map_location",
    "map_url_of",
    "ms",
    "parse_porcelain",
    "parse_shard",
    "plan_runs",
    "positive_number",
    "read_manifest",
    "resolve_scene",
    "rewrite_stack",
    "run_json",
    "select_scenes",
    "set_json",
    "set_ok",
    "shard_scenes",
    "spin_frames",
    "stack_urls",
    "step_stats",
    "timeout_failure",
    "trim_stack",
    "wants_artifacts",
    "where_text",
    "xml_text",
]


__getattr__ = lazy_names(__name__, _HOMES)
