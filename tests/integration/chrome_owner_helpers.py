"""Helpers for tests that run `pix3 __chrome-owner` as a real process (fake or real Chrome)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import REPO, pix3_argv, pix3_env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def fake_chrome_wrapper(folder: Path, *extra: str, name: str = "fake-chrome") -> Path:
    """A PIX3_CHROME script that records its argv (one per line) and execs the fake Chrome."""
    script = folder / name
    argv_file = folder / f"{name}.argv"
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > {argv_file}\n'
        f'cd {REPO} && exec {sys.executable} -m tests.fakechrome {" ".join(extra)} "$@"\n'
    )
    script.chmod(0o755)
    return script


def real_chrome_wrapper(folder: Path, chromium: str, *flags: str) -> Path:
    """A PIX3_CHROME script that execs Chromium with the quiet test flags (fds 3/4 pass through)."""
    script = folder / "chromium-quiet"
    script.write_text(f'#!/bin/sh\nexec {chromium} {" ".join(flags)} "$@"\n')
    script.chmod(0o755)
    return script


def pid_alive(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


@dataclass
class Owner:
    process: subprocess.Popen[str]
    home: Path
    profile: Path
    url: str

    @property
    def record(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.home / "chrome.json").read_text())
        return data

    @property
    def port(self) -> int:
        return int(self.record["port"])

    @property
    def token(self) -> str:
        return (self.home / "cdp-token").read_text().strip()

    def wait_listening(self, timeout: float = 30) -> None:
        wait_until(
            lambda: (self.home / "chrome.json").exists() or self.process.poll() is not None, timeout, "the record"
        )
        if self.process.poll() is not None:
            raise AssertionError(f"owner exited {self.process.returncode}:\n{self.output()}")

    def wait_exit(self, timeout: float = 15) -> int:
        return self.process.wait(timeout=timeout)

    def output(self) -> str:
        """What the owner logged so far (its stdout, i.e. what chrome-owner.log would hold)."""
        return (self.home / "owner-stdout.log").read_text(encoding="utf-8", errors="replace")


@contextlib.contextmanager
def run_owner(
    home: Path,
    chrome: Path | str,
    *,
    port: int = 0,
    headless: bool = True,
    url: str = "http://localhost:5173/__pix3/",
    env: dict[str, str] | None = None,
) -> Iterator[Owner]:
    """`pix3 __chrome-owner` with its stdout captured; the owner and its Chrome die with the test."""
    profile = home / "chrome"
    options = {"chrome": str(chrome), "port": port, "profile": str(profile), "url": url}
    if headless:
        options["headless"] = True
    with open(home / "owner-stdout.log", "wb") as out:
        process = subprocess.Popen(
            pix3_argv("__chrome-owner", json.dumps(options)),
            env=pix3_env({"PIX3_HOME": str(home), **(env or {})}),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    owner = Owner(process, home, profile, url)
    try:
        yield owner
    finally:
        chrome_pid = None
        with contextlib.suppress(OSError, ValueError, KeyError):
            chrome_pid = int(owner.record["chromePid"])
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        for pid in filter(None, [chrome_pid, *processes_with(str(profile))]):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


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
