"""`pix3 smoke`'s report: its JSON shape, the human text and the exit code (docs/smoke.md, "Reports").

Pure. The runner (``pix3net.commands.smoke``) gets the shared judge's verdict from the game page and
:func:`from_verdict` maps it onto a :class:`SmokeReport`; a scene that could not run is a
:class:`~pix3tools.smoke._project.Failure`. A set of runs (no scene argument) wraps both.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pix3tools._js import js_number, js_round, plain_number
from pix3tools.smoke._project import Failure
from pix3tools.smoke._select import Selection

# The keys an error of the report has, in this order (the judge adds `url` and `reason` for the
# editor page's error list; the report's shape is the reference's).
ERROR_KEYS = ("code", "phase", "message", "script", "nodeId", "nodeName", "stack", "frame")
JSON_STACK_LINES = 12
HUMAN_STACK_LINES = 3
SNAPSHOT_INLINE = 120  # a snapshot this short (as compact JSON) stays on the summary line
SNAPSHOT_CUT = 4000  # the human report cuts a pretty-printed snapshot here; --json has it whole
SET_SCENE_WIDTH = 32


def ms(value: float) -> int | float:
    """Milliseconds as the report prints them: two decimals, halves up, ``12`` not ``12.0``."""
    return plain_number(js_round(value, 2))


def step_stats(steps: Sequence[float]) -> dict[str, int | float]:
    """``{total, mean, p95, max}`` over the stepped frames (zeros when none ran)."""
    if not steps:
        return {"total": 0, "mean": 0, "p95": 0, "max": 0}
    ordered = sorted(steps)
    total = math.fsum(steps)
    p95 = ordered[min(len(ordered) - 1, math.floor(0.95 * len(ordered)))]
    return {"total": ms(total), "mean": ms(total / len(steps)), "p95": ms(p95), "max": ms(ordered[-1])}


@dataclass
class SmokeReport:
    """One scene that ran. ``errors``/``warnings`` are JSON-ready dicts in their key order."""

    scene: str
    frames: int  # frames the game drew (a frame in which its requestAnimationFrame callbacks ran)
    frames_requested: int
    first_frame_ok: bool
    errors: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    nodes: dict[str, int | None] = field(default_factory=lambda: {"start": None, "end": None})
    timings: dict[str, Any] = field(default_factory=dict)
    scripts: list[str] = field(default_factory=list)
    dom_missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    game: dict[str, Any] | None = None
    log_count: int = 0
    log_lines: list[str] = field(default_factory=list)
    entry_scripts: tuple[int, int] | None = None  # (ran, total) <script> elements of the page

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self, root: Path) -> dict[str, Any]:
        errors = []
        for error in self.errors:
            out = dict(error)
            if "stack" in out:  # replaced in place: the key keeps its position
                out["stack"] = "\n".join(trim_stack(str(out["stack"]), root, JSON_STACK_LINES))
            errors.append(out)
        return {
            "ok": self.ok,
            "scene": self.scene,
            "frames": self.frames,
            "framesRequested": self.frames_requested,
            "firstFrameOk": self.first_frame_ok,
            "errors": errors,
            "warnings": [dict(w) for w in self.warnings],
            "nodes": dict(self.nodes),
            "timingsMs": self.timings,
            "scripts": list(self.scripts),
            "domMissing": list(self.dom_missing),
            "notes": list(self.notes),
            "game": self.game,
            "logs": {"count": self.log_count, "lines": list(self.log_lines)},
        }


Run = SmokeReport | Failure


def from_verdict(scene: str, verdict: dict[str, Any], frames_requested: int) -> SmokeReport:
    """The shared judge's verdict (docs/game-page.md, "The judge") as the report's shape: its
    errors with the report's keys only, its warnings, logs, entry scripts and frames drawn."""
    errors = [{key: e[key] for key in ERROR_KEYS if key in e} for e in verdict.get("errors", [])]
    scripts = verdict.get("scripts") or {}
    logs = verdict.get("logs") or {}
    ran, total = scripts.get("ran"), scripts.get("total")
    return SmokeReport(
        scene=scene,
        frames=int((verdict.get("frames") or {}).get("drawn", 0)),
        frames_requested=frames_requested,
        first_frame_ok=bool(verdict.get("firstFrameOk")),
        errors=errors,
        warnings=[dict(w) for w in verdict.get("warnings", [])],
        log_count=int(logs.get("count", 0)),
        log_lines=[str(line) for line in logs.get("lines", [])],
        entry_scripts=(ran, total) if isinstance(ran, int) and isinstance(total, int) else None,
    )


