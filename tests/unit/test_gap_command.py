"""`pix3 gap` in process with a fixed clock: records, listing, refusals (docs/gap.md)."""

from __future__ import annotations

import io
import json
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pix3tools.gap import GAPS_FILE, append_record, build_record, detect_agent, read_records
from pix3tools.gap.command import main

NOW = datetime(2026, 10, 10, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pix3project.yaml").write_text("version: 1.0.0\n")
    (tmp_path / "scenes").mkdir()
    return tmp_path


def gap(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, cwd=cwd, env=env or {}, now=lambda: NOW, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_records_then_lists(project: Path) -> None:
    code, out, err = gap(
        [
            "no node for a 9-slice panel",
            "--kind",
            "node",
            "--detail",
            "built it from 9 Sprite2D\nby hand",
            "--context",
            "scenes/ui/shop.pix3scene",
        ],
        project / "scenes",
        {"CLAUDECODE": "1"},
    )
    assert (code, out, err) == (0, "Recorded in .pix3/gaps.jsonl: [node] no node for a 9-slice panel\n", "")
    code, _, _ = gap(["  pix3_scene has\n no filter by type "], project / "scenes")
    assert code == 0
    raw = (project / GAPS_FILE).read_text()
    assert raw.endswith("\n")
    lines = raw.split("\n")[:-1]
    assert len(lines) == 2
    assert lines[0] == json.dumps(
        {
            "ts": "2026-10-10T12:00:00.000Z",
            "agent": "claude-code",
            "kind": "node",
            "summary": "no node for a 9-slice panel",
            "detail": "built it from 9 Sprite2D\nby hand",
            "context": "scenes/ui/shop.pix3scene",
        },
        separators=(",", ":"),
    )
    assert lines[1] == '{"ts":"2026-10-10T12:00:00.000Z","kind":"other","summary":"pix3_scene has no filter by type"}'
    code, out, _ = gap(["--list"], project)
    assert code == 0
    assert "node       [claude-code] no node for a 9-slice panel" in out
    assert out.count("\n") == 2
    code, out, _ = gap(["--list", "--json"], project)
    assert [r["kind"] for r in json.loads(out)] == ["node", "other"]


@pytest.mark.parametrize(
    ("argv", "message", "with_usage"),
    [
        ([], "say what was missing", False),
        (["x", "--kind", "wish"], "--kind is one of capability, tool, node, doc, other", True),
        (["a", "b"], "one summary only", True),
        (["x" * 201], "at most 200", False),
        (["x", "--what"], "unknown option", True),
        (["x", "--detail"], "--detail needs a value", True),
        (["x", "--detail", "d" * 4001], "at most 4000", False),
        (["x", "--context", "c" * 501], "at most 500", False),
    ],
)
def test_bad_input_exits_2_and_records_nothing(project: Path, argv: list[str], message: str, with_usage: bool) -> None:
    code, out, err = gap(argv, project)
    assert code == 2
    assert out == ""
    assert err.startswith("pix3 gap: ")
    assert message in err
    assert ("Usage: pix3 gap" in err) == with_usage
    assert not (project / GAPS_FILE).exists()


def test_no_project_is_exit_2_and_checked_before_the_summary(tmp_path: Path) -> None:
    code, _, err = gap([], tmp_path)
    assert code == 2
    assert "pix3project.yaml" in err and "or any parent folder" in err
    code, _, err = gap(["x", "--project", "nowhere"], tmp_path)
    assert code == 2
    assert "or any parent folder" in err


def test_valued_flags_take_the_next_token_whatever_it_is(project: Path) -> None:
    code, out, _ = gap(["x", "--detail", "--list", "--json"], project)
    assert code == 0
    assert json.loads(out)["detail"] == "--list"


def test_help_anywhere(project: Path) -> None:
    code, out, _ = gap(["x", "--bogus", "-h"], project)
    assert code == 0
    assert out.startswith("Usage: pix3 gap")


def test_list_ignores_a_summary_and_says_when_empty(project: Path) -> None:
    assert gap(["ignored", "--list"], project)[1] == "No gaps recorded (.pix3/gaps.jsonl).\n"
    assert gap(["--list", "--json"], project)[1] == "[]\n"


def test_reading_skips_torn_and_foreign_lines(project: Path) -> None:
    (project / ".pix3").mkdir()
    (project / GAPS_FILE).write_text(
        '{"ts":"t","kind":"tool","summary":"ok"}\n{"ts":"t","kind":"to\n\n[1]\n{"kind":2,"summary":"x"}\n'
    )
    assert [r["summary"] for r in read_records(project)] == ["ok"]


def test_agent_from_the_environment() -> None:
    assert detect_agent({"CLAUDECODE": "1"}) == "claude-code"
    assert detect_agent({"CODEX_SANDBOX": "seatbelt"}) == "codex"
    assert detect_agent({"PI_CODING_AGENT": "1"}) == "pi"
    assert detect_agent({"AI_AGENT": "pi"}) == "pi"
    assert detect_agent({"CLAUDECODE": "0"}) is None
    assert detect_agent({}) is None


def test_agent_flag_wins_and_empty_means_none(project: Path) -> None:
    code, out, _ = gap(["x", "--agent", "cursor", "--json"], project, {"CLAUDECODE": "1"})
    assert code == 0 and json.loads(out)["agent"] == "cursor"
    code, out, _ = gap(["x", "--agent", "", "--json"], project, {"CLAUDECODE": "1"})
    assert code == 0
    assert "agent" not in json.loads(out)


def test_concurrent_appends_never_interleave(project: Path) -> None:
    def writer(n: int) -> None:
        for i in range(200):
            append_record(project, build_record(now=NOW, kind="tool", summary=f"w{n}-{i}", detail="d" * 900))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = (project / GAPS_FILE).read_text().split("\n")[:-1]
    assert len(lines) == 800
    assert all(json.loads(line)["detail"] == "d" * 900 for line in lines)
