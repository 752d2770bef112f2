"""Helpers for tests that run `pix3 __chrome-owner` as a real process (fake or real Chrome)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.pix3 import pix3_argv, pix3_env
from tests.support.processes import processes_with, wait_until


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
