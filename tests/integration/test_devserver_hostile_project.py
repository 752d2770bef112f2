"""A hostile project folder against the real dev server (docs/reliability.md, "A hostile project
folder"): links and planted files under `.pix3` never make it read, write or remove a file
outside the project, and dev.log says what it refused.

Each test plants its case in a fresh project beside a folder `outside` holding sentinel files,
starts a real `pix3 __dev-server` (or calls the real start-up code), and checks the sentinels.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import httpx
import pytest

from pix3net.devserver.control import DevServerError, spawn_server
from tests.support.devserver import dev_server
from tests.support.pix3 import run_pix3
from tests.support.ports import free_port
from tests.support.projects import make_project

X = {"X-Pix3": "1"}
API = "/__pix3/api"
SCENE = "root:\n  - id: a\n    type: Group2D\n"
SECRET = b"the user's own file, outside the project\n"
STALE_TEMP = "put-999999999-0123456789abcdef"  # named like a temp of ours whose writer is gone
TX_NAME = "1700000000000-abcdefabcdef"


def sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    (folder / "sub").mkdir(parents=True)
    for name in ("secret", "sub/secret", STALE_TEMP, f"{TX_NAME}/new/0"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(SECRET)
    return folder


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(folder).as_posix(): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_project(tmp_path / "game", {"index.html": "<p>game</p>\n", "scenes/a.pix3scene": SCENE})


def test_a_linked_tmp_is_neither_swept_nor_written_through(root: Path, outside: Path) -> None:
    (root / ".pix3").mkdir()
    (root / ".pix3" / "tmp").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    with dev_server(root) as server, httpx.Client(base_url=server.url, headers=X, timeout=30) as client:
        assert snapshot(outside) == before, "the start-up sweep emptied a folder outside the project"
        log = server.log_saying("start-up sweep of .pix3/tmp skipped")
        assert f"{root}/.pix3/tmp is a symbolic link to {outside}" in log
        put = client.put(API + "/file?path=new.txt", content=b"uploaded")
        assert (put.status_code, put.json()["error"]) == (409, "link_refused"), put.text
        assert f"{root}/.pix3/tmp is a symbolic link" in put.json()["message"]
        assert not (root / "new.txt").exists()
    assert snapshot(outside) == before
    assert (root / ".pix3" / "tmp").is_symlink(), "the link is left alone"


def test_a_linked_tx_is_neither_recovered_nor_staged_through(root: Path, outside: Path) -> None:
    (root / ".pix3").mkdir()
    (root / ".pix3" / "tx").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    with dev_server(root) as server, httpx.Client(base_url=server.url, headers=X, timeout=30) as client:
        assert snapshot(outside) == before, "recovery removed a folder outside the project"
        log = server.log_saying("changeset recovery skipped")
        assert f"{root}/.pix3/tx is a symbolic link to {outside}" in log
        assert "discarded" not in log
        files = [{"path": "scenes/b.pix3scene", "text": SCENE}]
        answer = client.post(API + "/changeset", json={"files": files})
        assert (answer.status_code, answer.json()["error"]) == (409, "link_refused"), answer.text
        assert not (root / "scenes" / "b.pix3scene").exists()
    assert snapshot(outside) == before


def test_a_planted_history_id_never_names_a_file_to_remove(root: Path, outside: Path) -> None:
    """Retention drops versions older than 7 days: a planted `id` that is a path must not be
    unlinked (an absolute one, and one climbing out with `..`)."""
    folder = root / ".pix3" / "history" / "scenes" / "a.pix3scene"
    folder.mkdir(parents=True)
    planted = [str(outside / "secret"), os.path.relpath(outside / "sub" / "secret", folder), "../../../../x"]
    lines = [
        json.dumps({"id": p, "path": "scenes/a.pix3scene", "author": "editor", "at": 0, "sha256": "0" * 64})
        for p in planted
    ]
    (folder / "index.jsonl").write_text("\n".join(lines) + "\n")
    before = snapshot(outside)
    with dev_server(root) as server, httpx.Client(base_url=server.url, headers=X, timeout=30) as client:
        entries = client.get(API + "/history", params={"path": "scenes/a.pix3scene"}).json()["entries"]
        assert [(e["author"], e["sha256"]) for e in entries] == [("external", sha(SCENE))], "planted lines are skipped"
        put = client.put(API + "/file?path=scenes/a.pix3scene", content=b"V2")
        assert put.status_code == 200, put.text
    assert snapshot(outside) == before


@pytest.mark.parametrize("old", ["absent", "old/0"])
def test_a_rollback_never_goes_through_a_linked_folder(root: Path, outside: Path, old: str) -> None:
    """A prepared intent whose path runs through `linked` (a link to a folder outside): rolled
    back, it would unlink the file outside (`absent`) or rename its old copy over it (`old/0`)."""
    (root / "linked").symlink_to(outside, target_is_directory=True)
    tx = root / ".pix3" / "tx" / TX_NAME
    (tx / "old").mkdir(parents=True)
    (tx / "old" / "0").write_bytes(b"planted over the user's file\n")
    intent = {"id": TX_NAME, "files": [{"path": "linked/secret", "sha256": "0" * 64, "old": old}], "state": "prepared"}
    (tx / "intent.json").write_text(json.dumps(intent))
    before = snapshot(outside)
    with dev_server(root) as server:
        log = server.log_saying(f"changeset {TX_NAME}: staging incomplete; rolled back")
    assert snapshot(outside) == before
    assert f"could not restore linked/secret: {root}/linked is a symbolic link to {outside}" in log
    assert not tx.exists(), "the planted changeset folder itself is cleaned up"


@pytest.mark.parametrize("where", ["the version file", "the history folder"])
def test_a_planted_version_is_never_served(root: Path, outside: Path, tmp_path: Path, where: str) -> None:
    version = "1700000000000-deadbeef"
    line = json.dumps({"id": version, "path": "scenes/a.pix3scene", "author": "editor", "at": 1, "sha256": sha(SCENE)})
    if where == "the version file":
        folder = root / ".pix3" / "history" / "scenes" / "a.pix3scene"
        folder.mkdir(parents=True)
        (folder / version).symlink_to(outside / "secret")
    else:
        elsewhere = tmp_path / "elsewhere"
        folder = elsewhere / "a.pix3scene"
        folder.mkdir(parents=True)
        (folder / version).write_bytes(SECRET)
        (root / ".pix3" / "history").mkdir(parents=True)
        (root / ".pix3" / "history" / "scenes").symlink_to(elsewhere, target_is_directory=True)
    (folder / "index.jsonl").write_text(line + "\n")
    with dev_server(root) as server, httpx.Client(base_url=server.url, headers=X, timeout=30) as client:
        got = client.get(API + "/history/version", params={"path": "scenes/a.pix3scene", "id": version})
        assert SECRET not in got.content
        assert (got.status_code, got.json()["error"]) == (409, "link_refused"), got.text
        assert "is a symbolic link to" in got.json()["message"]
        if where == "the history folder":
            listed = client.get(API + "/history", params={"path": "scenes/a.pix3scene"})
            assert (listed.status_code, listed.json()["error"]) == (409, "link_refused"), listed.text
        assert "refused:" in server.log()


@pytest.mark.parametrize("level", [("history",), ("history", "scenes")], ids=["history", "history/scenes"])
def test_a_linked_history_folder_gets_nothing_written_into_it(
    root: Path, tmp_path: Path, level: tuple[str, ...]
) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = root.joinpath(".pix3", *level)
    link.parent.mkdir(parents=True)
    link.symlink_to(target, target_is_directory=True)
    with dev_server(root) as server, httpx.Client(base_url=server.url, headers=X, timeout=30) as client:
        assert list(target.iterdir()) == [], "the start-up snapshot wrote into the link's target"
        server.log_saying(f"{link} is a symbolic link to {target}")
        put = client.put(API + "/file?path=scenes/a.pix3scene", content=b"V2")
        assert put.status_code == 200, put.text  # the write itself goes on; only its journal is refused
        record = client.post(
            API + "/history/record", json={"path": "scenes/a.pix3scene", "text": "x", "author": "rejected-draft"}
        )
        assert (record.status_code, record.json()["error"]) == (409, "link_refused"), record.text
        server.log_saying("history: could not record scenes/a.pix3scene")
    assert list(target.iterdir()) == []
    assert (root / "scenes" / "a.pix3scene").read_bytes() == b"V2"


def test_a_linked_pix3_folder_stops_the_dev_server_before_it_writes(root: Path, outside: Path) -> None:
    (root / ".pix3").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    done = run_pix3("__dev-server", "--project", str(root), "--port", str(free_port()), timeout=20)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        f"pix3 __dev-server: {root}/.pix3 is a symbolic link to {outside};"
    ), done.stderr
    assert snapshot(outside) == before


def test_starting_a_server_never_writes_through_a_planted_link(root: Path, outside: Path) -> None:
    """What `pix3 editor` and `pix3 smoke` do before the server runs: remove the old record and
    empty dev.log. A linked `.pix3` is refused and left alone."""
    link = root / ".pix3"
    link.symlink_to(outside)
    before = snapshot(outside)
    with pytest.raises(DevServerError) as refused:
        spawn_server(root, ["true"], None)
    assert f"{link} is a symbolic link to" in str(refused.value)
    assert snapshot(outside) == before
    assert link.is_symlink()


def test_a_planted_dev_log_link_is_replaced_not_emptied(root: Path, outside: Path) -> None:
    """A linked dev.log would have emptied the user's file: the link is replaced by our own log."""
    (outside / "secret").write_text("keep me")
    link = root / ".pix3" / "dev.log"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside / "secret")
    before = snapshot(outside)
    child = spawn_server(root, [sys.executable, "-c", "print('started')"], None)
    assert child.wait(timeout=20) == 0
    assert snapshot(outside) == before
    assert not link.is_symlink() and link.read_text() == "started\n"
