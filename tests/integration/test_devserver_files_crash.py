"""A dev server SIGKILLed in the middle of a changeset, then restarted (docs/devserver-files.md, "Changesets").

The server runs as a real process (tests/support/file_api.py) whose fault hook
kills it with SIGKILL at a named point of the transaction; the restart must leave nothing
half-written.
"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.pix3 import REPO, pix3_env

SCENE = "root:\n  - id: a\n    type: Group2D\n"
API = "/__pix3/api"
CHANGESET = {
    "files": [
        {"path": "scenes/a.pix3scene", "text": "NEW SCENE"},
        {"path": "prefabs/p.prefab", "text": "NEW PREFAB", "createOnly": True},
    ]
}


def sha(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()


class Server:
    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url


Start = Callable[..., Server]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Start]:
    started: list[subprocess.Popen[str]] = []

    def launch(root: Path, fault: str | None = None) -> Server:
        port_file = tmp_path / f"port-{len(started)}"
        argv = [sys.executable, "-m", "tests.support.file_api", str(root), str(port_file)]
        process = subprocess.Popen(
            [*argv, *([fault] if fault else [])],
            cwd=REPO,
            env=pix3_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        started.append(process)
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text():
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            assert time.monotonic() < deadline, "the harness did not start"
            time.sleep(0.05)
        return Server(process, port_file.read_text())

    yield launch
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        if process.stdout:
            process.stdout.close()


def stop(server: Server) -> str:
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(10)
    return server.process.stdout.read() if server.process.stdout else ""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "scenes").mkdir(parents=True)
    (root / "scenes" / "a.pix3scene").write_text(SCENE)
    (root / "index.html").write_text("<html></html>")
    return root


def kill_during_changeset(start: Start, root: Path, point: str) -> Path:
    server = start(root, point)
    with pytest.raises(httpx.TransportError):
        httpx.post(f"{server.url}{API}/changeset", json=CHANGESET, headers={"X-Pix3": "1"}, timeout=30)
    assert server.process.wait(10) == -signal.SIGKILL
    (tx,) = (root / ".pix3" / "tx").iterdir()
    assert json.loads((tx / "intent.json").read_text())["state"] == "prepared"
    return tx


def restart(start: Start, root: Path) -> tuple[dict[str, str], str]:
    server = start(root)
    manifest = httpx.get(f"{server.url}{API}/manifest", timeout=30).json()
    history = httpx.get(f"{server.url}{API}/history?path=scenes/a.pix3scene", timeout=30).json()["entries"]
    log = stop(server)
    files = {f["path"]: f["sha256"] for f in manifest["files"] if f["kind"] == "file"}
    files["history"] = ",".join(f"{e['author']}:{e['sha256']}" for e in history)
    return files, log


@pytest.mark.slow
def test_killed_after_the_first_rename_rolls_forward(start: Start, project: Path) -> None:
    # Killed after the first rename with both files staged: the next start rolls forward.
    kill_during_changeset(start, project, "changeset:renamed:1")
    assert (project / "scenes" / "a.pix3scene").read_text() == "NEW SCENE"
    assert not (project / "prefabs" / "p.prefab").exists()  # half-done on disk before recovery
    files, log = restart(start, project)
    assert "interrupted after staging; rolled forward (2 files)" in log
    assert (project / "scenes" / "a.pix3scene").read_text() == "NEW SCENE"
    assert (project / "prefabs" / "p.prefab").read_text() == "NEW PREFAB"
    assert files["scenes/a.pix3scene"] == sha("NEW SCENE") and files["prefabs/p.prefab"] == sha("NEW PREFAB")
    assert list((project / ".pix3" / "tx").iterdir()) == []
    assert files["history"].split(",")[0] == f"editor:{sha('NEW SCENE')}"


@pytest.mark.slow
def test_killed_then_staged_file_lost_rolls_back(start: Start, project: Path) -> None:
    # A staged file lost before the restart: everything is rolled back from old/.
    tx = kill_during_changeset(start, project, "changeset:renamed:1")
    (tx / "new" / "1").unlink()
    files, log = restart(start, project)
    assert "staging incomplete; rolled back" in log
    assert (project / "scenes" / "a.pix3scene").read_text() == SCENE
    assert not (project / "prefabs" / "p.prefab").exists()
    assert files["scenes/a.pix3scene"] == sha(SCENE) and "prefabs/p.prefab" not in files
    assert files["history"] == f"external:{sha(SCENE)}"
    assert list((project / ".pix3" / "tx").iterdir()) == []


@pytest.mark.slow
def test_killed_after_both_renames_with_a_target_overwritten_rolls_back(start: Start, project: Path) -> None:
    # Killed after both renames and a target overwritten before the restart: both back to the old bytes.
    kill_during_changeset(start, project, "changeset:renamed:2")
    (project / "prefabs" / "p.prefab").write_text("someone else")
    _files, log = restart(start, project)
    assert "rolled back" in log
    assert (project / "scenes" / "a.pix3scene").read_text() == SCENE
    assert not (project / "prefabs" / "p.prefab").exists()


@pytest.mark.slow
def test_killed_after_commit_is_cleaned_up(start: Start, project: Path) -> None:
    server = start(project, "changeset:committed")
    with pytest.raises(httpx.TransportError):
        httpx.post(f"{server.url}{API}/changeset", json=CHANGESET, headers={"X-Pix3": "1"}, timeout=30)
    assert server.process.wait(10) == -signal.SIGKILL
    files, log = restart(start, project)
    assert "committed; cleaned up" in log
    assert files["scenes/a.pix3scene"] == sha("NEW SCENE") and files["prefabs/p.prefab"] == sha("NEW PREFAB")
    assert list((project / ".pix3" / "tx").iterdir()) == []
