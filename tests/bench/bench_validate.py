"""`pix3 validate` on a generated project of 2 000 scenes (~10 MB of YAML), whole process.

Targets (issue 5): ≥ 5 MB/s of YAML, and peak RSS ≤ 10 × the largest file + 200 MB.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bench._report import Absolute, Result, pix3_env

SCENES = 2000
NODES_PER_SCENE = 18  # ~5 KB of YAML each


def _scene(i: int) -> str:
    lines = [
        "version: 1.0.0",
        f"description: Generated scene {i}",
        "root:",
        f"  - id: root-{i}",
        "    type: Group2D",
        f"    name: Root {i}",
        "    properties:",
        "      width: 1080",
        "      height: 1920",
        "      layout: { enabled: true, horizontalAlign: stretch, verticalAlign: stretch, left: 0, right: 0, top: 0, bottom: 0 }",
        "    children:",
    ]
    for n in range(NODES_PER_SCENE):
        lines += [
            f"      - id: n{n}",
            "        type: Sprite2D" if n % 3 else "        type: Label2D",
            f'        name: "Node {n}"',
            "        properties:",
            # positions differ from scene to scene, as in real projects (no two flows alike)
            f"          transform: {{ position: [{(i * 37 + n * 13) % 1920 - 960}, {(i * 11 + n * 7) % 1080 - 540}],"
            f" scale: [1, 1], rotation: {(i + n) % 360} }}",
            "          width: 64",
            "          height: 64",
        ]
        if n % 3:
            lines += ["          texture: { type: texture, url: res://sprites/a.png }", '          color: "#ffffff"']
        else:
            lines += [f"          label: Score {n}", "          labelFontSize: 32", '          labelColor: "#ffcc00"']
        if n % 4 == 0:
            lines += [
                "        components:",
                "          - type: core:Rotate",
                "            config: { rotationSpeed: 2 }",
            ]
    return "\n".join(lines) + "\n"


def make_project(root: Path, scenes: int = SCENES) -> tuple[int, int]:
    """Write the project; returns (total YAML bytes, largest file bytes)."""
    (root / "scenes").mkdir(parents=True)
    (root / "sprites").mkdir()
    (root / "sprites" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "pix3project.yaml").write_text("version: 1.0.0\nprojectType: 2d\n")
    total = largest = 0
    for i in range(scenes):
        data = _scene(i).encode()
        folder = root / "scenes" / f"group-{i // 100:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"scene-{i:04d}.pix3scene").write_bytes(data)
        total += len(data)
        largest = max(largest, len(data))
    return total, largest


# A small launcher runs validate and reports its wall time and peak RSS: ru_maxrss keeps the
# high-water mark from before exec, so the bench process itself (large after the CDP benches)
# must not be the one that forks validate.
_LAUNCHER = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
elapsed = time.perf_counter() - start
sys.stderr.buffer.write(done.stderr)
print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)
"""


def _run_once(root: Path) -> tuple[float, int]:
    """Wall time of the whole `pix3 validate` process, and its own peak RSS in bytes."""
    argv = [sys.executable, "-m", "pix3net", "validate", "--no-hydrate", "--json"]
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *argv], cwd=root, env=pix3_env(), capture_output=True, check=False
    )
    elapsed, maxrss_kib, code = done.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"validate failed ({int(code)}): {done.stderr.decode()[-500:]}")
    return float(elapsed), int(maxrss_kib) * 1024


def run() -> list[Absolute | Result]:
    with tempfile.TemporaryDirectory(prefix="pix3-bench-validate-") as tmp:
        root = Path(tmp) / "project"
        total, largest = make_project(root)
        times = []
        peak = 0
        for _ in range(3):
            elapsed, rss = _run_once(root)
            times.append(elapsed)
            peak = max(peak, rss)
        best = sorted(times)[len(times) // 2]
        mb = total / 1e6
        rate = mb / best
        bound = (10 * largest + 200 * 1024 * 1024) / 1e6
        return [
            # Expressed as seconds per 10 MB so "lower is better" holds: 5 MB/s = 2.0 s.
            Absolute(
                "validate",
                f"whole project, {SCENES} scenes, {mb:.1f} MB YAML",
                10.0 / rate,
                2.0,
                unit="s",
                note=f"{rate:.2f} MB/s (median of 3, whole process)",
            ),
            Absolute("validate", "peak RSS of that run", peak / 1e6, bound, unit="MB", note="≤ 10×largest + 200 MB"),
        ]


if __name__ == "__main__":
    for row in run():
        print(row)
