"""`pix3 smoke`'s reporters: the report on stdout (line, json or github annotations) and the JUnit
file, written from the runs' outcome once every process and browser context of the run is gone.

The words of each report are :mod:`pix3tools.smoke`'s (pure); this module picks, frames and writes
them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from pix3tools.smoke import Run, Selection, Shard

__all__ = ["Outcome", "workspace_prefix", "write_report"]


@dataclass(frozen=True)
class Outcome:
    """What the command prints: one run (a scene argument, or nothing could run), or a set
    (``selected`` scenes, of which a shard ran ``runs``)."""

    runs: list[Run]
    selection: Selection | None = None
    durations_ms: list[float] | None = None
    selected: int | None = None


def write_report(
    outcome: Outcome,
    shown: Path,
    printed: str,
    shard_of: Shard | None,
    junit: Path | None,
    out: TextIO,
    err: TextIO,
    env: Mapping[str, str],
) -> int:
    """The report on ``out`` by the ``printed`` reporter (line, json or github), and the JUnit file
    at ``junit`` when asked; the exit code (2 when the JUnit file could not be written)."""
    from pix3tools.smoke import exit_code, github_annotations, human_run, human_set, run_json, set_json

    shard = str(shard_of) if shard_of is not None else None
    if printed == "github":
        for line in github_annotations(outcome.runs, shown, workspace_prefix(shown, env)):
            out.write(line + "\n")
    if outcome.selection is not None:
        if printed == "json":
            _write_json(out, set_json(outcome.selection, outcome.runs, shown, shard=shard, selected=outcome.selected))
        else:
            out.write(human_set(outcome.selection, outcome.runs, shown, shard=shard, selected=outcome.selected))
        code = max((exit_code(r) for r in outcome.runs), default=0)
    else:
        [run] = outcome.runs
        if printed == "json":
            _write_json(out, run_json(run, shown))
        else:
            out.write(human_run(run, shown))
        code = exit_code(run)
    if junit is not None and not _write_junit(junit, outcome, shown, shard_of, err):
        code = max(code, 2)
    return code


def _write_json(out: TextIO, value: Any) -> None:
    out.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def workspace_prefix(root: Path, env: Mapping[str, str]) -> str:
    """The project folder's path from the repository's root GitHub checked out (for annotations)."""
    workspace = env.get("GITHUB_WORKSPACE")
    if not workspace:
        return ""
    try:
        inside = Path(os.path.realpath(root)).relative_to(os.path.realpath(workspace))
    except ValueError:
        return ""
    return "" if str(inside) == "." else inside.as_posix() + "/"


def _write_junit(path: Path, outcome: Outcome, root: Path, shard: Shard | None, err: TextIO) -> bool:
    import socket
    from datetime import datetime

    from pix3tools.smoke import junit_xml

    properties = [("project", str(root))]
    if outcome.selection is not None:
        properties.append(("selection", outcome.selection.reason))
    if shard is not None:
        properties.append(("shard", str(shard)))
    durations: list[float | None] = [*outcome.durations_ms] if outcome.durations_ms else [None] * len(outcome.runs)
    text = junit_xml(
        outcome.runs,
        root,
        durations_ms=durations,
        timestamp=datetime.now(),
        hostname=socket.gethostname(),
        properties=properties,
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        err.write(f"pix3 smoke: could not write the JUnit file {path} ({exc.strerror or exc}); check the folder.\n")
        return False
    return True
