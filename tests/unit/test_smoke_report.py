"""`pix3 smoke`'s report shapes and human text (pure)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pix3tools.smoke import (
    Failure,
    Selection,
    SmokeReport,
    exit_code,
    format_snapshot,
    from_verdict,
    human_run,
    human_set,
    run_json,
    set_json,
    step_stats,
    timeout_failure,
    trim_stack,
)

ROOT = Path("/home/u/game")


def report(**fields: object) -> SmokeReport:
    base: dict[str, object] = {
        "scene": "scenes/main.pix3scene",
        "frames": 30,
        "frames_requested": 30,
        "first_frame_ok": True,
    }
    base.update(fields)
    out = SmokeReport(**base)  # type: ignore[arg-type]
    out.timings = {"compile": None, "load": 12.5, "firstFrame": 0.3, "step": step_stats([0.3, 0.1, 0.2]), "total": 2000}
    return out


# -- snapshot, stacks, numbers -------------------------------------------------------------------


def test_snapshot_inline_pretty_and_cut() -> None:
    assert format_snapshot({"ready": True, "gold": 0}) == '{"ready":true,"gold":0}'
    assert format_snapshot(None) == "null"
    long = {"upgrades": [{"name": f"upgrade {i}", "level": i} for i in range(4)], "lootMultiplier": 1.5}
    pretty = format_snapshot(long)
    assert pretty.startswith("\n    {")
    assert '    "lootMultiplier": 1.5' in pretty and '"upgrades"' in pretty and "…" not in pretty
    cut = format_snapshot({"blob": "x" * 5000})
    assert re.search(r"… \(\d+ more characters; pix3 smoke --json has it whole\)$", cut)
    assert len(cut) < 4200


def test_stack_trim() -> None:
    stack = (
        "Error: boom\n  second message line\n    at tick (file:///home/u/game/scripts/a.js:3:5)\n"
        "    at /home/u/game/b.js:1:1\n    at run (scripts/c.ts:9:9)\n    <anonymous>"
    )
    assert trim_stack(stack, ROOT, 12) == ["at tick (scripts/a.js:3:5)", "at b.js:1:1", "at run (scripts/c.ts:9:9)"]
    assert trim_stack(stack, ROOT, 1) == ["at tick (scripts/a.js:3:5)"]
    assert trim_stack("Error: only a message", ROOT, 12) == []


def test_step_stats() -> None:
    assert step_stats([]) == {"total": 0, "mean": 0, "p95": 0, "max": 0}
    steps = [float(i) for i in range(1, 21)]
    assert step_stats(steps) == {"total": 210, "mean": 10.5, "p95": 20, "max": 20}
    assert step_stats([0.125, 0.125]) == {"total": 0.25, "mean": 0.13, "p95": 0.13, "max": 0.13}


# -- shapes -----------------------------------------------------------------------------------


def test_report_json_key_order_and_trimmed_stack() -> None:
    error = {
        "code": "E_SMOKE_SCRIPT",
        "message": "Error: boom",
        "stack": "Error: boom\n    at f (/home/u/game/g.js:1:2)",
        "frame": 30,
    }
    out = run_json(
        report(errors=[error], game={"name": "g", "snapshot": {"a": 1}}, log_count=1, log_lines=["[frame 0] hi"]), ROOT
    )
    assert list(out) == [
        "ok", "scene", "frames", "framesRequested", "firstFrameOk", "errors", "warnings", "nodes",
        "timingsMs", "scripts", "domMissing", "notes", "game", "logs",
    ]  # fmt: skip
    assert out["ok"] is False
    assert out["errors"] == [
        {"code": "E_SMOKE_SCRIPT", "message": "Error: boom", "stack": "at f (g.js:1:2)", "frame": 30}
    ]
    assert list(out["timingsMs"]) == ["compile", "load", "firstFrame", "step", "total"]
    assert out["logs"] == {"count": 1, "lines": ["[frame 0] hi"]}
    assert str(error["stack"]).startswith("Error: boom")  # the report itself is untouched


def test_failure_and_set_json() -> None:
    failure = Failure("E_SMOKE_TIMEOUT", "too slow", "scenes/b.pix3scene")
    assert run_json(failure, ROOT) == {
        "ok": False,
        "code": "E_SMOKE_TIMEOUT",
        "reason": "too slow",
        "scene": "scenes/b.pix3scene",
    }
    assert run_json(Failure("E_SMOKE_NO_SCENE", "none"), ROOT) == {
        "ok": False,
        "code": "E_SMOKE_NO_SCENE",
        "reason": "none",
    }
    selection = Selection("changed", ["scenes/main.pix3scene", "scenes/b.pix3scene"], "why", ["scripts/a.ts"])
    out = set_json(selection, [report(), failure], ROOT)
    assert list(out) == ["ok", "selection", "reason", "changed", "runs"]
    assert out["ok"] is False and out["changed"] == ["scripts/a.ts"]
    assert "changed" not in set_json(Selection("all", [], "why"), [report()], ROOT)
    assert set_json(Selection("all", [], "why"), [report()], ROOT)["ok"] is True


def test_exit_codes() -> None:
    assert exit_code(report()) == 0
    assert exit_code(report(warnings=[{"code": "W", "frame": 1, "message": "m"}])) == 0
    assert exit_code(report(errors=[{"code": "E", "message": "m", "frame": 1}])) == 1
    assert exit_code(Failure("E_SMOKE_TIMEOUT", "x")) == 2


# -- human text -------------------------------------------------------------------------------


def test_human_single_report() -> None:
    errors = [
        {"code": "E_SMOKE_SCRIPT", "phase": "start", "message": "Error: start went wrong", "script": "user:StartBoom",
         "nodeId": "game-root", "nodeName": "Game Root", "frame": 0,
         "stack": "Error: start went wrong\n    at StartBoom.onStart (/home/u/game/scripts/StartBoom.ts:4:11)\n"
                  "    at a (x.js:1:1)\n    at b (x.js:2:2)\n    at c (x.js:3:3)"},
        {"code": "E_SMOKE_UNHANDLED", "phase": "promise", "message": "Error: later", "frame": 3},
    ]  # fmt: skip
    warnings = [{"code": "W_SMOKE_CONSOLE_WARN", "frame": 2, "message": "careful", "count": 3}]
    text = human_run(
        report(
            errors=errors,
            warnings=warnings,
            scripts=["user:StartBoom"],
            notes=["a note"],
            first_frame_ok=False,
            game={"name": "g", "snapshot": {"gold": 1}},
            entry_scripts=(1, 2),
        ),
        ROOT,
    )
    assert text == (
        "pix3 smoke scenes/main.pix3scene — 30/30 frames drawn, 1/2 entry scripts ran: 2 errors, 1 warning\n"
        "  first frame NOT ok · scripts 1\n"
        "  load+onStart 12.5 ms · frame 1 0.3 ms · step mean 0.2 / p95 0.3 / max 0.3 ms · total 2000 ms\n"
        '  game "g" snapshot: {"gold":1}\n'
        "errors:\n"
        '  frame 0  E_SMOKE_SCRIPT user:StartBoom on "Game Root" (start): Error: start went wrong\n'
        "      at StartBoom.onStart (scripts/StartBoom.ts:4:11)\n"
        "      at a (x.js:1:1)\n"
        "      at b (x.js:2:2)\n"
        "  frame 3  E_SMOKE_UNHANDLED (promise): Error: later\n"
        "warnings:\n"
        "  frame 2  W_SMOKE_CONSOLE_WARN: careful (×3)\n"
        "notes:\n"
        "  a note\n"
    )


def test_human_failure_and_set() -> None:
    assert human_run(Failure("E_SMOKE_NO_PROJECT", "no project here."), ROOT) == (
        "pix3 smoke: could not run — E_SMOKE_NO_PROJECT: no project here.\n"
    )
    clean = report(scene="scenes/menu.pix3scene", frames=5, frames_requested=5)
    broken = report(
        frames=5,
        frames_requested=5,
        errors=[{"code": "E_SMOKE_SCRIPT", "message": "Error: game start broke", "frame": 0}],
    )
    stuck = Failure("E_SMOKE_TIMEOUT", "too slow", "scenes/loop.pix3scene")
    text = human_set(
        Selection("all", [], "every top-level scene (no git history to narrow it down)"), [broken, clean, stuck], ROOT
    )
    lines = text.split("\n")
    assert lines[0] == "pix3 smoke: 3 scenes — every top-level scene (no git history to narrow it down)"
    assert re.match(r"  scenes/main\.pix3scene\s+FAILED — 5 frames drawn, 1 error, 0 warnings$", lines[1])
    assert lines[2] == "  scenes/menu.pix3scene" + " " * 12 + "ok — 5 frames drawn, 0 errors, 0 warnings"
    assert lines[3] == "  scenes/loop.pix3scene" + " " * 12 + "could not run (E_SMOKE_TIMEOUT)"
    assert "Error: game start broke" in text
    assert "pix3 smoke scenes/menu.pix3scene —" not in text  # a clean run of several is not detailed
    assert "pix3 smoke scenes/loop.pix3scene: could not run — E_SMOKE_TIMEOUT: too slow" in text
    assert text.endswith("too slow\n")
    quiet = human_set(Selection("all", [], "r"), [clean, clean], ROOT)
    assert quiet.endswith("\nRun one scene for its details: pix3 smoke <scene>.\n")
    empty = human_set(Selection("all", [], "r"), [], ROOT, shard="4/4", selected=3)
    assert empty == (
        "pix3 smoke: 0 scenes of 3 in shard 4/4 — r\n"
        "Shard 4/4 holds no scene (more shards than scenes): nothing to run, nothing failed.\n"
    )
    one = human_set(Selection("all", [], "r"), [clean], ROOT)
    assert (
        one.startswith("pix3 smoke: 1 scene — r\n") and "\npix3 smoke scenes/menu.pix3scene — 5/5 frames drawn:" in one
    )


def test_the_judges_verdict_as_the_report() -> None:
    """The shared rules' verdict (judge.js) mapped onto the reference's report: errors keep the
    report's keys only (the editor's url and reason stay out), frames are the frames drawn."""
    verdict = {
        "ok": False,
        "errors": [
            {"code": "E_SMOKE_LOAD", "message": "the page's script res://a.js did not load (HTTP 404).", "frame": 0,
             "url": "http://localhost:5173/a.js", "reason": "HTTP 404"},
            {"code": "E_SMOKE_SCRIPT", "phase": "start", "message": "Error: x", "script": "user:A", "stack": "s",
             "frame": 2},
        ],
        "warnings": [{"code": "W_SMOKE_DIALOG", "frame": 1, "message": "the game opened an alert dialog", "count": 2}],
        "logs": {"count": 41, "lines": ["[frame 0] hi"]},
        "scripts": {"total": 2, "ran": 1, "failed": 1},
        "frames": {"clock": 5, "drawn": 0},
        "firstFrameOk": False,
        "summary": "1 of 2 entry scripts ran, 0 frames drawn",
    }  # fmt: skip
    mapped = from_verdict("scenes/main.pix3scene", verdict, 5)
    assert (mapped.frames, mapped.frames_requested, mapped.first_frame_ok, mapped.entry_scripts) == (
        0,
        5,
        False,
        (1, 2),
    )
    assert mapped.errors == [
        {"code": "E_SMOKE_LOAD", "message": "the page's script res://a.js did not load (HTTP 404).", "frame": 0},
        {
            "code": "E_SMOKE_SCRIPT",
            "phase": "start",
            "message": "Error: x",
            "script": "user:A",
            "stack": "s",
            "frame": 2,
        },
    ]
    assert mapped.warnings == verdict["warnings"] and (mapped.log_count, mapped.log_lines) == (41, ["[frame 0] hi"])
    assert human_run(mapped, ROOT).startswith(
        "pix3 smoke scenes/main.pix3scene — 0/5 frames drawn, 1/2 entry scripts ran: 2 errors, 1 warning\n"
    )
    assert list(run_json(mapped, ROOT)) == [
        "ok", "scene", "frames", "framesRequested", "firstFrameOk", "errors", "warnings", "nodes", "timingsMs",
        "scripts", "domMissing", "notes", "game", "logs",
    ]  # fmt: skip


def test_a_timeout_says_what_was_seen() -> None:
    plain = timeout_failure("scenes/a.pix3scene", 3, 10)
    assert plain.reason == (
        "the run did not finish within 3 s: a script stuck in a loop, or a scene too heavy for 10 frames;"
        " try --frames or --timeout."
    )
    busy = timeout_failure("scenes/a.pix3scene", 2.5, 10, "no frame for 2.6 s while the main thread was busy")
    assert busy.reason == (
        "the run did not finish within 2.5 s: no frame for 2.6 s while the main thread was busy; try --frames or --timeout."
    )


def test_json_is_plain_numbers() -> None:
    text = json.dumps(run_json(report(), ROOT))
    assert '"total": 2000' in text and '"load": 12.5' in text


def test_every_name_the_package_offers_loads_from_its_home() -> None:
    """``pix3tools.smoke``'s table of homes is the one list of what each module gives: every name
    in ``__all__`` has a home and is found there."""
    import pix3tools.smoke as smoke

    for name in smoke.__all__:
        assert getattr(smoke, name) is not None, name
    with pytest.raises(AttributeError):
        _ = smoke.JSON_STACK_LINES  # used between the modules, not offered


def test_a_virtual_time_run_says_its_step_times_were_not_measured() -> None:
    """Under virtual time the page's clock stands still inside a frame: no 0 presented as a measure."""
    virtual = report()
    virtual.timings.update(firstFrame=None, step=None)
    third = human_run(virtual, ROOT).splitlines()[2]
    assert third == "  load+onStart 12.5 ms · step times not measured (virtual time) · total 2000 ms"
    assert run_json(virtual, ROOT)["timingsMs"] == {
        "compile": None,
        "load": 12.5,
        "firstFrame": None,
        "step": None,
        "total": 2000,
    }
