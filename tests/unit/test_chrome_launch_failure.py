"""Chrome launch failures name their real cause (issue 13): a PIX3_CHROME that cannot be started,
a window with no display, a profile another Chrome holds — and only then the reference's guess."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from pix3net.owner.chrome.diagnose import launch_failure, profile_holder
from pix3net.owner.chrome.discover import chrome_problem, find_chrome

WHY = "Chrome exited before it answered (code 1, signal -)"
PROFILE = "/home/u/.pix3/chrome"


def _failure(**kw: object) -> str:
    args: dict[str, object] = {
        "profile": PROFILE, "headless": True, "exit_code": 1, "stderr_tail": [], "env": {}, "platform": "linux",
    }  # fmt: skip
    args.update(kw)
    return launch_failure(WHY, **args)  # type: ignore[arg-type]


def test_missing_or_unusable_pix3_chrome(tmp_path: Path) -> None:
    env = {"PIX3_CHROME": "x"}
    fix = "point PIX3_CHROME at the Chrome binary (or unset it to use the one on the PATH)."
    missing = tmp_path / "no-chrome"
    assert chrome_problem(str(missing), env) == f"PIX3_CHROME names {missing}, which does not exist: {fix}"
    assert chrome_problem(str(tmp_path), env) == f"PIX3_CHROME names {tmp_path}, which is a folder: {fix}"
    plain = tmp_path / "chrome.sh"
    plain.write_text("#!/bin/sh\n")
    plain.chmod(0o644)
    assert (
        chrome_problem(str(plain), env) == f"PIX3_CHROME names {plain}, which is not executable: chmod +x it, or {fix}"
    )
    plain.chmod(0o755)
    assert chrome_problem(str(plain), env) is None
    assert chrome_problem("nochrome-here", env) == f"PIX3_CHROME names nochrome-here, which is not on the PATH: {fix}"


def test_a_bare_pix3_chrome_is_looked_up_on_the_path(tmp_path: Path) -> None:
    binary = tmp_path / "my-chrome"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    assert find_chrome({"PIX3_CHROME": "my-chrome", "PATH": str(tmp_path)}, "linux") == str(binary)
    assert find_chrome({"PIX3_CHROME": "my-chrome", "PATH": ""}, "linux") == "my-chrome"  # then refused by name


def test_profile_in_use_by_exit_code_words_or_lock() -> None:
    locked = (
        f"{WHY}: the profile {PROFILE} is locked by another Chrome — close that Chrome (pix3 editor --stop-chrome,"
        " if pix3 started it) or set PIX3_CHROME_PROFILE to another folder, then run pix3 editor again."
    )
    assert _failure(exit_code=21) == locked
    said = ["[1:1:ERROR:process_singleton_posix.cc(349)] Failed to create /p/SingletonLock: File exists (17)"]
    assert _failure(stderr_tail=said) == locked
    assert _failure(exit_code=0, holder=4242) == locked.replace("another Chrome —", "another Chrome (pid 4242) —")
    # A locked profile wins over a missing display (Chrome checks the lock first).
    assert _failure(exit_code=21, headless=False) == locked


def test_a_window_without_a_display() -> None:
    no_display = (
        f"{WHY}: there is no display for a Chrome window (DISPLAY and WAYLAND_DISPLAY are not set) — use"
        " pix3 editor --headless, or run it in a desktop session."
    )
    assert _failure(headless=False) == no_display
    said = ["[1:1:ERROR:ozone_platform_x11.cc(257)] Missing X server or $DISPLAY"]
    assert _failure(stderr_tail=said, env={"DISPLAY": ":9"}) == no_display
    # A display, or headless, or not Linux: not the cause.
    assert "no display" not in _failure(headless=False, env={"DISPLAY": ":0"})
    assert "no display" not in _failure(headless=False, env={"WAYLAND_DISPLAY": "wayland-0"})
    assert "no display" not in _failure(headless=False, platform="darwin")


def test_otherwise_the_references_guess() -> None:
    assert _failure(exit_code=0) == (
        f"{WHY}. A Chrome that already runs the profile {PROFILE} (an editor window of an earlier pix3 editor?)"
        " takes a new launch over: close it and run pix3 editor again."
    )


def test_profile_holder_reads_a_live_chrome_lock(tmp_path: Path) -> None:
    assert profile_holder(str(tmp_path)) is None
    lock = tmp_path / "SingletonLock"
    host = socket.gethostname()
    # A live process whose name says chrome (Linux names it after its executable).
    fake = tmp_path / "chromium-fake"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", fake)
    holder = subprocess.Popen([str(fake), "30"])
    comm = Path(f"/proc/{holder.pid}/comm")
    deadline = time.monotonic() + 10
    while comm.read_text().strip() != fake.name and time.monotonic() < deadline:
        time.sleep(0.01)  # Popen returns as the exec starts, before the process is renamed
    try:
        os.symlink(f"{host}-{holder.pid}", lock)
        assert profile_holder(str(tmp_path)) == holder.pid
        lock.unlink()
        os.symlink(f"other-host-{holder.pid}", lock)  # another machine's lock: not ours to judge
        assert profile_holder(str(tmp_path)) is None
        lock.unlink()
        os.symlink(f"{host}-{os.getpid()}", lock)  # a pid reused by something that is not Chrome
        assert profile_holder(str(tmp_path)) is None
    finally:
        holder.kill()
        holder.wait()
    lock.unlink()
    os.symlink(f"{host}-{holder.pid}", lock)  # the holder is gone: a stale lock
    assert profile_holder(str(tmp_path)) is None
