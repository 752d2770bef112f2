"""Level-1 project rules: SVG, .pix3anim, locales, autoloads, unused assets (docs/validate.md,
"Project rules" and "SVG checks")."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.validate import MANIFEST, SVG_NS, codes, diags, make, paths, scene, validate

PNG = b"\x89PNG\r\n\x1a\n"


def _sprites(*names: str) -> str:
    return scene(
        "".join(
            f"  - id: s{i}\n    type: Sprite2D\n    properties:\n      texture: {{type: texture, url: res://sprites/{n}}}\n"
            for i, n in enumerate(names)
        )
    )


def test_svg_rules(tmp_path: Path) -> None:
    svgs = {
        "ok.svg": f'<?xml version="1.0"?>\n<!-- art -->\n<svg {SVG_NS} width="64" height="32" viewBox="0 0 64 32"/>',
        "px.svg": f'<svg {SVG_NS} width="64px" height="32px"/>',
        "derived.svg": f'<svg {SVG_NS} width="64" viewBox="0 0 64 32"/>',
        "local-refs.svg": f'<svg {SVG_NS} width="8" height="8"><rect fill="url(#g)"/><use href="#g"/>'
        '<image href="data:image/png;base64,AA"/></svg>',
        "bare.svg": f"<svg {SVG_NS}/>",
        "half.svg": f'<svg {SVG_NS} width="10"/>',
        "vb.svg": f'<svg {SVG_NS} viewBox="0 0 10 10"/>',
        "pct.svg": f'<svg {SVG_NS} width="100%" height="100%" viewBox="0 0 10 10"/>',
        "ext.svg": f'<svg {SVG_NS} width="8" height="8"><image href="https://example.com/a.png"/>'
        '<use href="parts.svg#coin"/><rect fill="url(a.png)"/><style>@import "x.css";</style></svg>',
        "noxmlns.svg": '<svg width="8" height="8"/>',
        "html.svg": "<html><body/></html>",
    }
    files: dict[str, str | bytes] = {f"sprites/{k}": v for k, v in svgs.items()}
    files["scenes/pass.pix3scene"] = _sprites("ok.svg", "px.svg", "derived.svg", "local-refs.svg")
    files["scenes/size.pix3scene"] = _sprites("bare.svg", "half.svg")
    files["scenes/vb.pix3scene"] = _sprites("vb.svg", "pct.svg")
    files["scenes/ext.pix3scene"] = _sprites("ext.svg")
    files["scenes/bad.pix3scene"] = _sprites("noxmlns.svg", "html.svg")
    files["scenes/twice.pix3scene"] = _sprites("bare.svg", "bare.svg")
    root = make(tmp_path, files)
    assert diags(validate(root, "scenes/pass.pix3scene")) == []
    size = diags(validate(root, "scenes/size.pix3scene"))
    assert [(d["code"], d["path"]) for d in size] == [
        ("E_SVG_NO_SIZE", "root[0].properties.texture.url"),
        ("E_SVG_NO_SIZE", "root[1].properties.texture.url"),
    ]
    assert size[0]["nodeId"] == "s0" and size[0]["line"] == 6
    assert "defaults to 150px" in size[1]["message"]
    vb = validate(root, "scenes/vb.pix3scene")
    assert [d["nodeId"] for d in diags(vb, "W_SVG_VIEWBOX_ONLY")] == ["s0", "s1"] and vb.error_count == 0
    assert all("add width/height in px" in d["fix"] for d in diags(vb))
    ext = diags(validate(root, "scenes/ext.pix3scene"), "W_SVG_EXTERNAL_REF")[0]["message"]
    assert 'href="https://example.com/a.png"' in ext and 'href="parts.svg#coin"' in ext and ", …" in ext
    bad = validate(root, "scenes/bad.pix3scene")
    assert codes(bad) == ["E_SVG_INVALID", "E_SVG_INVALID"] and "no xmlns" in diags(bad)[0]["message"]
    assert codes(validate(root, "scenes/twice.pix3scene")) == ["E_SVG_NO_SIZE"]


def _anim(frames: list[str], sheet: str = "") -> str:
    return json.dumps(
        {
            "version": "1.0.0",
            "texturePath": sheet,
            "clips": [{"name": "spin", "fps": 8, "loop": True, "frames": [{"texturePath": f} for f in frames]}],
        },
        indent=2,
    )


def _anim_scene(anim: str) -> str:
    return scene(f"  - id: a\n    type: AnimatedSprite2D\n    properties:\n      animationResourcePath: res://{anim}\n")


def test_pix3anim_frames(tmp_path: Path) -> None:
    ok = _anim(["res://sprites/coin/a.png", "sprites/coin/b.svg", "sprites/coin/a.png", "https://example.com/x.png"])
    files: dict[str, str | bytes] = {
        "sprites/coin/coin.pix3anim": ok,
        "sprites/coin/a.png": PNG,
        "sprites/coin/b.svg": f'<svg {SVG_NS} width="4" height="4"/>',
        "scenes/a.pix3scene": _anim_scene("sprites/coin/coin.pix3anim"),
    }
    assert diags(validate(make(tmp_path / "ok", files))) == []
    files["sprites/coin/Spin_0001.png"] = PNG
    files["sprites/coin/coin.pix3anim"] = _anim(
        ["res://sprites/coin/a.png", "res://sprites/coin/spin_0001.png", "sprites/coin/spin_0009.png"],
        sheet="sprites/coin/sheet.png",
    )
    report = validate(make(tmp_path / "bad", files))
    found = diags(report, "E_MISSING_FRAME")
    assert [(d["file"], d["path"]) for d in found] == [
        ("sprites/coin/coin.pix3anim", "texturePath"),
        ("sprites/coin/coin.pix3anim", "clips[0].frames[1].texturePath"),
        ("sprites/coin/coin.pix3anim", "clips[0].frames[2].texturePath"),
    ]
    assert "the spritesheet" in found[0]["message"] and 'clip "spin" frame 2' in found[1]["message"]
    assert found[1]["fix"] == "the file is res://sprites/coin/Spin_0001.png (case differs)"
    assert found[2]["line"] > 1 and report.error_count == 3


def test_pix3anim_svg_frames_and_json_shape(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "sprites/x/x.pix3anim": _anim(["sprites/x/a.svg", "sprites/x/b.svg", "sprites/x/a.svg"]),
        "sprites/x/a.svg": '<svg width="4" height="4"/>',
        "sprites/x/b.svg": f'<svg {SVG_NS} viewBox="0 0 4 4"/>',
        "scenes/a.pix3scene": _anim_scene("sprites/x/x.pix3anim"),
    }
    report = validate(make(tmp_path / "svg", files))
    assert [(d["code"], d["file"], d["path"]) for d in diags(report)] == [
        ("E_SVG_INVALID", "sprites/x/x.pix3anim", "clips[0].frames[0].texturePath"),
        ("W_SVG_VIEWBOX_ONLY", "sprites/x/x.pix3anim", "clips[0].frames[1].texturePath"),
    ]
    shapes = {"bad.pix3anim": '{ "clips": [ }', "list.pix3anim": "[]", "map.pix3anim": '{ "clips": { "spin": [] } }'}
    root = make(tmp_path / "json", {f"anims/{k}": v for k, v in shapes.items()})
    found = {d["file"]: d.get("path") for d in diags(validate(root), "E_ANIM_JSON")}
    assert found == {"anims/bad.pix3anim": None, "anims/list.pix3anim": "", "anims/map.pix3anim": "clips"}


def test_pix3anim_subset_runs_check_only_referenced(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "sprites/coin.pix3anim": _anim(["sprites/gone.png"]),
        "sprites/orphan.pix3anim": "{",
        "scenes/a.pix3scene": _anim_scene("sprites/coin.pix3anim"),
        "scenes/b.pix3scene": scene("  - id: b\n    type: Node2D\n"),
    }
    root = make(tmp_path, files)
    assert sorted(codes(validate(root))) == ["E_ANIM_JSON", "E_MISSING_FRAME"]
    assert codes(validate(root, "scenes/a.pix3scene")) == ["E_MISSING_FRAME"]
    assert codes(validate(root, "scenes/b.pix3scene")) == []


LOC = "localization:\n  defaultLocale: en\n  fallbackLocale: {fb}\n  locales: [{locales}]\n"


def test_locales_missing_tables(tmp_path: Path) -> None:
    good = make(
        tmp_path / "good",
        {"locales/en.json": '{"strings": {"a": "A"}}', "locales/de.json": '{"strings": {"a": ""}}'},
        MANIFEST + "localization:\n  defaultLocale: en\n  locales: [en, de]\n",
    )
    assert diags(validate(good)) == []
    root = make(
        tmp_path / "fr", {"locales/en.json": '{"strings": {}}'}, MANIFEST + LOC.format(fb="fr", locales="en, fr, de")
    )
    found = diags(validate(root))
    assert [(d["code"], d["file"], d["path"]) for d in found] == [
        ("E_LOCALE_MISSING", "pix3project.yaml", "localization.fallbackLocale"),
        ("W_LOCALE_MISSING", "pix3project.yaml", "localization.locales[2]"),
    ]
    assert found[0]["line"] == 8
    assert 'the fallback locale "fr" has no table locales/fr.json' in found[0]["message"]
    only = make(tmp_path / "only", {}, MANIFEST + "localization:\n  locales: [en]\n")
    assert [(d["code"], d["path"]) for d in diags(validate(only))] == [
        ("E_LOCALE_MISSING", "localization.defaultLocale")
    ]


def test_locale_json_and_values(tmp_path: Path) -> None:
    manifest = MANIFEST + LOC.format(fb="en", locales="en, de, fr")
    root = make(
        tmp_path / "json",
        {
            "locales/en.json": '{"strings": {"a": "A"},}',
            "locales/de.json": '"Hallo"',
            "locales/fr.json": '{"strings": []}',
        },
        manifest,
    )
    found = [(d["code"], d["file"], d.get("path")) for d in diags(validate(root))]
    assert found == [
        ("W_LOCALE_JSON", "locales/de.json", None),
        ("E_LOCALE_JSON", "locales/en.json", None),
        ("W_LOCALE_JSON", "locales/fr.json", "strings"),
    ]
    values = make(
        tmp_path / "values",
        {
            "locales/en.json": '{"strings": {"menu": {"play": "Play"}}}',
            "locales/de.json": '{\n  "strings": {"count": 3},\n  "sprites": {"logo": null}\n}',
            "locales/fr.json": "{}",
        },
        manifest,
    )
    found2 = diags(validate(values))
    assert [(d["code"], d["path"]) for d in found2] == [
        ("W_LOCALE_VALUE", "strings.count"),
        ("W_LOCALE_VALUE", "sprites.logo"),
        ("E_LOCALE_VALUE", "strings.menu"),
    ]
    assert '"menu.play"' in found2[2]["fix"]


def test_label_keys(tmp_path: Path) -> None:
    manifest = MANIFEST + LOC.format(fb="de", locales="en, de")
    prefab = scene("  - id: hud\n    type: Label2D\n")
    text = scene(
        "".join(
            f"  - id: l{i}\n    type: Label2D\n    properties:\n      labelKey: {k}\n"
            for i, k in enumerate(["menu.play", "menu.gone", "menu.blank", "menu.de"])
        )
        + "  - id: hud\n    instance: res://scenes/hud.pix3scene\n    properties:\n      labelKey: hud.score\n"
    )
    files: dict[str, str | bytes] = {
        "locales/en.json": '{"strings": {"menu.play": "Play", "menu.blank": "", "menu.de": ""}}',
        "locales/de.json": '{"strings": {"menu.de": "Deutsch"}}',
        "scenes/a.pix3scene": text,
        "scenes/hud.pix3scene": prefab,
    }
    root = make(tmp_path, files, manifest)
    found = diags(validate(root), "E_LOCALE_KEY")
    assert [(d["nodeId"], d["path"]) for d in found] == [
        ("l1", "root[1].properties.labelKey"),
        ("l2", "root[2].properties.labelKey"),
        ("hud", "root[4].properties.labelKey"),
    ]
    assert found[0]["line"] == 10 and "nor in locales/de.json" in found[0]["message"]
    (root / "locales/de.json").write_text("{")
    subset = validate(root, "scenes/a.pix3scene")
    assert codes(subset) == ["E_LOCALE_KEY"] * 4  # the fallback no longer loads: menu.de is missing too
    no_tables = make(tmp_path / "none", {"scenes/a.pix3scene": text, "scenes/hud.pix3scene": prefab})
    assert codes(validate(no_tables)) == []
    broken = make(
        tmp_path / "broken", {"scenes/a.pix3scene": text, "scenes/hud.pix3scene": prefab, "locales/en.json": "{"}
    )
    assert codes(validate(broken)) == ["E_LOCALE_JSON"]


def test_sprite_keys(tmp_path: Path) -> None:
    manifest = MANIFEST + LOC.format(fb="de", locales="en, de")
    text = scene(
        "  - id: ok\n    type: Sprite2D\n    properties:\n      textureKey: logo.main\n"
        "  - id: fb\n    type: Sprite2D\n    properties:\n      textureKey: logo.fb\n"
        "  - id: bare\n    type: Sprite2D\n    properties:\n      textureKey: logo.gone\n"
        "  - id: own\n    type: Sprite2D\n    properties:\n      texture: res://sprites/logo.png\n      textureKey: logo.blank\n"
        "  - id: play\n    type: Button2D\n    properties:\n      stateTextureKeys: {hover: btn.hover}\n"
        "  - id: badge-1\n    instance: res://scenes/badge.pix3scene\n    properties:\n      textureKey: badge.gone\n"
    )
    files: dict[str, str | bytes] = {
        "locales/en.json": '{"sprites": {"logo.main": "res://sprites/logo.png", "logo.blank": ""}}',
        "locales/de.json": '{"sprites": {"logo.fb": "res://sprites/logo.png"}}',
        "sprites/logo.png": PNG,
        "scenes/a.pix3scene": text,
        "scenes/badge.pix3scene": scene(
            "  - id: badge\n    type: Sprite2D\n    properties:\n      texture: res://sprites/logo.png\n"
        ),
    }
    root = make(tmp_path, files, manifest)
    report = validate(root)
    e = diags(report, "E_LOCALE_SPRITE_KEY")
    assert [(d["file"], d["nodeId"], d["path"], d["line"]) for d in e] == [
        ("scenes/a.pix3scene", "bare", "root[2].properties.textureKey", 14)
    ]
    assert "nor in locales/de.json: the node has no texture" in e[0]["message"]
    assert [(d["nodeId"], d["path"]) for d in diags(report, "W_LOCALE_SPRITE_KEY")] == [
        ("own", "root[3].properties.textureKey"),
        ("play", "root[4].properties.stateTextureKeys.hover"),
        ("badge-1", "root[5].properties.textureKey"),
    ]
    assert len([c for c in codes(validate(root, "scenes/a.pix3scene")) if "SPRITE_KEY" in c]) == 4
    for table in ("en", "de"):
        (root / f"locales/{table}.json").unlink()
    (root / "pix3project.yaml").write_text(MANIFEST)
    (root / "sprites/unused.png").write_bytes(PNG)
    assert codes(validate(root)) == ["W_UNUSED_ASSET"]


def test_an_instance_s_button_state_keys_are_checked_like_a_node_s(tmp_path: Path) -> None:
    """One rule collects the keys of plain and instance nodes (a second copy for instances missed
    `stateTextureKeys`, and took a `textureKey` from any prefab root, not only a Sprite2D's)."""
    manifest = MANIFEST + LOC.format(fb="en", locales="en")
    states = "      stateTextureKeys: {hover: btn.hover, pressed: btn.ok}\n"
    text = scene(
        "  - id: plain\n    type: Button2D\n    properties:\n" + states
        + "  - id: nested\n    instance: res://scenes/button.pix3scene\n    properties:\n" + states
        + "  - id: flat\n    instance: res://scenes/button.pix3scene\n    properties:\n      textureHoverKey: btn.hover\n"
        + "  - id: label\n    instance: res://scenes/label.pix3scene\n    properties:\n      textureKey: btn.hover\n"
    )  # fmt: skip
    files: dict[str, str | bytes] = {
        "locales/en.json": '{"sprites": {"btn.ok": "res://sprites/ok.png"}}',
        "sprites/ok.png": PNG,
        "scenes/a.pix3scene": text,
        "scenes/button.pix3scene": scene("  - id: b\n    type: Button2D\n"),
        "scenes/label.pix3scene": scene("  - id: l\n    type: Label2D\n"),
    }
    report = validate(make(tmp_path, files, manifest), "scenes/a.pix3scene")
    assert [(d["nodeId"], d["path"]) for d in diags(report, "W_LOCALE_SPRITE_KEY")] == [
        ("plain", "root[0].properties.stateTextureKeys.hover"),
        ("nested", "root[1].properties.stateTextureKeys.hover"),
        ("flat", "root[2].properties.textureHoverKey"),
    ]
    # The loader applies an instance's properties by schema name: the nested block is also unknown there.
    assert [(d["nodeId"], d["path"]) for d in diags(report, "E_UNKNOWN_PROPERTY")] == [
        ("nested", "root[1].properties.stateTextureKeys"),
        ("label", "root[3].properties.textureKey"),
    ]


def test_missing_locale_sprites(tmp_path: Path) -> None:
    manifest = MANIFEST + LOC.format(fb="en", locales="en, de")
    files: dict[str, str | bytes] = {
        "locales/en.json": json.dumps(
            {
                "sprites": {
                    "ok": "res://sprites/logo.png",
                    "svg": "sprites/ok.svg",
                    "web": "https://example.com/a.png",
                    "gone": "res://sprites/gone.png",
                    "case": "res://sprites/Logo.png",
                }
            },
            indent=2,
        ),
        "locales/de.json": json.dumps({"sprites": {"gone": "sprites/gone-de.png", "bad": "res://sprites/bad.svg"}}),
        "sprites/logo.png": PNG,
        "sprites/ok.svg": f'<svg {SVG_NS} width="2" height="2"/>',
        "sprites/bad.svg": '<svg width="2" height="2"/>',
        "scenes/a.pix3scene": scene("  - id: a\n    type: Node2D\n"),
    }
    root = make(tmp_path, files, manifest)
    report = validate(root)
    found = [(d["file"], d["path"]) for d in diags(report, "E_MISSING_LOCALE_SPRITE")]
    assert found == [
        ("locales/de.json", "sprites.gone"),
        ("locales/en.json", "sprites.gone"),
        ("locales/en.json", "sprites.case"),
    ]
    assert diags(report, "E_MISSING_LOCALE_SPRITE")[2]["fix"] == "the file is res://sprites/logo.png (case differs)"
    assert [(d["file"], d["path"]) for d in diags(report, "E_SVG_INVALID")] == [("locales/de.json", "sprites.bad")]
    assert codes(validate(root, "scenes/a.pix3scene")) == []


def test_script_keys(tmp_path: Path) -> None:
    hud = (
        "import { tr, trPlural, trSprite } from '@pix3/runtime';\n"
        "tr('menu.play');\n"
        "tr('menu.gone');\n"
        'setTextKey("blank");\n'
        "trPlural('enemy', 2);\n"
        "trSprite('logo.none');\n"
        "trPlural('wave', 1);\n"
        "tr(`score.${n}`); tr(key); trSprite('logo');\n"
    )
    files: dict[str, str | bytes] = {
        "locales/en.json": json.dumps(
            {
                "strings": {"menu.play": "Play", "wave.other": "waves", "enemy.one": "enemy", "blank": ""},
                "sprites": {"logo": "res://sprites/logo.png"},
            }
        ),
        "locales/de.json": json.dumps({"strings": {"only.de": "x"}}),
        "sprites/logo.png": PNG,
        "src/hud.ts": hud,
        "src/types.d.ts": "tr('nope.decl');\n",
        "src/hud.spec.ts": "tr('nope.spec');\n",
        "scenes/a.pix3scene": scene("  - id: a\n    type: Node2D\n"),
    }
    root = make(tmp_path, files)
    report = validate(root)
    found = diags(report, "E_LOCALE_SCRIPT_KEY")
    assert [(d["file"], d["line"]) for d in found] == [("src/hud.ts", 3), ("src/hud.ts", 4), ("src/hud.ts", 5)]
    assert found[0]["fix"] == 'add "menu.gone": "<text>" to "strings" of locales/en.json (and the other locales)'
    assert "tr('menu.gone'): \"menu.gone\" has no text in locales/en.json" in found[0]["message"]
    assert '"enemy.other"' in found[2]["fix"]
    sprite = diags(report, "W_LOCALE_SPRITE_KEY")
    assert [(d["file"], d["line"]) for d in sprite] == [("src/hud.ts", 6)] and "the script gets null" in sprite[0][
        "message"
    ]
    assert codes(validate(root, "scenes/a.pix3scene")) == []


AUTOLOADS = """autoloads:
  - singleton: Spin
    scriptPath: scripts/Spinner.ts
  - singleton: Gone
    scriptPath: scripts/Gone.ts
  - singleton: State
    scriptPath: src/game/State.ts
  - singleton: Helpers
    scriptPath: scripts/Helpers.ts
  - singleton: Spin
    scriptPath: scripts/Spinner.ts
  - scriptPath: scripts/Spinner.ts
  - singleton: Off
    scriptPath: scripts/Nothing.ts
    enabled: false
"""


def test_autoloads(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "scripts/Spinner.ts": "export class Spinner extends Script {}\n",
        "scripts/Helpers.ts": "export class Spinner2 extends Script {}\n",
        "src/game/State.ts": "export class State extends Script {}\n",
    }
    root = make(tmp_path, files, MANIFEST + AUTOLOADS)
    found = diags(validate(root))
    assert [(d["code"], d["file"], d["path"]) for d in found] == [
        ("E_AUTOLOAD", "pix3project.yaml", "autoloads[1].scriptPath"),
        ("E_AUTOLOAD", "pix3project.yaml", "autoloads[2].scriptPath"),
        ("E_AUTOLOAD", "pix3project.yaml", "autoloads[3].scriptPath"),
        ("E_AUTOLOAD", "pix3project.yaml", "autoloads[4].singleton"),
        ("E_AUTOLOAD", "pix3project.yaml", "autoloads[5]"),
    ]
    assert found[0]["line"] == 10 and "does not exist" in found[0]["message"]
    assert "does not export Helpers" in found[2]["message"]
    clean = make(
        tmp_path / "clean",
        {"scripts/Spinner.ts": files["scripts/Spinner.ts"]},
        MANIFEST + "autoloads:\n  - singleton: Spin\n    scriptPath: res://scripts/Spinner.ts\n",
    )
    assert diags(validate(clean)) == []


def test_unused_assets(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "sprites/used.png": PNG,
        "sprites/by-script.png": PNG,
        "sprites/unused.png": PNG,
        "sprites/.hidden.png": PNG,
        "scripts/Loader.ts": "const url = 'sprites/by-script.png';\n",
        "scenes/a.pix3scene": scene(
            "  - id: a\n    type: Sprite2D\n    properties:\n      texture: res://sprites/used.png\n"
        ),
    }
    root = make(tmp_path, files)
    assert [d["file"] for d in diags(validate(root), "W_UNUSED_ASSET")] == ["sprites/unused.png"]
    assert diags(validate(root, "scenes/a.pix3scene")) == []
    assert paths(validate(root), "W_UNUSED_ASSET") == [None]
