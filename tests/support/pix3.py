"""Run `pix3` as a real process from this checkout (tests never use the installed `pix3`)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def pix3_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a `pix3` child: this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    env.pop("SSH_CONNECTION", None)
    # Inside GitHub Actions `pix3 smoke` prints annotations by default: a test that wants them
    # sets these itself, every other child runs as it would on a developer's machine.
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE"):
        env.pop(name, None)
    if extra:
        env.update(extra)
    return env


def pix3_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "pix3net", *args]


def run_pix3(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run `pix3 <args>` as a real process and capture its text output."""
    return subprocess.run(
        pix3_argv(*args),
        cwd=cwd,
        env=pix3_env(env),
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