def timeout_failure(scene: str, seconds: float, frames: int, why: str | None = None) -> Failure:
    """``E_SMOKE_TIMEOUT``: the scene did not finish within ``--timeout``; ``why`` is what the
    judge saw (a busy main thread, an idle one, a dialog), when the page could still say."""
    if why is None:
        why = f"a script stuck in a loop, or a scene too heavy for {frames} frames"
    return Failure(
        "E_SMOKE_TIMEOUT",
        f"the run did not finish within {js_number(seconds)} s: {why}; try --frames or --timeout.",
        scene,
    )


def exit_code(run: Run) -> int:
    if isinstance(run, Failure):
        return 2
    return 0 if run.ok else 1


def set_ok(runs: Sequence[Run]) -> bool:
    return all(isinstance(r, SmokeReport) and r.ok for r in runs)


def trim_stack(stack: str, root: Path, limit: int) -> list[str]:
    """The ``at …`` lines of a stack, without the message line and the project root, at most ``limit``."""
    prefixes = [root.as_uri() + "/", str(root) + "/"]
    lines = []
    for raw in stack.split("\n")[1:]:
        line = raw.strip()
        for prefix in prefixes:
            line = line.replace(prefix, "")
        if line.startswith("at "):
            lines.append(line)
    return lines[:limit]


def run_json(run: Run, root: Path) -> dict[str, Any]:
    return run.to_json() if isinstance(run, Failure) else run.to_json(root)


def set_json(
    selection: Selection, runs: Sequence[Run], root: Path, *, shard: str | None = None, selected: int | None = None
) -> dict[str, Any]:
    """A set's report; with ``shard`` (``"2/4"``), also the shard and how many scenes were selected
    before it was taken (``runs`` are the shard's)."""
    out: dict[str, Any] = {"ok": set_ok(runs), "selection": selection.mode, "reason": selection.reason}
    if selection.changed:
        out["changed"] = list(selection.changed)
    if shard is not None:
        out["shard"] = shard
        out["selected"] = selected if selected is not None else len(runs)
    out["runs"] = [run_json(r, root) for r in runs]
    return out


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def format_snapshot(value: Any) -> str:
    """A game snapshot for the human report: inline when short, else pretty, indented and cut."""
    compact = _compact(value)
    if len(compact) <= SNAPSHOT_INLINE:
        return compact
    pretty = json.dumps(value, ensure_ascii=False, indent=2)
    if len(pretty) > SNAPSHOT_CUT:
        more = len(pretty) - SNAPSHOT_CUT
        pretty = pretty[:SNAPSHOT_CUT] + f"\n… ({more} more characters; pix3 smoke --json has it whole)"
    return "\n" + "\n".join("    " + line for line in pretty.split("\n"))


def _where(error: dict[str, Any]) -> str:
    parts = []
    if error.get("script"):
        parts.append(str(error["script"]))
    if error.get("nodeName"):
        parts.append(f'on "{error["nodeName"]}"')
    elif error.get("nodeId"):
        parts.append(f"on {error['nodeId']}")
    if error.get("phase"):
        parts.append(f"({error['phase']})")
    return (" " + " ".join(parts)) if parts else ""


def _num(value: Any) -> str:
    return "?" if value is None else js_number(value)


def human_failure(failure: Failure) -> str:
    scene = f" {failure.scene}" if failure.scene else ""
    return f"pix3 smoke{scene}: could not run — {failure.code}: {failure.reason}\n"


