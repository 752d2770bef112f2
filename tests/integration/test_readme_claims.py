"""What README.md promises: its two set-up commands are recipes that set up first, and what a new
project hits while the Pix3 packages are unpublished is what `pix3 check` reports."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.just import just_dry_run
from tests.support.pix3 import REPO, run_pix3

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_set_up_commands_are_recipes() -> None:
    for recipe in ("demo", "test"):
        assert f"```sh\npip install rust-just && just {recipe}\n```" in README
        commands = just_dry_run(recipe)
        assert commands[: len(just_dry_run("setup"))] == just_dry_run("setup"), f"just {recipe} runs setup first"


def test_readme_says_what_a_new_project_hits_and_check_agrees(tmp_path: Path) -> None:
    """The packages are unpublished: the README says so, and says what `pix3 check` then reports."""
    said = " ".join(README.split())
    assert "are **not published yet**" in said
    assert "`npm install` in it fails" in said and "`E_DEPENDENCIES_MISSING` (exit 1)" in said
    assert "the demo shows" in said
    assert run_pix3("new", "2d", "game", cwd=tmp_path).returncode == 0
    done = run_pix3("check", "--json", cwd=tmp_path / "game")
    report = json.loads(done.stdout)
    errors = [d["code"] for d in report["diagnostics"] if d["severity"] == "error"]
    assert (done.returncode, errors) == (1, ["E_DEPENDENCIES_MISSING"])
