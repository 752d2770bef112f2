"""Processes a test started or watches: is a pid alive, wait for it to go, poll a condition, clean up."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path


def pid_exists(pid: int) -> bool:
    """The pid names a process, a zombie included (a child of this process is reaped first)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def pid_alive(pid: int) -> bool:
    """The process runs: it exists and is not a zombie."""
    if not pid_exists(pid):
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, timeout: float = 10) -> bool:
    """Whether the process ended within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def wait_until(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """Poll ``predicate`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def processes_with(text: str) -> list[int]:
    """Pids whose command line contains ``text``."""
    found = []
    needle = text.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline:
            found.append(int(entry.name))
    return found


def kill_owner(home: Path, pid: int) -> None:
    """A Chrome owner a test started (``pid``, with ``home``'s profile): it and its Chrome killed, reaped."""
    for victim in (pid, *processes_with(str(home / "chrome"))):
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


class Cleanup:
    """Every process the test may leave: killed at the end whatever happened."""

    def __init__(self) -> None:
        self.pids: list[int] = []

    def kill_all(self) -> None:
        for pid in self.pids:
            if not pid_exists(pid):  # gone already: never signal a pid that may have been reused
                continue
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
