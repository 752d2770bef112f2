"""What README.md promises: its two set-up commands are recipes that set up first, and what a new
project hits while the Pix3 packages are unpublished is what `pix3 check` reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pix3tools.core.commandtable import COMMANDS
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


def test_readme_names_every_command_and_calls_none_missing() -> None:
    """Every command this checkout dispatches is in the README, and no sentence says one is not part
    of pix3net (`pix3 smoke` was called that long after it existed)."""
    said = " ".join(README.split())
    for command in COMMANDS:
        assert f"`{command}`" in said or f"`pix3 {command}" in said, command
    sentences = re.split(r"(?<=[.)])\s", said)
    for sentence in sentences:
        assert "not part of pix3net" not in sentence and "needs the JavaScript runtime and is not" not in sentence
    assert "`pix3 smoke`** runs the project's own game page in a real headless Chrome" in said
    assert "(`docs/smoke.md`)" in said and (REPO / "docs" / "smoke.md").is_file()


def test_readme_says_what_setup_installs_and_how_long_the_tests_take() -> None:
    said = " ".join(README.split())
    installed = [
        package
        for command in just_dry_run("setup")
        for part in command.split("apt-get install")[1:]
        for package in part.strip(") ").split()
        if not package.startswith("-")
    ]
    assert installed == ["chromium", "systemd", "openssh-server", "openssh-client"]
    for package in installed:
        assert f"`{package}`" in said, package
    assert any("npm ci" in command for command in just_dry_run("setup")) and "`npm ci` in `tests/node`" in said
    assert "takes about 10 minutes on a 2-core machine, in 3 pytest-xdist workers" in said
    assert "-n 3 --dist loadfile" in " ".join(just_dry_run("test"))  # the workers README names
