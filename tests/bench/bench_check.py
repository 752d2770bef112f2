"""`pix3 check --no-sync` on the 2D starter against `tsc --noEmit -p` alone on the same project.

The starter has its own tsconfig.json; its node_modules holds TypeScript and Vite (linked from
the test clients), so the type-check is the floor and everything else check does must hide under it.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bench._report import REPO, Result, pix3_env, time_process

TYPESCRIPT = REPO / "tests" / "node" / "node_modules" / "typescript"


def run() -> list[Result]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "starter"
        env = pix3_env()
        subprocess.run([sys.executable, "-m", "pix3net", "new", "2d", str(root)], env=env, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        (root / "node_modules").mkdir()
        os.symlink(TYPESCRIPT, root / "node_modules" / "typescript")
        # The starter's tsconfig names vite/client: without it tsc stops at that option error and
        # skips the semantic check, which check does not (pre-emit diagnostics are all collected).
        os.symlink(TYPESCRIPT.parent / "vite", root / "node_modules" / "vite")
        check = [sys.executable, "-m", "pix3net", "check", "--no-sync", "--no-hydrate"]
        tsc = ["node", str(TYPESCRIPT / "lib" / "tsc.js"), "--noEmit", "-p", "tsconfig.json"]
        ours: list[float] = []
        floor: list[float] = []
        for _ in range(7):  # interleaved, so both sides see the same machine
            floor += time_process(tsc, 1, cwd=root, env=env)
            ours += time_process(check, 1, cwd=root, env=env)
    return [
        Result(
            "tools",
            "pix3 check --no-sync (2D starter) vs tsc --noEmit -p",
            statistics.median(ours) * 1000,
            statistics.median(floor) * 1000,
            1.2,
        )
    ]
