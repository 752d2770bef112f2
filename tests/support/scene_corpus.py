"""The generated scenes the validate bench reads (2 000 of them, 11–12 MB), also read by the YAML
readers' tests: what an editor writes for a 2D game — nodes in block style, transforms, layouts
and textures as one-line flows, positions that differ from node to node."""

from __future__ import annotations

from pathlib import Path

SCENES = 2000
NODES_PER_SCENE = 18  # ~6 KB of YAML each


def generated_scene(i: int) -> str:
    """Scene number ``i`` of the corpus."""
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


def make_corpus_project(root: Path, scenes: int = SCENES) -> tuple[int, int]:
    """Write the project (scenes in folders of 100, the sprite they use, a manifest); returns
    (total YAML bytes, largest file bytes)."""
    (root / "scenes").mkdir(parents=True)
    (root / "sprites").mkdir()
    (root / "sprites" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "pix3project.yaml").write_text("version: 1.0.0\nprojectType: 2d\n")
    total = largest = 0
    for i in range(scenes):
        data = generated_scene(i).encode()
        folder = root / "scenes" / f"group-{i // 100:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"scene-{i:04d}.pix3scene").write_bytes(data)
        total += len(data)
        largest = max(largest, len(data))
    return total, largest
