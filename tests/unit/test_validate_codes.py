"""Every code we can emit: one project that triggers it, one near miss that does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from pix3tools.validate import CODES, codes_help, run_validate
from tests.support.validate import MANIFEST, SVG_NS, codes, make, scene

PNG = b"\x89PNG\r\n\x1a\n"
Files = dict[str, str | bytes]
# (files, manifest extra, hydrate)
Case = tuple[Files, str, bool]


def _node(type_: str, props: str = "", extra: str = "", node_id: str = "a") -> str:
    body = f"  - id: {node_id}\n    type: {type_}\n"
    if props:
        body += "    properties:\n" + "".join(f"      {line}\n" for line in props.split("\n"))
    return scene(body + extra)


def _one(text: str, **more: str | bytes) -> Case:
    return ({"scenes/a.pix3scene": text, **more}, "", False)


def _sprite(url: str, **more: str | bytes) -> Case:
    return _one(_node("Sprite2D", f"texture: {{type: texture, url: {url}}}"), **more)


def _locale(en: str, de: str = "{}", text: str = "", extra: Files | None = None) -> Case:
    manifest = "localization:\n  defaultLocale: en\n  locales: [en, de]\n"
    files: Files = {"locales/en.json": en, "locales/de.json": de, "scenes/a.pix3scene": text or _node("Node2D")}
    files.update(extra or {})
    return (files, manifest, False)


def _anim(frame: str, **more: str | bytes) -> Case:
    anim = f'{{"version": "1.0.0", "texturePath": "", "clips": [{{"name": "s", "frames": [{{"texturePath": "{frame}"}}]}}]}}'
    return _one(
        _node("AnimatedSprite2D", "animationResourcePath: res://sprites/a.pix3anim"),
        **{"sprites/a.pix3anim": anim, **more},
    )


def _prefab(prefab: str, instance_extra: str = "") -> Case:
    level = scene("  - id: i\n    instance: res://scenes/p.pix3scene\n" + instance_extra)
    return ({"scenes/level.pix3scene": level, "scenes/p.pix3scene": prefab}, "", False)


SPINNER = "export class Spinner extends Script {}\n"
SIZED = f'<svg {SVG_NS} width="4" height="4" viewBox="0 0 4 4"/>'
OVERRIDE = "    overrides:\n      byLocalId:\n        {key}:\n          properties: {{visible: false}}\n"
PREFAB = scene("  - id: p\n    type: Group2D\n    children:\n      - id: c\n        type: Label2D\n")

CASES: dict[str, tuple[Case, Case]] = {
    "E_YAML": (_one("root: [\n"), _one(_node("Node2D"))),
    "E_SHAPE": (_one("version: 1.0.0\nroot: {a: 1}\n"), _one(_node("Node2D"))),
    "E_UNKNOWN_NODE_TYPE": (_one(_node("Sprit2D")), _one(_node("Sprite2D"))),
    "W_TYPE_CASE": (_one(_node("sprite2d")), _one(_node("Sprite2D"))),
    "E_UNKNOWN_PROPERTY": (_one(_node("ColorRect2D", "widht: 3")), _one(_node("ColorRect2D", "width: 3"))),
    "W_WRITE_ONLY_PROPERTY": (
        _one(_node("Label2D", "texturePath: res://sprites/s.png"), **{"sprites/s.png": PNG}),
        _one(_node("Button2D", "texturePath: res://sprites/s.png"), **{"sprites/s.png": PNG}),
    ),
    "W_LEGACY_KEY": (
        _one(_node("Sprite2D", "texturePath: res://sprites/s.png"), **{"sprites/s.png": PNG}),
        _one(_node("Sprite2D", "texture: res://sprites/s.png"), **{"sprites/s.png": PNG}),
    ),
    "E_PROPERTY_TYPE": (_one(_node("ColorRect2D", "width: wide")), _one(_node("ColorRect2D", "width: 3"))),
    "E_PROPERTY_RANGE": (_one(_node("Camera3D", "fov: 0")), _one(_node("Camera3D", "fov: 0.1"))),
    "W_PROPERTY_RANGE": (_one(_node("Node2D", "opacity: 1.5")), _one(_node("Node2D", "opacity: 1"))),
    "E_PROPERTY_ENUM": (_one(_node("Node2D", "blendMode: Normal")), _one(_node("Node2D", "blendMode: normal"))),
    "E_UNKNOWN_COMPONENT": (
        _one(_node("Node2D", extra="    components:\n      - type: core:Rotat\n")),
        _one(_node("Node2D", extra="    components:\n      - type: core:Rotate\n")),
    ),
    "E_UNKNOWN_CONFIG_KEY": (
        _one(_node("Node2D", extra="    components:\n      - type: core:Rotate\n        config: {speed: 1}\n")),
        _one(_node("Node2D", extra="    components:\n      - type: core:Rotate\n        config: {rotationSpeed: 1}\n")),
    ),
    "E_USER_SCRIPT_NOT_FOUND": (
        _one(_node("Node2D", extra="    components:\n      - type: user:Spiner\n"), **{"scripts/Spinner.ts": SPINNER}),
        _one(_node("Node2D", extra="    components:\n      - type: user:Spinner\n"), **{"scripts/Spinner.ts": SPINNER}),
    ),
    "E_MISSING_RESOURCE": (_sprite("res://sprites/s.png"), _sprite("res://sprites/s.png", **{"sprites/s.png": PNG})),
    "E_MISSING_PREFAB": (
        ({"scenes/level.pix3scene": scene("  - id: i\n    instance: res://scenes/nope.pix3scene\n")}, "", False),
        _prefab(PREFAB),
    ),
    "E_PREFAB_CYCLE": (
        _prefab(scene("  - id: p\n    instance: res://scenes/level.pix3scene\n")),
        _prefab(PREFAB),
    ),
    "E_PREFAB_ROOT": (_prefab(PREFAB + "  - id: q\n    type: Group2D\n"), _prefab(PREFAB)),
    "E_UNKNOWN_OVERRIDE_TARGET": (
        _prefab(PREFAB, OVERRIDE.format(key="nope")),
        _prefab(PREFAB, OVERRIDE.format(key="c")),
    ),
    "E_DUPLICATE_ID": (
        _one(_node("Node2D") + "  - id: a\n    type: Node2D\n"),
        _one(_node("Node2D") + "  - id: b\n    type: Node2D\n"),
    ),
    "E_EMOJI_AS_ART": (_one(_node("Label2D", 'label: "🪙"')), _one(_node("Label2D", 'label: "Coins 🪙"'))),
    "E_SVG_INVALID": (
        _sprite("res://sprites/s.svg", **{"sprites/s.svg": '<svg width="4" height="4"/>'}),
        _sprite("res://sprites/s.svg", **{"sprites/s.svg": SIZED}),
    ),
    "E_SVG_NO_SIZE": (
        _sprite("res://sprites/s.svg", **{"sprites/s.svg": f"<svg {SVG_NS}/>"}),
        _sprite("res://sprites/s.svg", **{"sprites/s.svg": SIZED}),
    ),
    "W_SVG_VIEWBOX_ONLY": (
        _sprite("res://sprites/s.svg", **{"sprites/s.svg": f'<svg {SVG_NS} viewBox="0 0 4 4"/>'}),
        _sprite("res://sprites/s.svg", **{"sprites/s.svg": SIZED}),
    ),
    "W_SVG_EXTERNAL_REF": (
        _sprite("res://sprites/s.svg", **{"sprites/s.svg": SIZED[:-2] + '><image href="x.png"/></svg>'}),
        _sprite("res://sprites/s.svg", **{"sprites/s.svg": SIZED[:-2] + '><use href="#x"/></svg>'}),
    ),
    "E_ANIM_JSON": (
        _one(
            _node("AnimatedSprite2D", "animationResourcePath: res://sprites/a.pix3anim"), **{"sprites/a.pix3anim": "{"}
        ),
        _anim("sprites/f.png", **{"sprites/f.png": PNG}),
    ),
    "E_MISSING_FRAME": (_anim("sprites/f.png"), _anim("sprites/f.png", **{"sprites/f.png": PNG})),
    "E_LOCALE_MISSING": (
        ({"scenes/a.pix3scene": _node("Node2D")}, "localization:\n  locales: [en]\n", False),
        ({"scenes/a.pix3scene": _node("Node2D"), "locales/en.json": "{}"}, "localization:\n  locales: [en]\n", False),
    ),
    "W_LOCALE_MISSING": (
        (
            {"scenes/a.pix3scene": _node("Node2D"), "locales/en.json": "{}"},
            "localization:\n  locales: [en, de]\n",
            False,
        ),
        _locale("{}"),
    ),
    "E_LOCALE_JSON": (_locale("{"), _locale("{}")),
    "W_LOCALE_JSON": (_locale("{}", "{"), _locale("{}", "{}")),
    "E_LOCALE_VALUE": (_locale('{"strings": {"a": 1}}'), _locale('{"strings": {"a": "1"}}')),
    "W_LOCALE_VALUE": (_locale("{}", '{"strings": {"a": 1}}'), _locale("{}", '{"strings": {"a": "1"}}')),
    "E_LOCALE_KEY": (
        _locale("{}", text=_node("Label2D", "labelKey: menu.play")),
        _locale('{"strings": {"menu.play": "Play"}}', text=_node("Label2D", "labelKey: menu.play")),
    ),
    "E_LOCALE_SCRIPT_KEY": (
        _locale("{}", extra={"src/a.ts": "tr('menu.play')\n"}),
        _locale('{"strings": {"menu.play": "Play"}}', extra={"src/a.ts": "tr('menu.play')\n"}),
    ),
    "E_LOCALE_SPRITE_KEY": (
        _locale("{}", text=_node("Sprite2D", "textureKey: logo")),
        _locale(
            '{"sprites": {"logo": "res://sprites/l.png"}}',
            text=_node("Sprite2D", "textureKey: logo"),
            extra={"sprites/l.png": PNG},
        ),
    ),
    "W_LOCALE_SPRITE_KEY": (
        _locale(
            "{}", text=_node("Sprite2D", "texture: res://sprites/l.png\ntextureKey: logo"), extra={"sprites/l.png": PNG}
        ),
        _locale(
            '{"sprites": {"logo": "res://sprites/l.png"}}',
            text=_node("Sprite2D", "texture: res://sprites/l.png\ntextureKey: logo"),
            extra={"sprites/l.png": PNG},
        ),
    ),
    "E_MISSING_LOCALE_SPRITE": (
        _locale('{"sprites": {"logo": "res://sprites/l.png"}}'),
        _locale(
            '{"sprites": {"logo": "res://sprites/l.png"}}', extra={"sprites/l.png": PNG, "src/x.ts": "'sprites/l.png'"}
        ),
    ),
    "E_AUTOLOAD": (
        ({}, "autoloads:\n  - singleton: Spin\n    scriptPath: scripts/Spinner.ts\n", False),
        (
            {"scripts/Spinner.ts": SPINNER},
            "autoloads:\n  - singleton: Spin\n    scriptPath: scripts/Spinner.ts\n",
            False,
        ),
    ),
    "W_LEGACY_VERSION": (_one(_node("Node2D").replace("1.0.0", "0.9.0")), _one(_node("Node2D"))),
    "W_UNUSED_ASSET": (
        _one(_node("Node2D"), **{"sprites/s.png": PNG}),
        _one(_node("Sprite2D", "texture: res://sprites/s.png"), **{"sprites/s.png": PNG}),
    ),
    "W_HYDRATE_SKIPPED": (
        (
            {
                "scenes/a.pix3scene": _node("Node2D", extra="    components:\n      - type: user:Spinner\n"),
                "scripts/Spinner.ts": SPINNER,
            },
            "",
            True,
        ),
        ({"scenes/a.pix3scene": _node("Node2D")}, "", True),
    ),
}

# Level-2 codes: only the JavaScript runtime can produce them (docs/validate.md, "Level 2 is not run").
NOT_EMITTED = {"E_LOAD", "E_PENDING_COMPONENT", "E_SCRIPT_COMPILE", "W_SCRIPT_IMPORT", "W_RENDERABILITY"}


def test_the_table_covers_every_code() -> None:
    assert set(CASES) | NOT_EMITTED == {c.code for c in CODES}
    assert all(c.level == 2 for c in CODES if c.code in NOT_EMITTED)
    assert "E_LOCALE_SCRIPT_KEY" in codes_help()


def _run(tmp: Path, case: Case) -> list[str]:
    files, manifest, hydrate = case
    root = make(tmp, files, MANIFEST + manifest)
    return codes(run_validate(root, None, hydrate=hydrate))


@pytest.mark.parametrize("code", sorted(CASES))
def test_trigger_and_near_miss(code: str, tmp_path: Path) -> None:
    trigger, near = CASES[code]
    assert code in _run(tmp_path / "trigger", trigger)
    assert code not in _run(tmp_path / "near", near)
