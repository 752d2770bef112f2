"""The dev-server side of `pix3 editor` (docs/editor.md, "The flow", steps 4–6)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pix3net.daemon.devrecord import read_dev_info
from pix3net.devserver.control import find_dev_server, stop_dev_server
from pix3tools.core.nodemodules import find_vite
from tests.support.editor import hello_server, write_dev_json
from tests.support.pix3 import run_pix3
from tests.support.ports import free_port
from tests.support.projects import make_project

DEAD_PID = 2**22 - 1


def test_read_dev_info(tmp_path: Path) -> None:
    assert read_dev_info(tmp_path) is None
    record = write_dev_json(tmp_path, 5173)
    info = read_dev_info(tmp_path)
    assert info is not None and (info.url, info.editor_url, info.pid) == (
        record["url"],
        record["editorUrl"],
        os.getpid(),
    )
    (tmp_path / ".pix3" / "dev.json").write_text('{"url": "x"}')
    assert read_dev_info(tmp_path) is None


def test_find_dev_server(tmp_path: Path) -> None:
    assert find_dev_server(tmp_path).state == "none"
    with hello_server() as port:
        write_dev_json(tmp_path, port)
        assert find_dev_server(tmp_path).state == "live"
    write_dev_json(tmp_path, free_port())
    assert find_dev_server(tmp_path).state == "stale"


def test_find_vite(tmp_path: Path) -> None:
    project = tmp_path / "a" / "b"
    project.mkdir(parents=True)
    assert find_vite(project) is None
    vite = tmp_path / "node_modules" / "vite" / "bin" / "vite.js"
    vite.parent.mkdir(parents=True)
    vite.write_text("")
    assert find_vite(project) == vite


def test_stop_with_a_dead_pid(tmp_path: Path) -> None:
    write_dev_json(tmp_path, 5173, pid=DEAD_PID)
    stopped = stop_dev_server(tmp_path)
    assert (stopped.stopped, stopped.pid) == (False, DEAD_PID)
    assert not (tmp_path / ".pix3" / "dev.json").exists()
    stopped = stop_dev_server(tmp_path)
    assert (stopped.stopped, stopped.pid) == (False, None)


def test_stop_cli_messages(tmp_path: Path, pix3_home: Path) -> None:
    root = make_project(tmp_path / "game")
    done = run_pix3("editor", "--stop", cwd=root)
    assert (done.returncode, done.stdout) == (0, "No dev server recorded in .pix3/dev.json.\n")
    write_dev_json(root, 5173, pid=DEAD_PID)
    done = run_pix3("editor", "--stop", cwd=root)
    assert (done.returncode, done.stdout) == (
        0,
        f"The dev server recorded in .pix3/dev.json (pid {DEAD_PID}) is already gone; record removed.\n",
    )
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        write_dev_json(root, 5173, pid=sleeper.pid)
        done = run_pix3("editor", "--stop", cwd=root)
        assert (done.returncode, done.stdout) == (0, f"Stopped the dev server (pid {sleeper.pid}).\n")
        assert sleeper.wait(timeout=5) != 0
    finally:
        sleeper.kill()
        sleeper.wait()


def test_outside_a_project_and_chrome_only_without_a_server(tmp_path: Path, pix3_home: Path) -> None:
    done = run_pix3("editor", cwd=tmp_path)
    assert done.returncode == 2 and "pix3project.yaml" in done.stderr and "or any parent folder" in done.stderr
    root = make_project(tmp_path / "game")
    done = run_pix3("editor", "--chrome-only", cwd=root)
    assert done.returncode == 1
    assert done.stderr.startswith("pix3 editor: no .pix3/dev.json — start the dev server first")
    write_dev_json(root, free_port())
    done = run_pix3("editor", "--chrome-only", cwd=root)
    assert done.returncode == 1 and "does not answer" in done.stderr and done.stderr.startswith("pix3 editor: ")


@pytest.mark.node
def test_a_vite_with_known_advisories_is_warned_about(tmp_path: Path, pix3_home: Path, node_modules: Path) -> None:
    """`pix3 editor` reads the project's Vite (the pinned vulnerable 6.2.0) and warns on stderr,
    naming the version that fixes it, before anything else it says; the current Vite gets none."""
    root = make_project(tmp_path / "game")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "vite").symlink_to(node_modules / "vite-6.2.0")
    done = run_pix3("editor", "--chrome-only", cwd=root)
    warning, _, rest = done.stderr.partition("\n")
    assert warning.startswith("pix3 editor: warning: Vite 6.2.0 has known dev-server advisories (")
    assert warning.endswith("; npm install vite@6.4.5 (or later).") and "CVE-2026-112946" in warning
    assert done.returncode == 1 and rest.startswith("pix3 editor: no .pix3/dev.json")
    (root / "node_modules" / "vite").unlink()
    (root / "node_modules" / "vite").symlink_to(node_modules / "vite")
    done = run_pix3("editor", "--chrome-only", cwd=root)
    assert done.stderr.startswith("pix3 editor: no .pix3/dev.json"), done.stderr


def test_live_server_no_chrome_ssh_and_no_chrome_found(tmp_path: Path, pix3_home: Path) -> None:
    root = make_project(tmp_path / "game")
    with hello_server() as port:
        record = write_dev_json(root, port)
        done = run_pix3("editor", "--no-chrome", cwd=root)
        assert done.returncode == 0, done.stderr
        assert f"Editor:     http://127.0.0.1:{port}/__pix3/" in done.stdout and "reused" in done.stdout
        assert done.stdout.startswith(f"Dev server: {record['url']} (pid {record['pid']}, reused)\n")

        fresh = tmp_path / "fresh-home"
        cdp = free_port()
        env = {"SSH_CONNECTION": "10.0.0.1 5000 10.0.0.2 22", "PATH": "", "PIX3_HOME": str(fresh)}
        done = run_pix3("editor", "--cdp-port", str(cdp), cwd=root, env=env)
        assert done.returncode == 0, done.stderr
        assert "SSH session" in done.stdout and "no token here yet" in done.stdout
        assert f"RemoteForward 127.0.0.1:{cdp} 127.0.0.1:9333" in done.stdout
        assert json.loads((fresh / "remote-forward.json").read_text()) == {"port": cdp}

        done = run_pix3("editor", cwd=root, env={"PATH": str(tmp_path / "empty")})
        assert done.returncode == 1 and "No Chrome found" in done.stderr
        assert done.stderr.startswith("pix3 editor: No Chrome found. Install Google Chrome (or Chromium)")


def test_stop_chrome_without_owner(tmp_path: Path, pix3_home: Path) -> None:
    done = run_pix3("editor", "--stop-chrome", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "No Chrome owner recorded in ~/.pix3/chrome.json.\n")


def test_parse_errors_exit_2_with_usage(tmp_path: Path) -> None:
    done = run_pix3("editor", "--what", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith('pix3 editor: unknown option "--what"\n\nUsage: pix3 editor')


def test_url_that_does_not_answer(tmp_path: Path, pix3_home: Path) -> None:
    dead = free_port()
    start = time.monotonic()
    done = run_pix3("editor", "--url", f"http://127.0.0.1:{dead}/", cwd=tmp_path)
    assert done.returncode == 1 and "does not answer as a Pix3 editor" in done.stderr
    assert time.monotonic() - start < 10


def test_public_editor_url_is_printed(tmp_path: Path, pix3_home: Path) -> None:
    root = make_project(tmp_path / "game")
    with hello_server() as port:
        write_dev_json(
            root, port, publicUrl="http://localhost:15999/", publicEditorUrl="http://localhost:15999/__pix3/"
        )
        done = run_pix3("editor", "--no-chrome", cwd=root)
    assert done.returncode == 0
    assert done.stdout.endswith(
        f"Editor:     http://127.0.0.1:{port}/__pix3/\n"
        "Browser:    http://localhost:15999/__pix3/ (dev.json publicEditorUrl)\n"
    )


def test_a_dev_server_that_cannot_start_shows_its_log(tmp_path: Path, pix3_home: Path) -> None:
    import socket

    root = make_project(tmp_path / "game")
    write_dev_json(root, free_port(), pid=DEAD_PID)  # stale: announced, then replaced
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        taken = held.getsockname()[1]
        done = run_pix3("editor", "--no-chrome", "--port", str(taken), cwd=root)
    assert done.returncode == 1
    assert done.stdout.startswith("Dev server recorded at http://127.0.0.1:")
    assert done.stdout.endswith("does not answer; starting a new one.\n")
    assert done.stderr.startswith("pix3 editor: the dev server exited with code ")
    assert "(see .pix3/dev.log):\n" in done.stderr and f"Port {taken} is already in use" in done.stderr
    assert not (root / ".pix3" / "dev.json").exists()
