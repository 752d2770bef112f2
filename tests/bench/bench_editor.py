"""`pix3 editor`, whole process, against its limits (issue 14), side by side in one run:

- nothing running (dev server + owner + Chrome + tab) with ``--headless``, against a bare
  ``chromium --headless --remote-debugging-port`` until its ``/json/version`` answers — target ≤ 3×;
- everything reused, against ``python -c pass`` run by the same interpreter — target ≤ 15×.

Runs are interleaved (a cold pix3 start, then a bare Chromium start, …) so load on this shared
machine hits both alike; medians. Profiles are kept between runs on both sides (a day-to-day
start, not the first ever); the first run of each is a warm-up. Python writes its bytecode cache
here as it would for a user (``PYTHONDONTWRITEBYTECODE`` is dropped for the measured commands).
Everything started is stopped at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.bench._report import Result, editor_scratch, median_ms, pix3_env, time_process
from tests.support.chrome import QUIET_CHROME_FLAGS
from tests.support.ports import free_port

COLD_RUNS = 5  # after one warm-up each
REUSE_RUNS = 15


def _env(home: Path, chrome: Path) -> dict[str, str]:
    env = {**pix3_env(), "PIX3_HOME": str(home), "PIX3_CHROME": str(chrome)}
    for name in ("SSH_CONNECTION", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    return env


def _pix3(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "pix3net", *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _stop(project: Path, env: dict[str, str]) -> None:
    for stop in (["editor", "--stop-chrome"], ["editor", "--stop"]):
        _pix3(stop, project, env)
    if (project / ".pix3" / "dev.json").exists():  # --stop waits for the server: a record means it did not go
        raise RuntimeError(f"the dev server did not stop: {(project / '.pix3' / 'dev.json').read_text()}")


def _cold_pix3(project: Path, env: dict[str, str], cdp: int, dev: int) -> float:
    start = time.perf_counter()
    done = _pix3(["editor", "--headless", "--cdp-port", str(cdp), "--port", str(dev)], project, env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or "launched behind" not in done.stdout or "started" not in done.stdout:
        raise RuntimeError(f"pix3 editor did not start everything:\n{done.stdout}{done.stderr}")
    return elapsed


def _version_answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=1) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def _bare_chromium(chromium: str, profile: Path) -> float:
    port = free_port()
    argv = [
        chromium,
        "--headless",
        f"--remote-debugging-port={port}",
        f"--user-data-dir={profile}",
        *QUIET_CHROME_FLAGS,
    ]
    if os.geteuid() == 0:
        argv.append("--no-sandbox")
    start = time.perf_counter()
    child = subprocess.Popen([*argv, "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not _version_answers(port):
            if child.poll() is not None or time.perf_counter() - start > 30:
                raise RuntimeError(f"chromium did not answer /json/version on {port}")
            time.sleep(0.002)
        return time.perf_counter() - start
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def run() -> list[Result]:
    chromium = os.environ.get("PIX3_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    scratch, home, project, wrapper = editor_scratch("pix3-bench-editor-", chromium)
    env = _env(home, wrapper)
    cdp, dev = free_port(), free_port()
    cold: list[float] = []
    bare: list[float] = []
    try:
        for i in range(COLD_RUNS + 1):
            ours = _cold_pix3(project, env, cdp, dev)
            _stop(project, env)
            theirs = _bare_chromium(chromium, scratch / "bare-profile")
            if i:  # the first of each warms caches and creates the profiles
                cold.append(ours)
                bare.append(theirs)
        _cold_pix3(project, env, cdp, dev)
        check = _pix3(["editor", "--headless", "--cdp-port", str(cdp)], project, env)
        if "reused" not in check.stdout or "already behind" not in check.stdout:
            raise RuntimeError(f"the second run did not reuse everything:\n{check.stdout}{check.stderr}")
        argv = [sys.executable, "-m", "pix3net", "editor", "--headless", "--cdp-port", str(cdp)]
        passes: list[float] = []
        reuses: list[float] = []
        for _ in range(REUSE_RUNS):  # interleaved: a burst of load hits both sides of the ratio
            passes += time_process([sys.executable, "-c", "pass"], 2, env=env)
            reuses += time_process(argv, 1, cwd=project, env=env)
        floor, reuse = median_ms(passes), median_ms(reuses)
    finally:
        with contextlib.suppress(Exception):
            _stop(project, env)
        record = home / "chrome.json"
        if record.exists():
            with contextlib.suppress(Exception):
                os.kill(json.loads(record.read_text())["ownerPid"], signal.SIGTERM)
        shutil.rmtree(scratch, ignore_errors=True)
    return [
        Result(
            "editor",
            "pix3 editor --headless, nothing running vs bare chromium",
            median_ms(cold),
            median_ms(bare),
            3.0,
            note="chromium --headless --remote-debugging-port until /json/version",
        ),
        Result("editor", "pix3 editor, everything reused vs python -c pass", reuse, floor, 15.0),
    ]
