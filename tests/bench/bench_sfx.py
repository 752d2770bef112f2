"""`pix3 sfx explosion` whole process against `python3 -c pass`; each preset's render time."""

from __future__ import annotations

import sys
import tempfile
from functools import partial
from pathlib import Path

from tests.bench._report import Absolute, Result, median_ms, python_pass, time_calls, time_process


def run() -> list[Result | Absolute]:
    from pix3tools.sfx import PRESETS, render

    rows: list[Result | Absolute] = []
    floor = python_pass()
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "pix3net", "sfx", "explosion", "--out", str(Path(tmp) / "x.wav")]
        ours = median_ms(time_process(argv, 15))
    rows.append(Result("tools", "pix3 sfx explosion, whole process vs python -c pass", ours, floor, 4.0))
    for name, params in PRESETS.items():
        render(params)  # warm numpy's dispatch once
        samples = time_calls(partial(render, params), 15)
        rows.append(Absolute("tools", f"sfx render {name}", median_ms(samples), 20.0))
    return rows
