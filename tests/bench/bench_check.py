"""`pix3 check --no-sync` against `tsc --noEmit -p` alone on the same project, in both tsconfig modes.

The 2D starter has its own tsconfig.json; its node_modules holds TypeScript and Vite (linked from
the test clients). The other project has none: `pix3 kit` wrote `.pix3/types/` (three's types from
a seeded `$PIX3_HOME` cache) and check uses `.pix3/tsconfig.check.json`. Either way the type-check
is the floor: everything else check does must hide under it (docs/check.md, "Speed").

`pix3 check` reads its modules' bytecode from a cache in the temporary folder, written by the
untimed first run, as an installed ``pix3`` does (pip compiles the modules when it installs them),
as the validate and editor rows do: with ``PYTHONDONTWRITEBYTECODE`` set, as it is in some shells
here, each run would compile ~100 modules from source, tens of milliseconds of CPU no user pays.
Each side runs once untimed first.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench._report import Result, pix3_env
from tests.support.node import node_modules_dir

NODE_MODULES = node_modules_dir()
TYPESCRIPT = NODE_MODULES / "typescript"
TARGET = 1.08  # issue 14
MOVER = """import { Script, Sprite2D } from '@pix3/runtime';
import { Vector3 } from 'three';

export class Mover extends Script {
  onUpdate(dt: number): void {
    const sprite = this.node as Sprite2D;
    sprite.position.x += new Vector3(dt, 0, 0).length();
  }
}
"""


def _timed(argv: list[str], root: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + sys, with the children it waited for: check's tsc)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def _interleaved(check: list[str], tsc: list[str], root: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """Median wall ms of each side, and a note with the median CPU of each (other work on this
    shared machine disturbs CPU time less than wall time)."""
    ours: list[tuple[float, float]] = []
    floor: list[tuple[float, float]] = []
    _timed(tsc, root, env)  # untimed: the bytecode cache, the file cache
    _timed(check, root, env)
    for _ in range(9):  # interleaved, so both sides see the same machine
        floor.append(_timed(tsc, root, env))
        ours.append(_timed(check, root, env))
    cpu_ours = statistics.median(c for _, c in ours) * 1000
    cpu_floor = statistics.median(c for _, c in floor) * 1000
    note = f"CPU {cpu_ours:.0f} vs {cpu_floor:.0f} ms ({cpu_ours / cpu_floor:.2f}x)"
    return statistics.median(w for w, _ in ours) * 1000, statistics.median(w for w, _ in floor) * 1000, note


def _starter(work: Path, env: dict[str, str]) -> Result:
    root = work / "starter"
    subprocess.run([sys.executable, "-m", "pix3net", "new", "2d", str(root)], env=env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    (root / "node_modules").mkdir()
    os.symlink(TYPESCRIPT, root / "node_modules" / "typescript")
    # The starter's tsconfig names vite/client: without it tsc stops at that option error and
    # skips the semantic check, which check does not (pre-emit diagnostics are all collected).
    os.symlink(NODE_MODULES / "vite", root / "node_modules" / "vite")
    check = [sys.executable, "-m", "pix3net", "check", "--no-sync", "--no-hydrate"]
    tsc = ["node", str(TYPESCRIPT / "lib" / "tsc.js"), "--noEmit", "-p", "tsconfig.json"]
    ours, floor, note = _interleaved(check, tsc, root, env)
    return Result("tools", "pix3 check --no-sync (2D starter) vs tsc --noEmit -p", ours, floor, TARGET, note=note)


def _pix3_types(work: Path, env: dict[str, str]) -> Result:
    from pix3tools.scripttypes import cache_prefix

    home = work / "home"
    cached = cache_prefix(home) / "node_modules" / "@types"
    cached.mkdir(parents=True)
    for name in ("three", "webxr"):
        os.symlink(NODE_MODULES / "@types" / name, cached / name)
    env = {**env, "PIX3_HOME": str(home), "PIX3_TYPESCRIPT": str(TYPESCRIPT)}
    root = work / "recipe"
    (root / "scripts").mkdir(parents=True)
    (root / "pix3project.yaml").write_text("version: 1.0.0\nprojectType: 2d\n")
    (root / "scripts" / "Mover.ts").write_text(MOVER)
    subprocess.run([sys.executable, "-m", "pix3net", "kit"], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    check = [sys.executable, "-m", "pix3net", "check", "--no-sync", "--no-hydrate"]
    tsc = ["node", str(TYPESCRIPT / "lib" / "tsc.js"), "--noEmit", "-p", ".pix3/tsconfig.check.json"]
    ours, floor, note = _interleaved(check, tsc, root, env)
    return Result("tools", "pix3 check --no-sync (no tsconfig: .pix3/types) vs tsc -p", ours, floor, TARGET, note=note)


def run() -> list[Result]:
    with tempfile.TemporaryDirectory() as tmp:
        env = pix3_env({"PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")})
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        return [_starter(Path(tmp), env), _pix3_types(Path(tmp), env)]
