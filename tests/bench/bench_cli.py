"""`pix3 --version` start-up against `python3 -c pass`."""

from __future__ import annotations

import sys

from tests.bench._report import Result, median_ms, python_pass, time_process


def run() -> list[Result]:
    floor = python_pass()
    ours = median_ms(time_process([sys.executable, "-m", "pix3net", "--version"], 20))
    return [Result("cli", "pix3 --version, whole process", ours, floor, 1.5)]
