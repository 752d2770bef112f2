"""A path no file system can hold (a 5 000-character name, 30 folders of 200 characters) or one
that cannot be looked up (a loop of links) is a path that does not exist: each command gives its
ordinary "not found" answer, never `[Errno 36] File name too long` and exit 1 (docs/cli.md,
"Entry rules")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.pix3 import run_pix3
from tests.support.projects import make_project

LONG_NAME = "a" * 5000
LONG_PATH = "/".join(["a" * 200] * 30)
TYPED = {"a 5000-character name": LONG_NAME, "30 folders of 200 characters": LONG_PATH, "a loop of links": "loop/x"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = make_project(tmp_path / "game", {"scenes/a.pix3scene": "root: []\n"})
    (project / "loop").symlink_to("loop")
    return project


@pytest.mark.parametrize("typed", TYPED.values(), ids=TYPED.keys())
def test_smoke_says_no_such_scene(root: Path, typed: str) -> None:
    done = run_pix3("smoke", typed, "--json", cwd=root)
    assert done.returncode == 2, done.stderr[-300:]
    report = json.loads(done.stdout)
    assert (report["ok"], report["code"], report["scene"]) == (False, "E_SMOKE_NO_SCENE", typed)
    human = run_pix3("smoke", typed, cwd=root)
    assert human.returncode == 2
    assert f"could not run — E_SMOKE_NO_SCENE: {typed} is not a file in the project" in human.stdout + human.stderr


@pytest.mark.parametrize("typed", TYPED.values(), ids=TYPED.keys())
def test_the_other_commands_say_not_found(root: Path, typed: str) -> None:
    tree = run_pix3("tree", typed, cwd=root)
    assert (tree.returncode, tree.stderr) == (2, f"pix3 tree: {typed} not found (looked in {root} and {root}).\n")
    character = run_pix3("character-compile", typed, cwd=root)
    assert (character.returncode, character.stderr) == (2, f"pix3 character-compile: {typed} does not exist.\n")
    scene = run_pix3("validate", typed + ".pix3scene", "--json", cwd=root)
    assert scene.returncode == 1, scene.stderr[-300:]
    assert json.loads(scene.stdout)["errorCount"] == 1
    other = run_pix3("validate", typed, cwd=root)
    assert other.returncode == 2 and other.stderr.startswith(f"pix3 validate: {typed} is not a .pix3scene file\n")
    for command in ("validate", "kit", "check", "gap", "tree"):
        done = run_pix3(command, "--project", typed, cwd=root)
        assert done.returncode == 2, (command, done.stderr[-300:])
        assert done.stderr.startswith(f"pix3 {command}: no pix3project.yaml in {root / typed}"), (command, done.stderr)
