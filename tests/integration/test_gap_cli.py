"""`pix3 gap` as a real process: dispatch, exit codes, an unwritable `.pix3`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.pix3 import run_pix3


def test_records_through_the_entry(tmp_path: Path) -> None:
    (tmp_path / "pix3project.yaml").write_text("version: 1.0.0\n")
    done = run_pix3("gap", "no tween node", "--kind", "node", "--json", cwd=tmp_path, env={"CLAUDECODE": "1"})
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert list(record) == ["ts", "agent", "kind", "summary"]
    assert record["ts"].endswith("Z") and len(record["ts"]) == 24
    assert (tmp_path / ".pix3" / "gaps.jsonl").read_text() == done.stdout


def test_usage_error_exits_2_with_usage(tmp_path: Path) -> None:
    (tmp_path / "pix3project.yaml").write_text("version: 1.0.0\n")
    done = run_pix3("gap", "x", "--kind", "wish", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith('pix3 gap: --kind is one of capability, tool, node, doc, other, not "wish"\n\n')
    assert "Usage: pix3 gap" in done.stderr


def test_outside_a_project_exits_2(tmp_path: Path) -> None:
    done = run_pix3("gap", "x", cwd=tmp_path)
    assert done.returncode == 2
    assert "pix3project.yaml" in done.stderr


def test_unwritable_pix3_folder_is_exit_1_and_says_where(tmp_path: Path) -> None:
    (tmp_path / "pix3project.yaml").write_text("version: 1.0.0\n")
    (tmp_path / ".pix3").write_text("a file where the folder should be")
    done = run_pix3("gap", "x", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("pix3 gap: ")
    assert "nothing was recorded" in done.stderr
    assert done.stdout == ""
