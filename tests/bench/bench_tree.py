"""`pix3 tree scenes/main.pix3scene` on a 200-node scene, whole process, against `python3 -c pass`."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.bench._report import Result, median_ms, time_process

NODES = 200
REPEAT = 25


def write_project(root: Path, nodes: int = NODES) -> Path:
    """A 2D project whose main scene has ``nodes`` nodes: 10 groups of sprites, labels, bars."""
    (root / "scenes").mkdir(parents=True, exist_ok=True)
    (root / "pix3project.yaml").write_text(
        "version: 1.0.0\nprojectType: 2d\nviewportBaseSize: { width: 1080, height: 1920 }\n"
        "metadata:\n  projectName: Bench\n"
    )
    lines = [
        "version: 1.0.0",
        "root:",
        "  - id: root",
        "    type: Group2D",
        "    properties:",
        "      layout: { enabled: true, horizontalAlign: stretch, verticalAlign: stretch, left: 0, right: 0, top: 0, bottom: 0 }",
        "    children:",
    ]
    per_group = (nodes - 1) // 10
    made = 1
    for g in range(10):
        lines += [
            f"      - id: group-{g}",
            "        type: Group2D",
            f"        name: Group {g}",
            "        properties: { width: 1000, height: 160, transform: { position: [0, 0] } }",
            "        components: [ { type: core:Rotate, config: { rotationSpeed: 2 } } ]",
            "        children:",
        ]
        made += 1
        for k in range(per_group - 1 if g < 9 else nodes - made):
            kind = ("Sprite2D", "Label2D", "Bar2D")[k % 3]
            lines += [
                f"          - id: n-{g}-{k}",
                f"            type: {kind}",
                f"            name: Node {g} {k}",
                "            properties:",
                "              width: 64",
                "              height: 64",
                f'              label: "Item {k}"',
                "              texture: { type: texture, url: res://sprites/a.png }",
                f"              transform: {{ position: [{k * 10}, {g * 5}], scale: [1, 1], rotation: 0 }}",
                f"              layout: {{ enabled: true, horizontalAlign: left, verticalAlign: top, left: {k}, top: 4 }}",
            ]
            made += 1
    (root / "scenes" / "main.pix3scene").write_text("\n".join(lines) + "\n")
    return root


def run() -> list[Result]:
    with tempfile.TemporaryDirectory() as folder:
        root = write_project(Path(folder))
        argv = [sys.executable, "-m", "pix3net", "tree", "scenes/main.pix3scene"]
        # Interleaved, one of each at a time: the machine is shared, and load that comes and goes
        # then weighs on both sides alike.
        floor_samples: list[float] = []
        ours_samples: list[float] = []
        for _ in range(REPEAT):
            floor_samples += time_process([sys.executable, "-c", "pass"], 1)
            ours_samples += time_process(argv, 1, cwd=root)
        floor, ours = median_ms(floor_samples), median_ms(ours_samples)
    return [Result("tree", f"pix3 tree scenes/main.pix3scene ({NODES} nodes), whole process", ours, floor, 3.0)]
