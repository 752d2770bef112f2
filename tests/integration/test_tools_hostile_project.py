"""A hostile project folder against the file tools (docs/reliability.md, "A hostile project
folder"): `pix3 kit`, `pix3 check`'s script types, `pix3 gap` and the dev-server record readers
never read, write or remove a file outside the project through a planted link or a path read
from disk, and say what they refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pix3net.daemon.devrecord import read_dev_info
from pix3net.devserver.control import Stopped, stop_dev_server
from pix3tools.check._layout import prepare
from pix3tools.kit import KitError, WriteError, install, migrate
from pix3tools.scripttypes import cache_prefix
from tests.support.kit import old_kit_project
from tests.support.node import fake_three
from tests.support.pix3 import run_pix3

SECRET = b"the user's own file, outside the project\n"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    (folder / "sub").mkdir(parents=True)
    (folder / "secret").write_bytes(SECRET)
    (folder / "sub" / "secret").write_bytes(SECRET)
    return folder


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(folder).as_posix(): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "game"
    project.mkdir()
    (project / "pix3project.yaml").write_text("version: 1.0.0\nprojectType: 2d\nmetadata:\n  projectName: G\n")
    return project


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A PIX3_HOME whose cache holds a stand-in of three's types (nothing is installed)."""
    folder = tmp_path / "home"
    fake_three(cache_prefix(folder))
    return folder


@pytest.mark.parametrize("planted", [".pix3", ".claude"])
def test_the_kit_writes_nothing_through_a_linked_folder(root: Path, outside: Path, home: Path, planted: str) -> None:
    (root / planted).symlink_to(outside, target_is_directory=True)
    before, project = snapshot(outside), snapshot(root)
    with pytest.raises((KitError, WriteError)) as refused:  # refused reading (.claude) or writing (.pix3)
        install(root, home=home)
    assert snapshot(outside) == before
    assert snapshot(root) == project, "all or nothing: the project is as it was"
    assert str(refused.value).startswith(f"nothing was changed: {root / planted} is a symbolic link to {outside};")


def test_kit_migrate_never_removes_a_path_its_manifest_names_outside(tmp_path: Path, outside: Path, home: Path) -> None:
    """A 1.x manifest lists files the kit wrote; one that names a path outside the project (absolute,
    or climbing out with `..`) with the right hash would be removed as a retired kit file."""
    root = old_kit_project(tmp_path / "old")
    manifest = root / ".pix3" / "kit-manifest.json"
    record = json.loads(manifest.read_text())
    record["files"][str(outside / "secret")] = sha(SECRET)
    record["files"]["../outside/sub/secret"] = sha(SECRET)
    manifest.write_text(json.dumps(record))
    before = snapshot(outside)
    report = migrate(root, home=home)
    assert snapshot(outside) == before
    assert "outside" not in report
    assert "removed   .claude/skills/pix3-live/SKILL.md" in report, "the real retired files still go"


@pytest.mark.parametrize("planted", [".pix3", ".pix3/types"])
def test_the_script_types_are_never_written_through_a_link(root: Path, outside: Path, home: Path, planted: str) -> None:
    link = root / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    layout = prepare(root, home, offline=True)
    assert snapshot(outside) == before
    assert link.is_symlink(), "the link is left alone"
    assert layout.unavailable is not None and f"{link} is a symbolic link to {outside}" in str(layout.unavailable)


def test_check_reports_a_linked_pix3_folder(root: Path, outside: Path, home: Path) -> None:
    (root / ".pix3").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    done = run_pix3("check", "--json", "--offline", "--no-sync", cwd=root, env={"PIX3_HOME": str(home)})
    assert snapshot(outside) == before
    report = json.loads(done.stdout)
    messages = [d["message"] for d in report["diagnostics"] if d["code"] == "E_TYPECHECK_UNAVAILABLE"]
    assert any(f"{root}/.pix3 is a symbolic link to {outside}" in m for m in messages), report["diagnostics"]


@pytest.mark.parametrize("planted", [".pix3", ".pix3/gaps.jsonl"])
def test_gap_appends_nothing_through_a_link(root: Path, outside: Path, planted: str) -> None:
    link = root / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside if planted == ".pix3" else outside / "secret")
    before = snapshot(outside)
    done = run_pix3("gap", "no such node", cwd=root)
    assert snapshot(outside) == before
    assert done.returncode == 1
    assert (
        done.stderr
        == f"pix3 gap: nothing was recorded: {link} is a symbolic link to {outside}"
        + ("" if planted == ".pix3" else "/secret")
        + f"; pix3 never follows links it finds in a project's folders, so it left it alone: remove the link (rm {link}) and run again.\n"
    )
    listed = run_pix3("gap", "--list", cwd=root)
    assert listed.returncode == 1 and f"{link} is a symbolic link" in listed.stderr


def test_a_dev_json_link_is_no_record(root: Path, outside: Path) -> None:
    (outside / "dev.json").write_text(json.dumps({"url": "http://localhost:1/", "editorUrl": "x", "pid": 1}))
    (root / ".pix3").mkdir()
    (root / ".pix3" / "dev.json").symlink_to(outside / "dev.json")
    assert read_dev_info(root) is None
    (root / ".pix3" / "dev.json").unlink()
    (root / ".pix3").rmdir()
    (root / ".pix3").symlink_to(outside, target_is_directory=True)
    assert read_dev_info(root) is None


def test_a_planted_record_naming_no_possible_pid_is_removed(root: Path) -> None:
    (root / ".pix3").mkdir()
    record = {"url": "http://localhost:1/", "editorUrl": "http://localhost:1/__pix3/", "pid": 10**30}
    (root / ".pix3" / "dev.json").write_text(json.dumps(record))
    assert stop_dev_server(root) == Stopped(False, 10**30)
    assert not (root / ".pix3" / "dev.json").exists()
