"""What a scene's 2D nodes draw with (docs/tree.md, "Drawing data"): the scene model's reading of a
node, by schema name with the documented defaults, which the one 2D renderer draws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pix3tools.tree import scene_outline

MANIFEST = "version: 1.0.0\nviewportBaseSize:\n  width: 1080\n  height: 1920\nprojectType: 2d\n"


def outline(tmp_path: Path, scene: str, manifest: str = MANIFEST) -> dict[str, Any]:
    (tmp_path / "pix3project.yaml").write_text(manifest)
    (tmp_path / "scenes").mkdir(exist_ok=True)
    (tmp_path / "scenes" / "s.pix3scene").write_text("version: 1.0.0\nroot:\n" + scene)
    return scene_outline(tmp_path, "scenes/s.pix3scene", draw=True)


def draws(tmp_path: Path, node: str, manifest: str = MANIFEST) -> dict[str, Any]:
    data = outline(tmp_path, node, manifest)
    record: dict[str, Any] = data["nodes"][0]["draw"]
    return record


def test_defaults_are_the_schema_s_and_the_file_wins(tmp_path: Path) -> None:
    props = draws(tmp_path, "  - id: r\n    type: ColorRect2D\n    properties: { color: '#ff0000', opacity: 0.5 }\n")
    assert props["family"] == "2d"
    p = props["props"]
    assert (p["width"], p["height"], p["color"], p["opacity"], p["visible"]) == (100, 100, "#ff0000", 0.5, True)
    assert (p["position"], p["rotation"], p["scale"], p["zIndex"]) == ([0, 0], 0, [1, 1], 0)


@pytest.mark.parametrize(
    ("properties", "position", "rotation", "scale"),
    [
        ("transform: { position: [10, 20], rotation: 15, scale: [2, 3] }", [10, 20], 15, [2, 3]),
        ("transform: { position: { x: 1, y: 2 } }", [1, 2], 0, [1, 1]),
        ("position: [5, 6]\n      rotation: 30", [5, 6], 30, [1, 1]),  # flat: read-compat
        ("position: [5, 6]\n      transform: { position: [7, 8] }", [7, 8], 0, [1, 1]),  # nested wins
        ("transform: { position: nope }", [0, 0], 0, [1, 1]),  # not a vector: the default
    ],
)
def test_the_transform(tmp_path: Path, properties: str, position: list[int], rotation: int, scale: list[int]) -> None:
    p = draws(tmp_path, f"  - id: g\n    type: Group2D\n    properties:\n      {properties}\n")["props"]
    assert (p["position"], p["rotation"], p["scale"]) == (position, rotation, scale)


def test_w21_layout_gives_the_resolved_rect(tmp_path: Path) -> None:
    data = outline(
        tmp_path,
        "  - id: hud\n    type: Group2D\n    properties:\n"
        "      layout: { enabled: true, horizontalAlign: stretch, verticalAlign: stretch, left: 0, right: 0, top: 0, bottom: 0 }\n"
        "    children:\n"
        "      - id: bar\n        type: ColorRect2D\n        properties:\n          height: 40\n"
        "          layout: { enabled: true, horizontalAlign: stretch, verticalAlign: bottom, left: 40, right: 40, bottom: 20 }\n"
        "      - id: tag\n        type: Label2D\n        properties:\n          width: 200\n          height: 50\n"
        "          transform: { position: [3, 4] }\n"
        "          layout: { enabled: true, horizontalAlign: right, verticalAlign: center, right: 10 }\n",
    )
    hud = data["nodes"][0]
    assert (hud["draw"]["props"]["width"], hud["draw"]["props"]["height"]) == (1080, 1920)
    bar, tag = (child["draw"]["props"] for child in hud["children"])
    assert (bar["position"], bar["width"], bar["height"]) == ([0, -920], 1000, 40)  # the docs' worked example
    assert (tag["position"], tag["width"]) == ([1080 / 2 - 10 - 100, 4], 200)  # centre: the file's y
    assert data["viewport"] == [1080, 1920]


def test_textures_are_project_paths(tmp_path: Path) -> None:
    cases = {
        "texture: { type: texture, url: res://sprites/a.png }": "sprites/a.png",
        "texture: ./sprites/../sprites/b.png": "sprites/b.png",
        "texturePath: res://sprites/c.png": "sprites/c.png",  # read-compat spelling
        "texture: { type: texture, url: https://example.com/d.png }": None,  # not a project file
        "texture: null": None,
        # hostile: above the root, another origin, a script: never a URL the page would fetch
        "texture: res://../../etc/passwd": None,
        "texture: { type: texture, url: 'javascript:alert(1)' }": None,
        "texture: { type: texture, url: //evil.example/x.png }": "evil.example/x.png",  # a project path, not a host
        "texture: 42": None,
    }
    for line, expected in cases.items():
        p = draws(tmp_path, f"  - id: s\n    type: Sprite2D\n    properties:\n      {line}\n")["props"]
        assert (p["texture"], p["width"], p["height"], p["color"]) == (expected, 64, 64, "#ffffff"), line


def test_label_props_and_their_read_compat_names(tmp_path: Path) -> None:
    p = draws(
        tmp_path,
        "  - id: l\n    type: Label2D\n    properties:\n      label: SCORE 0\n      labelOutlineWidth: 3\n"
        "      labelOutlineColor: '#112233'\n",
    )["props"]
    assert (p["label"], p["outlineWidth"], p["outlineColor"]) == ("SCORE 0", 3, "#112233")
    assert (p["labelFontSize"], p["labelFontFamily"], p["labelAlign"], p["labelVAlign"]) == (
        16,
        "Arial",
        "center",
        "middle",
    )
    assert (p["width"], p["height"], p["labelColor"]) == (0, 0, "#ffffff")


def test_other_families_unknown_types_and_instances_are_not_drawn(tmp_path: Path) -> None:
    assert draws(tmp_path, "  - id: c\n    type: Camera3D\n")["family"] == "3d"
    assert draws(tmp_path, "  - id: a\n    type: AudioPlayer\n")["family"] == "base"
    assert draws(tmp_path, "  - id: x\n    type: Sprtie2D\n")["family"] is None
    assert draws(tmp_path, "  - id: i\n    instance: res://scenes/s.pix3scene\n")["family"] is None
    assert draws(tmp_path, "  - id: g\n    type: group2d\n")["family"] == "2d"  # resolved as the loader does


@pytest.mark.parametrize(
    ("manifest", "viewport"),
    [
        ("version: 1.0.0\n", [1920, 1080]),
        ("version: 1.0.0\nviewportBaseSize: { width: .inf, height: -5 }\n", [1920, 1080]),
        ("version: 1.0.0\nviewportBaseSize: { width: 800.5, height: 600 }\n", [800.5, 600]),
    ],
)
def test_the_design_size(tmp_path: Path, manifest: str, viewport: list[float]) -> None:
    assert outline(tmp_path, "  - id: g\n    type: Group2D\n", manifest)["viewport"] == viewport


def test_without_draw_the_outline_is_pix3_tree_json(tmp_path: Path) -> None:
    outline(tmp_path, "  - id: g\n    type: Group2D\n")
    plain = scene_outline(tmp_path, "scenes/s.pix3scene")
    assert "viewport" not in plain and "draw" not in plain["nodes"][0]
