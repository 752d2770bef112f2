"""The scene model: YAML 1.2 data with lines, the disk descriptor, type resolution, res:// paths."""

from __future__ import annotations

import pytest

from pix3tools.project import project_path
from pix3tools.scene import (
    NODE_TYPES,
    YamlError,
    classify_key,
    format_path,
    iter_nodes,
    parse_yaml,
    resolve_node_type,
    suggest_node_type,
    type_format,
)


def test_yaml_12_core_scalars() -> None:
    doc = parse_yaml("a: yes\nb: 1_000\nc: 0o17\nd: 1.0.0\ne: 1.0\nf: ~\ng: TRUE\nh: '5'\ni: !!str 7\nj: 0x1f\n")
    assert doc.data == {
        "a": "yes",
        "b": "1_000",
        "c": 15,
        "d": "1.0.0",
        "e": 1.0,
        "f": None,
        "g": True,
        "h": "5",
        "i": "7",
        "j": 31,
    }


@pytest.mark.parametrize(
    ("text", "line"),
    [("root: [\n", 1), ("a: 1\nb: 2\na: 3\n", 3), ("---\na: 1\n---\nb: 2\n", 3), ("a: *nope\n", 1)],
)
def test_yaml_errors_carry_their_line(text: str, line: int) -> None:
    with pytest.raises(YamlError) as caught:
        parse_yaml(text)
    assert caught.value.line == line


def test_alias_expansion_is_capped() -> None:
    text = "a: &a [1]\n" + "".join(f"k{i}: *a\n" for i in range(1001))
    with pytest.raises(YamlError, match="alias"):
        parse_yaml(text)
    assert parse_yaml("a: &a [1]\nb: *a\n").data == {"a": [1], "b": [1]}


def test_merge_key_is_a_plain_key_in_yaml_12() -> None:
    assert parse_yaml("base: &b {x: 1}\nc:\n  <<: *b\n").data["c"] == {"<<": {"x": 1}}


def test_lines_of_keys_items_and_the_deepest_existing_segment() -> None:
    doc = parse_yaml("# comment\n\nversion: 1.0.0\nroot:\n  - id: a\n    properties:\n      width: 3\n  - {id: b}\n")
    assert doc.line_of([]) == 3
    assert doc.line_of(["root", 0, "properties", "width"]) == 7
    assert doc.line_of(["root", 1]) == 8
    assert doc.line_of(["root", 0, "properties", "nope", "deeper"]) == 6
    assert doc.line_of(["root", 5]) == 4


def test_format_path() -> None:
    assert format_path(["root", 0, "children", 1, "properties", "material", "color"]) == (
        "root[0].children[1].properties.material.color"
    )
    assert format_path([]) == ""


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("res://sprites/a.png", "sprites/a.png"),
        ("RES://sprites//./b.png?x=1#f", "sprites/b.png"),
        ("/x/y.png", "x/y.png"),
        ("./x/../y%20z.png", "y z.png"),
        ("a\\b.png", "a/b.png"),
        ("https://example.com/a.png", None),
        ("data:image/png;base64,xx", None),
        ("res://../up.png", None),
    ],
)
def test_project_path(ref: str, expected: str | None) -> None:
    assert project_path(ref) == expected


def test_disk_descriptor_classification() -> None:
    rect = type_format("ColorRect2D")
    assert [classify_key(rect, k) for k in ("width", "widht", "name", "horizontalAlign", "layout", "position")] == [
        "schema",
        "unknown",
        "not-stored",
        "relocated",
        "extra",
        "schema",
    ]
    assert rect.relocated["horizontalAlign"] == "layout.horizontalAlign"
    mesh = type_format("GeometryMesh")
    assert mesh.relocated["color"] == "material.color" and mesh.relocated["map"] == "material.map"
    assert classify_key(type_format("Label2D"), "texturePath") == "write-only"
    assert type_format("Button2D").relocated["textureHoverKey"] == "stateTextureKeys.hover"
    assert classify_key(type_format("InstancedMesh3D"), "visibleInstanceCount") == "not-stored"
    assert type_format("Node3D").extras["transform"].nested["translate"].preferred == "transform.position"
    assert "Layout2D" not in NODE_TYPES and len(NODE_TYPES) == 34


def test_node_type_resolution_and_suggestions() -> None:
    assert resolve_node_type("Sprite2D") == ("Sprite2D", "exact")
    assert resolve_node_type("sprite_2d") == ("Sprite2D", "case")
    assert resolve_node_type("DirectionalLight") == ("DirectionalLightNode", "alias")
    assert resolve_node_type("Sprit2D") == (None, "")
    assert suggest_node_type("Sprit2D") == "Sprite2D"
    assert suggest_node_type("MyFancyLabel2DThing") == "Label2D"
    assert suggest_node_type("Qqq") is None


@pytest.mark.parametrize(
    ("authored", "suggested"),
    [
        ("PerspectiveCamera", "Camera3D"),  # three.js
        ("perspective_camera", "Camera3D"),  # looked up as types are: case and separators aside
        ("PerspectivCamera", "Camera3D"),  # a slip in another engine's name
        ("OrthographicCamera", "Camera3D"),
        ("Object3D", "Node3D"),
        ("Mesh", "GeometryMesh"),  # an exact name beats the reference's containment (InstancedMesh3D)
        ("OmniLight3D", "PointLightNode"),  # Godot
        ("AudioStreamPlayer", "AudioPlayer"),
        ("TextureRect", "Sprite2D"),
        ("NinePatchRect", "TiledSprite2D"),
        ("GameObject", "Node3D"),  # Unity
        ("TextMeshPro", "Label2D"),
        ("Text", "Label2D"),  # Phaser, PixiJS
        ("Container", "Group2D"),
        # The reference's own answers are unchanged where it has one.
        ("Sprit2D", "Sprite2D"),
        ("Label", "Label2D"),
        ("MyFancyLabel2DThing", "Label2D"),
        # A short name must match as it is: "Test" is not "Text".
        ("Test", None),
        ("Qqq", None),
    ],
)
def test_a_type_named_as_other_engines_name_it(authored: str, suggested: str | None) -> None:
    assert suggest_node_type(authored) == suggested


def test_iter_nodes_skips_instance_children() -> None:
    data = parse_yaml(
        "root:\n  - id: a\n    children:\n      - id: b\n      - id: i\n        instance: res://p.pix3scene\n        children: [{id: x}]\n"
    ).data
    assert [(n.id, n.depth, format_path(n.path)) for n in iter_nodes(data)] == [
        ("a", 0, "root[0]"),
        ("b", 1, "root[0].children[0]"),
        ("i", 1, "root[0].children[1]"),
    ]
