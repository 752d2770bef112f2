"""The justfile's recipes on a fresh machine: `setup` installs the npm test clients exactly as the
lock file says (and never rewrites it), `lint` installs what it runs, `bench` fails on a missed target."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.just import just_dry_run
from tests.support.node import NODE_DIR


@pytest.mark.node
def test_the_lock_file_is_what_npm_ci_installs(tmp_path: Path) -> None:
    """`npm ci` refuses a lock file out of step with package.json (the state in which an `npm install`
    would rewrite it); this is the check it makes, on a copy, without installing anything."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is missing: install Node.js 20 with npm")
    for name in ("package.json", "package-lock.json"):
        shutil.copy(NODE_DIR / name, tmp_path / name)
    before = (tmp_path / "package-lock.json").read_bytes()
    done = subprocess.run(
        [npm, "ci", "--dry-run", "--no-audit", "--no-fund"], cwd=tmp_path, capture_output=True, text=True,
        check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "package-lock.json").read_bytes() == before
    lock = json.loads(before)
    assert lock["packages"][""]["dependencies"] == json.loads((NODE_DIR / "package.json").read_text())["dependencies"]


def test_setup_installs_the_npm_clients_with_npm_ci() -> None:
    npm_lines = [line for line in just_dry_run("setup") if "npm " in line]
    assert npm_lines and all("npm ci " in line and "npm install" not in line for line in npm_lines), npm_lines


def test_lint_installs_what_it_runs() -> None:
    commands = just_dry_run("lint")
    setup = just_dry_run("setup")
    assert commands[: len(setup)] == setup, "lint must run setup first (ruff and mypy come from it)"
    tools = commands[len(setup) :]
    python = os.environ.get("PYTHON", "python3")  # the justfile's interpreter
    assert tools == [f"{python} -m ruff check .", f"{python} -m ruff format --check .", f"{python} -m mypy"]
