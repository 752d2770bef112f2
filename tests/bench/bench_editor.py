"""`pix3 editor` when everything already runs (the reuse path), whole process, next to `python3 -c pass`.

Sets up a project, starts the dev server and Chrome (headless, behind the proxy) once, then times
the second and later runs: dev.json probe, proof of the proxy, the tab check, the agent-config
check. Everything started here is stopped at the end.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bench._report import Absolute, Result, median_ms, pix3_env, python_pass, time_process
from tests.support.ports import free_port

QUIET = "--disable-background-networking --disable-component-update --disable-sync"
REPEAT = 10


def run() -> list[Result | Absolute]:
    chromium = os.environ.get("PIX3_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    scratch = Path(tempfile.mkdtemp(prefix="pix3-bench-editor-"))
    home, project = scratch / "home", scratch / "game"
    project.mkdir()
    (project / "pix3project.yaml").write_text("version: 1.0.0\n")
    wrapper = scratch / "chrome.sh"
    wrapper.write_text(f'#!/bin/sh\nexec "{chromium}" {QUIET} "$@"\n')
    wrapper.chmod(0o755)
    env = {**pix3_env(), "PIX3_HOME": str(home), "PIX3_CHROME": str(wrapper)}
    env.pop("SSH_CONNECTION", None)
    argv = [sys.executable, "-m", "pix3net", "editor", "--headless", "--cdp-port", str(free_port())]
    try:
        first = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False)
        if first.returncode != 0:
            raise RuntimeError(f"pix3 editor did not start: {first.stderr}")
        check = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=60, check=False)
        if "reused" not in check.stdout or "already behind" not in check.stdout:
            raise RuntimeError(f"the second run did not reuse everything:\n{check.stdout}{check.stderr}")
        floor = python_pass()
        ours = median_ms(time_process(argv, REPEAT, cwd=project, env=env))
    finally:
        for stop in (["--stop-chrome"], ["--stop"]):
            subprocess.run(
                [sys.executable, "-m", "pix3net", "editor", *stop],
                cwd=project,
                env=env,
                capture_output=True,
                check=False,
            )
        record = project / ".pix3" / "dev.json"
        if record.exists():  # --stop waits for the server; a record left here means it did not go
            raise RuntimeError(f"the dev server did not stop: {json.loads(record.read_text())}")
        shutil.rmtree(scratch, ignore_errors=True)
    note = f"python3 -c pass = {floor:.0f} ms"
    return [
        Absolute("editor", "pix3 editor, everything reused (whole process)", ours, 1500.0, note=note),
        Result("editor", "pix3 editor reuse path vs python3 -c pass", ours, floor, 1500.0 / floor),
    ]
