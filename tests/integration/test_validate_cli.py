"""`pix3 validate` as a real process: JSON, human report, exit codes, bad input (docs/validate.md)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from pix3tools.validate import LEVEL2_UNAVAILABLE
from tests.support.pix3 import run_pix3
from tests.support.validate import make, scene


def test_json_report_shape_and_exit_1(tmp_path: Path) -> None:
    root = make(tmp_path, {"scenes/a.pix3scene": scene("  - id: a\n    type: Sprit2D\n")})
    done = run_pix3("validate", "--json", "scenes/a.pix3scene", cwd=root)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert list(report) == [
        "ok",
        "projectRoot",
        "errorCount",
        "warningCount",
        "level2",
        "files",
        "diagnostics",
        "notes",
    ]
    assert report["ok"] is False and report["projectRoot"] == str(root.resolve())
    assert [f["file"] for f in report["files"]] == ["scenes/a.pix3scene"]
    assert re.fullmatch(r"[0-9a-f]{64}", report["files"][0]["sha256"])
    first = report["diagnostics"][0]
    assert list(first) == ["severity", "code", "file", "message", "nodeId", "path", "line", "fix"]
    assert {k: first[k] for k in ("severity", "code", "file", "nodeId", "path", "line", "fix")} == {
        "severity": "error",
        "code": "E_UNKNOWN_NODE_TYPE",
        "file": "scenes/a.pix3scene",
        "nodeId": "a",
        "path": "root[0].type",
        "line": 4,
        "fix": "type: Sprite2D",
    }
    assert report["level2"]["state"] == "skipped" and report["level2"]["reason"]
    assert done.stdout.endswith("}\n") and '\n  "ok": false' in done.stdout


def test_human_report_from_a_subfolder(tmp_path: Path) -> None:
    root = make(tmp_path, {"scenes/a.pix3scene": scene("  - id: a\n    type: sprite2d\n")})
    done = run_pix3("validate", cwd=root / "scenes")
    assert done.returncode == 0, done.stderr
    assert "scenes/a.pix3scene:4  warning  W_TYPE_CASE [a]" in done.stdout
    assert "    at root[0].type\n    fix: type: Sprite2D\n" in done.stdout
    assert re.search(r"1 file\(s\) checked, 0 error\(s\), 1 warning\(s\); level 2 skipped: ", done.stdout)
    off = run_pix3("validate", "--no-hydrate", cwd=root)
    assert off.stdout.rstrip().endswith("level 2 off.")


def test_exit_2_cases(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    done = run_pix3("validate", cwd=bare)
    assert done.returncode == 2 and "no pix3project.yaml" in done.stderr
    root = make(tmp_path / "p", {"scenes/a.pix3scene": scene("  - id: a\n    type: Node2D\n")})
    bogus = run_pix3("validate", "--bogus", cwd=root)
    assert bogus.returncode == 2 and bogus.stderr.startswith("pix3 validate: unknown option --bogus\n\nUsage:")
    manifest = run_pix3("validate", "pix3project.yaml", cwd=root)
    assert manifest.returncode == 2 and "is not a .pix3scene file" in manifest.stderr
    outside = run_pix3("validate", str(bare), "--project", str(root), cwd=root)
    assert outside.returncode == 2 and "is outside the project" in outside.stderr
    project = run_pix3("validate", "--project", cwd=root)
    assert project.returncode == 2 and "--project needs a folder" in project.stderr


def test_help_lists_every_code(tmp_path: Path) -> None:
    done = run_pix3("validate", "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("Usage: pix3 validate [paths…] [--json] [--no-hydrate] [--project <dir>]\n")
    assert "\nCodes:\n" in done.stdout
    assert "  E_LOCALE_SCRIPT_KEY        L1  " in done.stdout
    assert "  W_RENDERABILITY            L2  " in done.stdout


def test_missing_target_is_e_shape(tmp_path: Path) -> None:
    root = make(tmp_path, {})
    done = run_pix3("validate", "--json", "scenes/nope.pix3scene", cwd=root)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["files"] == []
    assert report["diagnostics"][0]["code"] == "E_SHAPE"
    assert report["diagnostics"][0]["message"] == "scenes/nope.pix3scene does not exist."


def test_bad_input_never_tracebacks(tmp_path: Path) -> None:
    deep = "version: 1.0.0\nroot:\n" + "".join("  " * i + "- a:\n" for i in range(1, 2000))
    root = make(
        tmp_path / "p",
        {
            "scenes/binary.pix3scene": b"\x00\x01\x02PNG\xff\xfe" * 100,
            "scenes/latin1.pix3scene": b"version: 1.0.0\nroot: []\n# caf\xe9\n",
            "scenes/deep.pix3scene": deep,
            "scenes/flow.pix3scene": "root: " + "[" * 5000 + "]" * 5000 + "\n",
            "scenes/tab.pix3scene": "version: 1.0.0\nroot:\n\t- id: a\n",
        },
    )
    outside = tmp_path / "outside.pix3scene"
    outside.write_text(scene("  - id: o\n    type: Node2D\n"))
    os.symlink(outside, root / "scenes" / "link.pix3scene")
    os.symlink(root / "scenes" / "loop.pix3scene", root / "scenes" / "loop.pix3scene")
    done = run_pix3("validate", "--json", cwd=root)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    by_file = {d["file"]: d for d in json.loads(done.stdout)["diagnostics"]}
    assert by_file["scenes/binary.pix3scene"]["code"] == "E_YAML"
    assert "binary" in by_file["scenes/binary.pix3scene"]["message"]
    assert by_file["scenes/latin1.pix3scene"]["code"] == "E_YAML"
    assert by_file["scenes/latin1.pix3scene"]["line"] == 3
    assert by_file["scenes/deep.pix3scene"]["code"] == "E_YAML"
    assert by_file["scenes/flow.pix3scene"]["code"] == "E_YAML"
    assert by_file["scenes/tab.pix3scene"]["code"] == "E_YAML" and by_file["scenes/tab.pix3scene"]["line"] == 3
    assert by_file["scenes/loop.pix3scene"]["code"] == "E_YAML"
    assert "cannot be read" in by_file["scenes/loop.pix3scene"]["message"]
    assert "scenes/link.pix3scene" not in by_file  # a symlinked scene is read like any project file
    direct = run_pix3("validate", "scenes/link.pix3scene", cwd=root)
    assert direct.returncode == 2 and "is outside the project" in direct.stderr


def test_a_50_mb_scene(tmp_path: Path) -> None:
    root = make(tmp_path, {})
    blob = "x" * (50 * 1024 * 1024)
    (root / "scenes").mkdir()
    (root / "scenes/big.pix3scene").write_text(
        f"version: 1.0.0\ndescription: {blob}\nroot:\n  - id: a\n    type: Nod2D\n"
    )
    done = run_pix3("validate", "--json", cwd=root, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    diag = json.loads(done.stdout)["diagnostics"]
    assert [(d["code"], d["line"]) for d in diag] == [("E_UNKNOWN_NODE_TYPE", 5)]


def test_level_2_not_running_is_said_once(tmp_path: Path) -> None:
    """The summary line says level 2 was skipped and what that leaves out; no note repeats it
    (notes are for what the reference notes: --no-hydrate with user: components, …)."""
    root = make(tmp_path / "plain", {"scenes/a.pix3scene": scene("  - id: a\n    type: Node2D\n")})
    done = run_pix3("validate", cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"1 file(s) checked, 0 error(s), 0 warning(s); level 2 skipped: {LEVEL2_UNAVAILABLE}.\n"
    assert done.stdout.count("@pix3/runtime") == 1
    report = json.loads(run_pix3("validate", "--json", cwd=root).stdout)
    assert report["notes"] == [] and report["level2"] == {"state": "skipped", "reason": LEVEL2_UNAVAILABLE}
    user = make(
        tmp_path / "user",
        {
            "scenes/a.pix3scene": scene("  - id: a\n    type: Node2D\n    components:\n      - type: user:Spin\n"),
            "scripts/Spin.ts": "export class Spin extends Script {}\n",
        },
    )
    done = run_pix3("validate", cwd=user)
    assert "W_HYDRATE_SKIPPED" in done.stdout and "note:" not in done.stdout
    assert done.stdout.count("missing from this report") == 1
