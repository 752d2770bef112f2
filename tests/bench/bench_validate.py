"""`pix3 validate` on a generated project of 2 000 scenes (~12 MB of YAML), whole process, and the
YAML readers it can use, on the same scenes.

Targets (issue 14): ≥ 15 MB/s whole process on this machine (it uses the cores it may run on:
one process per core for a project this size), peak RSS ≤ 10 × the largest file + 200 MB. The
same run pinned to one core is reported too, against the earlier 5 MB/s bound, so a single-core
regression shows. The reader row compares our line reader with libyaml's C parser feeding the
general builder (the fastest reader there was before), cold: each validate process starts with
empty caches.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.bench._report import Absolute, Result, pix3_env
from tests.support.scene_corpus import SCENES, generated_scene, make_corpus_project

TARGET_MB_S = 15.0
SINGLE_CORE_MB_S = 5.0
RUNS = 3

# A small launcher runs validate and reports its wall time and peak RSS: ru_maxrss keeps the
# high-water mark from before exec, so the bench process itself (large after the CDP benches)
# must not be the one that forks validate. With a CPU number it first pins itself (and so
# validate) to that one core.
_LAUNCHER = """
import os, resource, subprocess, sys, time
if sys.argv[1] != "-":
    os.sched_setaffinity(0, {int(sys.argv[1])})
start = time.perf_counter()
done = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
elapsed = time.perf_counter() - start
sys.stderr.buffer.write(done.stderr)
print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)
"""


def _run_once(root: Path, cpu: int | None = None) -> tuple[float, int]:
    """Wall time of the whole `pix3 validate` process, and its peak RSS in bytes (the largest of
    its processes)."""
    argv = [sys.executable, "-m", "pix3net", "validate", "--no-hydrate", "--json"]
    pin = "-" if cpu is None else str(cpu)
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, pin, *argv], cwd=root, env=pix3_env(), capture_output=True, check=False
    )
    elapsed, maxrss_kib, code = done.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"validate failed ({int(code)}): {done.stderr.decode()[-500:]}")
    return float(elapsed), int(maxrss_kib) * 1024


def _cold_seconds(read: Callable[[str], object], texts: list[str]) -> float:
    """CPU seconds to read every text once with cold caches, best of three."""
    from pix3tools.scene import _fastyaml

    best = float("inf")
    for _ in range(3):
        for cache in (_fastyaml._LINES, _fastyaml._FLOW_CACHE, _fastyaml._RESOLVED):
            cache.clear()
        start = time.process_time()
        for text in texts:
            read(text)
        best = min(best, time.process_time() - start)
    return best


def reader_rows() -> list[Result]:
    """The line reader against libyaml + the general builder, on the corpus (urls quoted: libyaml
    refuses `url: res://…` inside a flow mapping, valid YAML 1.2), in this process."""
    from pix3tools.scene._fastyaml import fast_load
    from pix3tools.scene._yaml import _build, _fast_data, _libyaml_events, _ruamel_events

    texts = [generated_scene(i).replace("url: res://sprites/a.png", 'url: "res://sprites/a.png"') for i in range(400)]
    mb = sum(len(t.encode()) for t in texts) / 1e6
    line = _cold_seconds(fast_load, texts)
    libyaml = _cold_seconds(lambda t: _build(t, False, _libyaml_events(t)), texts)
    loop = _cold_seconds(_fast_data, texts)
    few = texts[:20]
    pure = _cold_seconds(lambda t: _build(t, False, _ruamel_events(t)), few) * len(texts) / len(few)
    note = (
        f"MB/s: line reader {mb / line:.1f}, libyaml fast loop {mb / loop:.1f}, libyaml + builder"
        f" {mb / libyaml:.1f}, ruamel pure {mb / pure:.2f}"
    )
    return [Result("validate", f"YAML: line reader vs libyaml (C) + builder, {mb:.1f} MB cold", line * 1e3,
                   libyaml * 1e3, 0.5, note=note)]  # fmt: skip


def run() -> list[Absolute | Result]:
    with tempfile.TemporaryDirectory(prefix="pix3-bench-validate-") as tmp:
        root = Path(tmp) / "project"
        total, largest = make_corpus_project(root)
        mb = total / 1e6
        cpu = min(os.sched_getaffinity(0))
        cores = len(os.sched_getaffinity(0))
        both: list[float] = []
        one: list[float] = []
        peak = 0
        for _ in range(RUNS):  # interleaved: the two rows see the same machine
            elapsed, rss = _run_once(root)
            both.append(elapsed)
            peak = max(peak, rss)
            one.append(_run_once(root, cpu)[0])
        every = sorted(both)[len(both) // 2]
        single = sorted(one)[len(one) // 2]
        bound = (10 * largest + 200 * 1024 * 1024) / 1e6
        rows: list[Absolute | Result] = [
            # Expressed as ms per 10 MB so "lower is better" holds: 15 MB/s = 667 ms.
            Absolute(
                "validate",
                f"whole project, {SCENES} scenes, {mb:.1f} MB YAML",
                10_000 * every / mb,
                10_000 / TARGET_MB_S,
                note=f"{mb / every:.2f} MB/s (median of {RUNS}, whole process, {cores} core(s))",
            ),
            Absolute(
                "validate",
                "the same, pinned to one core",
                10_000 * single / mb,
                10_000 / SINGLE_CORE_MB_S,
                note=f"{mb / single:.2f} MB/s (median of {RUNS})",
            ),
            Absolute("validate", "peak RSS of that run", peak / 1e6, bound, unit="MB", note="≤ 10×largest + 200 MB"),
        ]
    rows.extend(reader_rows())
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
