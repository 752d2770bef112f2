"""Process and proxy helpers shared by the editor end-to-end tests."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path


def alive(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def get(url: str, token: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def pages_of(port: int, token: str) -> list[str]:
    status, body = get(f"http://127.0.0.1:{port}/json/list", token)
    assert status == 200, body
    return [t["url"] for t in json.loads(body) if t.get("type", "page") == "page"]


class Cleanup:
    """Every process the test may leave: killed at the end whatever happened."""

    def __init__(self) -> None:
        self.pids: list[int] = []

    def kill_all(self) -> None:
        for pid in self.pids:
            if not alive(pid):  # gone already: never signal a pid that may have been reused
                continue
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def dev_pid(root: Path) -> int:
    pid: int = json.loads((root / ".pix3" / "dev.json").read_text())["pid"]
    return pid
