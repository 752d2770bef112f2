"""`pix3 kit --json`: the same outcomes as the human report, as a stable document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.pix3 import run_pix3

pytestmark = pytest.mark.node  # the kit links three's types from the test clients


def _json(done_stdout: str) -> dict[str, object]:
    data = json.loads(done_stdout)
    assert done_stdout == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert isinstance(data, dict)
    return data


def test_install_json_names_each_file_and_its_outcome(tmp_path: Path, three_types_home: Path) -> None:
    (tmp_path / "pix3project.yaml").write_text("version: 1.0.0\nprojectType: 2d\n")
    first = run_pix3("kit", "--json", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    report = _json(first.stdout)
    assert list(report) == ["kitVersion", "projectRoot", "files", "scriptTypes", "notes", "todos"]
    assert report["projectRoot"] == str(tmp_path.resolve())
    files = report["files"]
    assert isinstance(files, list)
    assert {"path": "AGENTS.md", "action": "written"} in files
    assert report["scriptTypes"] == "written"
    skill = ".claude/skills/pix3-verify/SKILL.md"
    (tmp_path / skill).write_text("mine\n")
    again = _json(run_pix3("kit", "--json", cwd=tmp_path).stdout)
    actions = {f["path"]: f["action"] for f in again["files"]}  # type: ignore[attr-defined]
    assert actions[skill] == "skipped-edited"
    assert set(actions.values()) == {"unchanged", "skipped-edited"}


def test_migrate_json_lists_the_1x_steps(old: Path) -> None:
    done = run_pix3("kit", "--migrate", "--json", cwd=old)
    assert done.returncode == 0, done.stderr
    report = _json(done.stdout)
    assert list(report) == [
        "migratedFrom",
        "kitVersion",
        "projectRoot",
        "steps",
        "files",
        "scriptTypes",
        "notes",
        "todos",
    ]
    assert report["migratedFrom"] == "1.6.2"
    steps = report["steps"]
    assert isinstance(steps, list) and steps
    assert {s["action"] for s in steps} <= {"removed", "kept", "staged"}
    assert any(s["path"] == "pix3project.yaml" and "cloud-9" in s["detail"] for s in steps)
