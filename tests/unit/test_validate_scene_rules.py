"""Level-1 scene rules (docs/validate.md, "Scene rules"), on the reference's example projects."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.validate import codes, diags, make, paths, scene, validate

PNG = b"\x89PNG\r\n\x1a\n"


def test_e_yaml_once_with_its_line(tmp_path: Path) -> None:
    root = make(
        tmp_path, {"scenes/a.pix3scene": "root: [\n", "scenes/ok.pix3scene": scene("  - id: a\n    type: Node2D\n")}
    )
    report = validate(root)
    assert codes(report) == ["E_YAML"] and report.error_count == 1
    (found,) = diags(report)
    # The line of the `[` that is never closed (the parser only notices at the end, line 2).
    assert found["line"] == 1 and "path" not in found
    assert found["message"] == (
        "YAML does not parse: the file ends inside a `[`: close the list with `]`.\n  1 | root: [\n    |       ^"
    )
    assert "  1 | root: [\n    |       ^\n" in report.human_text()


def test_duplicate_keys_are_e_yaml(tmp_path: Path) -> None:
    root = make(tmp_path, {"scenes/a.pix3scene": scene("  - id: a\n    id: b\n")})
    assert [(d["code"], d["line"]) for d in diags(validate(root))] == [("E_YAML", 4)]


def test_e_shape_document_cases(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "scenes/object-root.pix3scene": "version: 1.0.0\nroot: { a: 1 }\n",
            "scenes/scalar.pix3scene": "hello\n",
            "scenes/no-root.pix3scene": "version: 1.0.0\n",
            "scenes/extra.pix3scene": "version: 1.0.0\nnodes: []\nroot: []\n",
        },
    )
    report = validate(root)
    by_file = {d["file"]: d for d in diags(report, "E_SHAPE")}
    assert "root: must be a list" in by_file["scenes/object-root.pix3scene"]["message"]
    assert [d["file"] for d in diags(report, "E_SHAPE")].count("scenes/scalar.pix3scene") == 1
    assert "no root" in by_file["scenes/no-root.pix3scene"]["message"]
    assert by_file["scenes/extra.pix3scene"]["fix"] == "rename it to root:"


def test_e_shape_node_cases(tmp_path: Path) -> None:
    text = scene(
        "  - type: Node2D\n"
        "  - id: p\n    properties: abc\n"
        "  - id: c\n    children:\n      x: 1\n"
        "  - id: k\n    type: Node2D\n    name: K\n    position: [1, 2]\n    components:\n      - enabled: true\n"
    )
    report = validate(make(tmp_path, {"scenes/nodes.pix3scene": text}))
    found = diags(report, "E_SHAPE")
    assert {"root[0]", "root[1].properties", "root[2].children", "root[3].position", "root[3].components[0]"} <= {
        d["path"] for d in found
    }
    assert next(d for d in found if d["path"] == "root[3].position")["line"] == 12


def test_instance_with_children_is_e_shape(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "scenes/p.pix3scene": scene("  - id: p\n    type: Group2D\n"),
            "scenes/a.pix3scene": scene(
                "  - id: i\n    instance: res://scenes/p.pix3scene\n    children:\n      - id: x\n"
            ),
        },
    )
    assert paths(validate(root, "scenes/a.pix3scene"), "E_SHAPE") == ["root[0].children"]


def test_duplicate_id_nested(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "scenes/a.pix3scene": scene(
                "  - id: a\n    type: Node2D\n    children:\n      - id: a\n        type: Node2D\n"
            )
        },
    )
    found = diags(validate(root), "E_DUPLICATE_ID")
    assert [(d["nodeId"], d["path"]) for d in found] == [("a", "root[0].children[0].id")]
    near = make(
        tmp_path / "n", {"scenes/a.pix3scene": scene("  - id: a\n    type: Node2D\n  - id: b\n    type: Node2D\n")}
    )
    assert diags(validate(near)) == []


def test_legacy_version(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "scenes/old.pix3scene": "version: 0.9.0\nroot:\n  - id: a\n    type: Node2D\n",
            "scenes/none.pix3scene": "root:\n  - id: a\n    type: Node2D\n",
            "scenes/ok.pix3scene": scene("  - id: a\n    type: Node2D\n"),
        },
    )
    report = validate(root)
    assert [d["file"] for d in diags(report, "W_LEGACY_VERSION")] == ["scenes/none.pix3scene", "scenes/old.pix3scene"]
    assert report.error_count == 0


def test_unknown_node_type_and_layout2d(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "scenes/a.pix3scene": scene("  - id: a\n    type: Sprit2D\n"),
            "scenes/b.pix3scene": scene("  - id: b\n    type: Layout2D\n"),
        },
    )
    found = diags(validate(root), "E_UNKNOWN_NODE_TYPE")
    assert found[0]["nodeId"] == "a" and found[0]["fix"] == "type: Sprite2D"
    assert 'Did you mean "Sprite2D"?' in found[0]["message"]
    assert "Layout2D is no longer supported" in found[1]["message"]


def test_type_case_and_alias(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {"scenes/a.pix3scene": scene("  - id: a\n    type: sprite2d\n  - id: b\n    type: DirectionalLight\n")},
    )
    report = validate(root)
    assert [d["fix"] for d in diags(report, "W_TYPE_CASE")] == ["type: Sprite2D", "type: DirectionalLightNode"]
    assert report.error_count == 0


def test_unknown_property_classification(tmp_path: Path) -> None:
    text = scene(
        "  - id: r\n    type: ColorRect2D\n    properties:\n      widht: 3\n      name: x\n      horizontalAlign: left\n"
        "      transform:\n        positon: [1, 2]\n"
        "  - id: m\n    type: GeometryMesh\n    properties:\n      color: '#fff'\n      material:\n        color: '#fff'\n"
    )
    found = diags(validate(make(tmp_path, {"scenes/a.pix3scene": text})), "E_UNKNOWN_PROPERTY")
    assert [d["path"] for d in found] == [
        "root[0].properties.widht",
        "root[0].properties.name",
        "root[0].properties.horizontalAlign",
        "root[0].properties.transform.positon",
        "root[1].properties.color",
    ]
    fixes = [d.get("fix") for d in found]
    assert fixes[0] == "did you mean width?"
    assert fixes[2] == "move it to properties.layout.horizontalAlign"
    assert fixes[3] == "did you mean transform.position?"
    assert fixes[4] == "move it to properties.material.color"


def test_write_only_property(tmp_path: Path) -> None:
    text = scene("  - id: l\n    type: Label2D\n    properties:\n      texturePath: res://sprites/skin.png\n")
    report = validate(make(tmp_path, {"scenes/a.pix3scene": text, "sprites/skin.png": PNG}))
    assert [d["nodeId"] for d in diags(report, "W_WRITE_ONLY_PROPERTY")] == ["l"] and report.error_count == 0
    near = scene("  - id: b\n    type: Button2D\n    properties:\n      texturePath: res://sprites/skin.png\n")
    assert diags(validate(make(tmp_path / "n", {"scenes/a.pix3scene": near, "sprites/skin.png": PNG}))) == []


def test_legacy_keys(tmp_path: Path) -> None:
    text = scene(
        "  - id: s\n    type: Sprite2D\n    properties:\n      texturePath: res://sprites/a.png\n"
        "  - id: n\n    type: Node3D\n    properties:\n      transform:\n        translate: [1, 2, 3]\n"
    )
    report = validate(make(tmp_path, {"scenes/a.pix3scene": text, "sprites/a.png": PNG}))
    assert [d["fix"] for d in diags(report, "W_LEGACY_KEY")] == ["rename to texture", "rename to transform.position"]
    assert report.error_count == 0


def test_property_types(tmp_path: Path) -> None:
    text = scene(
        "  - id: r\n    type: ColorRect2D\n    properties:\n      width: wide\n      color: 123\n"
        "      transform:\n        position: [1]\n      layout:\n        enabled: 'yes'\n"
    )
    report = validate(make(tmp_path, {"scenes/a.pix3scene": text}))
    assert paths(report, "E_PROPERTY_TYPE") == [
        "root[0].properties.width",
        "root[0].properties.color",
        "root[0].properties.transform.position",
        "root[0].properties.layout.enabled",
    ]
    near = scene(
        "  - id: r\n    type: ColorRect2D\n    properties:\n      width: 3\n      color: rgb(1,2,3)\n"
        "      transform:\n        position: {x: 1}\n      layout:\n        enabled: true\n"
    )
    assert diags(validate(make(tmp_path / "n", {"scenes/a.pix3scene": near}))) == []


def test_property_ranges(tmp_path: Path) -> None:
    text = scene(
        "  - id: cam\n    type: Camera3D\n    properties:\n      fov: -5\n"
        "  - id: title\n    type: Label2D\n    properties:\n      labelFontSize: 240\n"
    )
    report = validate(make(tmp_path, {"scenes/a.pix3scene": text}))
    assert [d["nodeId"] for d in diags(report, "E_PROPERTY_RANGE")] == ["cam"]
    assert [d["nodeId"] for d in diags(report, "W_PROPERTY_RANGE")] == ["title"]
    near = scene(
        "  - id: cam\n    type: Camera3D\n    properties:\n      fov: 5\n"
        "  - id: title\n    type: Label2D\n    properties:\n      labelFontSize: 200\n"
    )
    assert diags(validate(make(tmp_path / "n", {"scenes/a.pix3scene": near}))) == []


def test_property_enum(tmp_path: Path) -> None:
    text = scene("  - id: g\n    type: Group2D\n    properties:\n      layout:\n        horizontalAlign: Right\n")
    found = diags(validate(make(tmp_path, {"scenes/a.pix3scene": text})), "E_PROPERTY_ENUM")
    assert [(d["path"], d["fix"]) for d in found] == [
        ("root[0].properties.layout.horizontalAlign", "write layout.horizontalAlign: right")
    ]
    near = text.replace("Right", "right")
    assert diags(validate(make(tmp_path / "n", {"scenes/a.pix3scene": near}))) == []


def test_emoji_as_art(tmp_path: Path) -> None:
    text = scene(
        '  - id: coin\n    type: Button2D\n    properties:\n      label: "🪙"\n'
        '  - id: score\n    type: Label2D\n    properties:\n      label: "Score: 10 🪙"\n'
    )
    found = diags(validate(make(tmp_path, {"scenes/a.pix3scene": text})), "E_EMOJI_AS_ART")
    assert [d["nodeId"] for d in found] == ["coin"]


def test_unknown_component_and_config_key(tmp_path: Path) -> None:
    text = scene(
        "  - id: a\n    type: Node2D\n    components:\n      - type: core:Rotat\n      - type: Rotate\n"
        "  - id: b\n    type: Node2D\n    components:\n      - type: core:Rotate\n        config: {rotationSpeed: 2, bogus: 1}\n"
    )
    report = validate(make(tmp_path, {"scenes/a.pix3scene": text}))
    assert [d["fix"] for d in diags(report, "E_UNKNOWN_COMPONENT")] == ["type: core:Rotate", "type: core:Rotate"]
    assert paths(report, "E_UNKNOWN_CONFIG_KEY") == ["root[1].components[0].config.bogus"]
    near = scene(
        "  - id: b\n    type: Node2D\n    components:\n      - type: core:Rotate\n        config: {rotationSpeed: 2}\n"
    )
    assert diags(validate(make(tmp_path / "n", {"scenes/a.pix3scene": near}))) == []


def test_user_script_not_found(tmp_path: Path) -> None:
    files = {
        "scripts/Spinner.ts": "import { Script } from '@pix3/runtime';\nexport class Spinner extends Script {}\n",
        "scenes/a.pix3scene": scene("  - id: a\n    type: Node2D\n    components:\n      - type: user:Spiner\n"),
    }
    report = validate(make(tmp_path, files))
    assert [d["fix"] for d in diags(report, "E_USER_SCRIPT_NOT_FOUND")] == ["type: user:Spinner"]
    assert any("(user: component properties not checked)" in n for n in report.notes)
    files["scenes/a.pix3scene"] = files["scenes/a.pix3scene"].replace("Spiner", "Spinner")
    assert diags(validate(make(tmp_path / "n", files))) == []


def test_missing_resources_with_case_hint(tmp_path: Path) -> None:
    text = scene(
        "  - id: a\n    type: Sprite2D\n    properties:\n      texture: {type: texture, url: res://sprites/nope.png}\n"
        "  - id: b\n    type: Sprite2D\n    properties:\n      texture: res://sprites/coin.png\n"
        "    components:\n      - type: core:PlaySound\n        config: {audioTrack: res://audio/missing.ogg}\n"
    )
    report = validate(make(tmp_path, {"scenes/a.pix3scene": text, "sprites/Coin.png": PNG}), "scenes/a.pix3scene")
    found = diags(report, "E_MISSING_RESOURCE")
    assert [d["path"] for d in found] == [
        "root[0].properties.texture.url",
        "root[1].properties.texture",
        "root[1].components[0].config.audioTrack",
    ]
    assert found[1]["fix"] == "the file is res://sprites/Coin.png (case differs)"


def test_missing_prefab_cycle_and_root(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "scenes/m.pix3scene": scene("  - id: i\n    instance: res://scenes/nope.pix3scene\n"),
            "scenes/a.pix3scene": scene("  - id: x\n    instance: res://scenes/b.pix3scene\n"),
            "scenes/b.pix3scene": scene("  - id: y\n    instance: res://scenes/a.pix3scene\n"),
        },
    )
    report = validate(root)
    assert [d["nodeId"] for d in diags(report, "E_MISSING_PREFAB")] == ["i"]
    cycles = diags(report, "E_PREFAB_CYCLE")
    assert [d["file"] for d in cycles] == ["scenes/a.pix3scene", "scenes/b.pix3scene"]
    assert "scenes/a.pix3scene -> scenes/b.pix3scene -> scenes/a.pix3scene" in cycles[0]["message"]
    two = make(
        tmp_path / "two",
        {
            "scenes/p.pix3scene": scene("  - id: p\n    type: Node2D\n  - id: q\n    type: Node2D\n"),
            "scenes/a.pix3scene": scene("  - id: x\n    instance: res://scenes/p.pix3scene\n"),
        },
    )
    assert [d["file"] for d in diags(validate(two), "E_PREFAB_ROOT")] == ["scenes/a.pix3scene"]


def test_instance_properties_and_overrides(tmp_path: Path) -> None:
    prefab = scene("  - id: card\n    type: Group2D\n    children:\n      - id: label\n        type: Label2D\n")
    level = scene(
        "  - id: c1\n    instance: res://scenes/card.pix3scene\n    properties:\n      transform: {position: [5, 5]}\n"
        "      bogus: 1\n    overrides:\n      byLocalId:\n        label:\n          properties: {label: B, labelColr: '#fff'}\n"
        "        nope:\n          properties: {label: C}\n"
    )
    report = validate(make(tmp_path, {"scenes/card.pix3scene": prefab, "scenes/level.pix3scene": level}))
    assert paths(report, "E_UNKNOWN_OVERRIDE_TARGET") == ["root[0].overrides.byLocalId.nope"]
    assert paths(report, "E_UNKNOWN_PROPERTY") == [
        "root[0].properties.bogus",
        "root[0].overrides.byLocalId.label.properties.labelColr",
    ]
    near = level.replace("      bogus: 1\n", "").replace("labelColr", "labelColor").replace("nope:", "card/label:")
    assert (
        diags(validate(make(tmp_path / "n", {"scenes/card.pix3scene": prefab, "scenes/level.pix3scene": near}))) == []
    )


def test_animated_sprite_3d_frames(tmp_path: Path) -> None:
    text = scene(
        "  - id: fx\n    type: AnimatedSprite3D\n    properties:\n      frames:\n"
        "        - res://sprites/fx/1.png\n        - sprites/fx/1.png\n        - {url: sprites/fx/2.svg}\n"
        "        - res://sprites/fx/gone.png\n        - sprites/fx/gone-too.png\n        - {url: res://sprites/fx/gone-3.png}\n"
        "        - null\n        - ''\n"
    )
    files: dict[str, str | bytes] = {
        "scenes/a.pix3scene": text,
        "sprites/fx/1.png": PNG,
        "sprites/fx/2.svg": '<svg width="1" height="1"/>',
    }
    report = validate(make(tmp_path, files))
    base = "root[0].properties."
    assert [(d["code"], d["path"]) for d in diags(report)] == [
        ("E_SVG_INVALID", base + "frames[2].url"),
        ("E_MISSING_RESOURCE", base + "frames[3]"),
        ("E_MISSING_RESOURCE", base + "frames[4]"),
        ("E_MISSING_RESOURCE", base + "frames[5].url"),
        ("E_PROPERTY_TYPE", base + "frames[6]"),
        ("E_PROPERTY_TYPE", base + "frames[7]"),
    ]


# Each YAML kind as the messages name it (docs/validate.md, "Value checks").
KINDS = [
    ("[1, 2]", "a list of 2 items"),
    ("[x]", "a list of 1 item"),
    ("[]", "an empty list"),
    ("{a: 1}", "a mapping"),
    ("3", "the number 3"),
    ("2.5", "the number 2.5"),
    ("true", "the boolean true"),
    ("hello", 'the string "hello"'),
    ("'3'", 'the string "3"'),
]
# Where a shape is checked: the text around the value, and what the message says is wanted.
SITES = [
    ("{}\n", "A scene must be a YAML mapping with a root: list, got"),
    ("version: 1.0.0\nroot: {}\n", "root: must be a list of nodes, got"),
    ("version: 1.0.0\nroot:\n  - {}\n", "A node must be a mapping with at least id: and type:, got"),
    ("version: 1.0.0\nroot:\n  - id: a\n    properties: {}\n", "properties: must be a mapping, got"),
    ("version: 1.0.0\nroot:\n  - id: a\n    children: {}\n", "children: must be a list of nodes, got"),
    ("version: 1.0.0\nroot:\n  - id: a\n    components: {}\n", "components: must be a list, got"),
]


@pytest.mark.parametrize(("site", "wanted"), SITES, ids=[s[1].split(":")[0].split(" ")[-1] for s in SITES])
def test_a_wrong_shape_says_what_it_got(tmp_path: Path, site: str, wanted: str) -> None:
    """`got a list` for a list, `got the number 3` for a number — never JavaScript's `object` or a
    bare type name — at every shape check, for every kind the check refuses."""
    wants_list = "must be a list" in wanted
    refused = [
        (i, value)
        for i, (value, said) in enumerate(KINDS)
        if ("list" not in said if wants_list else said != "a mapping")
    ]
    files = {f"scenes/s{i}.pix3scene": site.replace("{}", value) for i, value in refused}
    messages = {d["file"]: d["message"] for d in diags(validate(make(tmp_path, files))) if d["code"] == "E_SHAPE"}
    for i, (_, said) in enumerate(KINDS):
        name = f"scenes/s{i}.pix3scene"
        if name in files:
            assert messages.get(name) == f"{wanted} {said}.", (name, files[name], messages.get(name))
    assert len(messages) == len(files) >= 6


def test_json_files_name_their_kinds_in_json_words(tmp_path: Path) -> None:
    manifest = "version: 1.0.0\nlocalization:\n  defaultLocale: en\n  locales: [en]\n"
    files = {
        "sprites/a.pix3anim": "[1, 2, 3]",
        "locales/en.json": '{"strings": {"menu": {"play": "Play"}, "list": [1], "flag": true}}',
    }
    found = {(d["code"], d.get("path")): d["message"] for d in diags(validate(make(tmp_path, files, manifest)))}
    assert (
        "must be a JSON object" in found[("E_ANIM_JSON", "")]
        and "got an array of 3 items." in found[("E_ANIM_JSON", "")]
    )
    assert 'strings."menu" in locales/en.json is an object, not a string' in found[("E_LOCALE_VALUE", "strings.menu")]
    assert "is an array of 1 item, not a string" in found[("E_LOCALE_VALUE", "strings.list")]
    assert "is the boolean true, not a string" in found[("E_LOCALE_VALUE", "strings.flag")]


def test_an_unknown_type_from_another_engine_gets_its_pix3_type(tmp_path: Path) -> None:
    """The reference's sentence is kept as it is; the suggestion and its reason follow it."""
    root = make(tmp_path, {"scenes/a.pix3scene": scene("  - id: cam\n    type: PerspectiveCamera\n")})
    (found,) = diags(validate(root))
    assert (found["code"], found["path"], found["fix"]) == ("E_UNKNOWN_NODE_TYPE", "root[0].type", "type: Camera3D")
    assert found["message"] == (
        'Unknown node type "PerspectiveCamera" on node "cam" — it was loaded as an inert placeholder and does'
        ' nothing. Did you mean "Camera3D"? (three.js calls it PerspectiveCamera.)'
    )
