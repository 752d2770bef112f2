"""Chrome launch failures with real Chromium name their real cause (issue 13): a window without a
display says to use --headless, a profile another Chrome holds says which Chrome; nothing is left
running and no record is written."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.chrome import QUIET_CHROME_FLAGS, chrome_wrapper
from tests.support.editor import hello_server, write_dev_json
from tests.support.pix3 import pix3_argv, pix3_env, run_pix3
from tests.support.ports import free_port
from tests.support.processes import wait_gone, wait_until
from tests.support.projects import make_project

pytestmark = [pytest.mark.chromium, pytest.mark.e2e]


def test_a_window_without_a_display_says_use_headless(tmp_path: Path, pix3_home: Path, chromium: str) -> None:
    wrapper, _ = chrome_wrapper(tmp_path, chromium)
    root = make_project(tmp_path / "game")
    env = pix3_env({"PIX3_CHROME": str(wrapper)})
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):  # a Linux box without a desktop session
        env.pop(name, None)
    with hello_server() as port:
        write_dev_json(root, port)
        done = subprocess.run(
            pix3_argv("editor", "--cdp-port", str(free_port())),
            cwd=root, env=env, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 1, done.stdout
    first = done.stderr.splitlines()[0]
    assert first.startswith("pix3 editor: Chrome exited before it answered (code 1, signal -): there is no display")
    assert first.endswith("— use pix3 editor --headless, or run it in a desktop session.")
    assert "close it and run pix3 editor again" not in done.stderr
    assert "Missing X server or $DISPLAY" in done.stderr  # Chrome's own words, in the log's tail
    assert not (pix3_home / "chrome.json").exists()


def test_a_profile_another_chrome_holds_names_that_chrome(tmp_path: Path, pix3_home: Path, chromium: str) -> None:
    profile = pix3_home / "chrome"
    other = subprocess.Popen(
        [chromium, "--headless=new", "--no-sandbox", f"--user-data-dir={profile}", "--remote-debugging-port=0",
         *QUIET_CHROME_FLAGS, "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        lock = profile / "SingletonLock"
        wait_until(
            lambda: lock.is_symlink() and os.readlink(lock).endswith(f"-{other.pid}"), 20, "Chrome's profile lock"
        )
        wrapper, argv_file = chrome_wrapper(tmp_path, chromium)
        root = make_project(tmp_path / "game")
        with hello_server() as port:
            write_dev_json(root, port)
            done = run_pix3(
                "editor", "--headless", "--cdp-port", str(free_port()), cwd=root, env={"PIX3_CHROME": str(wrapper)}
            )
        assert done.returncode == 1, done.stdout
        assert done.stderr == (
            f"pix3 editor: Chrome was not launched: the profile {profile} is locked by another Chrome (pid"
            f" {other.pid}) — close that Chrome (pix3 editor --stop-chrome, if pix3 started it) or set"
            " PIX3_CHROME_PROFILE to another folder, then run pix3 editor again.\n"
        )
        assert not argv_file.exists()  # no second Chrome was started on the profile
        assert not (pix3_home / "chrome.json").exists()
        assert other.poll() is None  # and the other Chrome was left alone
    finally:
        other.terminate()
        other.wait(10)
    assert wait_gone(other.pid)
