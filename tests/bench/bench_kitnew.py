"""`pix3 new 2d` and `pix3 kit` (a no-op rerun) as whole processes, against `python3 -c pass`.

The floor is the interpreter's own start-up: both commands read a dozen small files and write as
many, so anything much above a few start-ups is our own cost (imports, YAML, the kit expansion).
The README's demo runs `pix3 new 2d` first: it must feel instant.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.bench._report import Absolute, Result, median_ms, python_pass, time_process


def run() -> list[Result | Absolute]:
    floor = python_pass()
    work = Path(tempfile.mkdtemp(prefix="pix3-bench-new-"))
    try:
        counter = iter(range(10_000))

        def fresh() -> list[str]:
            return [sys.executable, "-m", "pix3net", "new", "2d", str(work / f"p{next(counter)}")]

        samples = [time_process(fresh(), 1)[0] for _ in range(9)]
        new_ms = median_ms(samples)
        kit_ms = median_ms(time_process([sys.executable, "-m", "pix3net", "kit"], 9, cwd=work / "p0"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [
        Result("kitnew", "pix3 new 2d <dir>, whole process", new_ms, floor, 6.0),
        Result("kitnew", "pix3 kit (all current), whole process", kit_ms, floor, 6.0),
        Absolute("kitnew", "pix3 new 2d <dir> wall time", new_ms, 1000.0),
    ]
