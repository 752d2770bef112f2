"""What one measurement reports, and small timing helpers shared by the bench modules."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.support.chrome import QUIET_CHROME_FLAGS
from tests.support.pix3 import REPO as REPO  # the bench modules import these two from here
from tests.support.pix3 import pix3_env as pix3_env


@dataclass(frozen=True)
class Result:
    """One row of `just bench`: ours against the limit, and the target ratio (lower is better)."""

    area: str
    name: str
    ours: float
    limit: float
    target: float
    unit: str = "ms"
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.ours / self.limit if self.limit else float("inf")

    @property
    def ok(self) -> bool:
        return self.ratio <= self.target


@dataclass(frozen=True)
class Absolute:
    """A row whose target is an absolute bound (e.g. flush round trip ≤ 20 ms)."""

    area: str
    name: str
    value: float
    bound: float
    unit: str = "ms"
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.value <= self.bound


def median_ms(samples: Sequence[float]) -> float:
    return statistics.median(samples) * 1000.0


def time_calls(call: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def time_process(
    argv: Sequence[str], repeat: int, cwd: Path | None = None, env: dict[str, str] | None = None
) -> list[float]:
    """Wall time of a whole process, ``repeat`` times."""
    env = env or pix3_env()
    return time_calls(
        lambda: subprocess.run(
            argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        ),
        repeat,
    )


def python_pass(repeat: int = 20) -> float:
    """Median ms of `python3 -c pass`: the floor for any Python command."""
    return median_ms(time_process([sys.executable, "-c", "pass"], repeat))


def editor_scratch(prefix: str, chromium: str) -> tuple[Path, Path, Path, Path]:
    """A scratch folder for a bench of `pix3 editor`: ``(scratch, PIX3_HOME, a bare project, a
    PIX3_CHROME wrapper that runs ``chromium`` with the quiet flags every test Chrome gets)``."""
    scratch = Path(tempfile.mkdtemp(prefix=prefix))
    home, project = scratch / "home", scratch / "game"
    project.mkdir()
    (project / "pix3project.yaml").write_text("version: 1.0.0\n")
    wrapper = scratch / "chrome.sh"
    wrapper.write_text(f'#!/bin/sh\nexec "{chromium}" {" ".join(QUIET_CHROME_FLAGS)} "$@"\n')
    wrapper.chmod(0o755)
    return scratch, home, project, wrapper
