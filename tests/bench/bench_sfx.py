"""`pix3 sfx explosion` whole process against `python -c pass` (the same interpreter, interleaved,
medians; target ≤ 10×, issue 14); each preset's render time.

Python writes its bytecode cache as it would for a user (``PYTHONDONTWRITEBYTECODE`` dropped).
"""

from __future__ import annotations

import sys
import tempfile
from functools import partial
from pathlib import Path

from tests.bench._report import Absolute, Result, median_ms, pix3_env, time_calls, time_process

REPEAT = 15


def run() -> list[Result | Absolute]:
    from pix3tools.sfx import PRESETS, render

    rows: list[Result | Absolute] = []
    env = pix3_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    passes: list[float] = []
    runs: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "pix3net", "sfx", "explosion", "--out", str(Path(tmp) / "x.wav")]
        time_process(argv, 1, env=env)  # the bytecode cache
        for _ in range(REPEAT):  # interleaved: a burst of load hits both sides of the ratio
            passes += time_process([sys.executable, "-c", "pass"], 1, env=env)
            runs += time_process(argv, 1, env=env)
    ours, floor = median_ms(runs), median_ms(passes)
    rows.append(Result("tools", "pix3 sfx explosion, whole process vs python -c pass", ours, floor, 10.0))
    for name, params in PRESETS.items():
        render(params)  # warm numpy's dispatch once
        samples = time_calls(partial(render, params), 15)
        rows.append(Absolute("tools", f"sfx render {name}", median_ms(samples), 20.0))
    return rows