def human_report(report: SmokeReport, root: Path) -> str:
    timings = report.timings
    step = timings.get("step", {})
    scripts = ""
    if report.entry_scripts is not None:
        ran, total = report.entry_scripts
        scripts = f", {ran}/{total} entry script{'' if total == 1 else 's'} ran"
    lines = [
        f"pix3 smoke {report.scene} — {report.frames}/{report.frames_requested} frames drawn{scripts}: "
        f"{_count(len(report.errors), 'error')}, {_count(len(report.warnings), 'warning')}",
    ]
    second = [f"first frame {'ok' if report.first_frame_ok else 'NOT ok'}"]
    if report.nodes.get("start") is not None or report.nodes.get("end") is not None:
        second.append(f"nodes {_num(report.nodes.get('start'))} → {_num(report.nodes.get('end'))}")
    second.append(f"scripts {len(report.scripts)}")
    lines.append("  " + " · ".join(second))
    third = []
    if timings.get("compile") is not None:
        third.append(f"compile {_num(timings['compile'])} ms")
    third.append(f"load+onStart {_num(timings.get('load'))} ms")
    if step is None:  # virtual time: the page's clock stands still inside a frame
        third.append("step times not measured (virtual time)")
    else:
        third += [
            f"frame 1 {_num(timings.get('firstFrame'))} ms",
            f"step mean {_num(step.get('mean'))} / p95 {_num(step.get('p95'))} / max {_num(step.get('max'))} ms",
        ]
    third.append(f"total {_num(timings.get('total'))} ms")
    lines.append("  " + " · ".join(third))
    if report.game is not None:
        name = report.game.get("name")
        lines.append(
            f'  game "{name if name is not None else ""}" snapshot: {format_snapshot(report.game.get("snapshot"))}'
        )
    if report.errors:
        lines.append("errors:")
        for error in report.errors:
            lines.append(f"  frame {error['frame']}  {error['code']}{_where(error)}: {error['message']}")
            if error.get("domAccess"):
                lines.append(f"      missing browser API read just before: {', '.join(error['domAccess'])}")
            if error.get("stack"):
                lines += ["      " + line for line in trim_stack(str(error["stack"]), root, HUMAN_STACK_LINES)]
    if report.warnings:
        lines.append("warnings:")
        for warning in report.warnings:
            frame = f"frame {warning['frame']}  " if warning.get("frame") is not None else ""
            count = f" (×{warning['count']})" if warning.get("count", 1) > 1 else ""
            lines.append(f"  {frame}{warning['code']}: {warning['message']}{count}")
    if report.notes:
        lines.append("notes:")
        lines += [f"  {note}" for note in report.notes]
    return "\n".join(lines) + "\n"


def human_run(run: Run, root: Path) -> str:
    return human_failure(run) if isinstance(run, Failure) else human_report(run, root)


def _status(run: Run) -> str:
    if isinstance(run, Failure):
        return f"could not run ({run.code})"
    verdict = "FAILED" if run.errors else "ok"
    return (
        f"{verdict} — {run.frames} frames drawn, {_count(len(run.errors), 'error')},"
        f" {_count(len(run.warnings), 'warning')}"
    )


def human_set(
    selection: Selection, runs: Sequence[Run], root: Path, *, shard: str | None = None, selected: int | None = None
) -> str:
    of = f" of {selected if selected is not None else len(runs)} in shard {shard}" if shard is not None else ""
    lines = [f"pix3 smoke: {_count(len(runs), 'scene')}{of} — {selection.reason}"]
    for run in runs:
        scene = run.scene if run.scene else "?"
        lines.append(f"  {scene.ljust(SET_SCENE_WIDTH)} {_status(run)}")
    detailed = [
        run
        for run in runs
        if len(runs) == 1 or isinstance(run, Failure) or (isinstance(run, SmokeReport) and (run.errors or run.warnings))
    ]
    for run in detailed:
        lines.append("")
        lines.append(human_run(run, root).rstrip("\n"))
    if len(runs) > 1 and not detailed:
        lines.append("Run one scene for its details: pix3 smoke <scene>.")
    if not runs and shard is not None:
        lines.append(f"Shard {shard} holds no scene (more shards than scenes): nothing to run, nothing failed.")
    return "\n".join(lines) + "\n"
