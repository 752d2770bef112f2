"""character-compile's pure parts: the frame scan, PNG header, names, YAML scalars, the
`.pix3anim` normalisation (docs/character-compile.md, "What the runtime reads")."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from pix3tools.character import (
    CharacterError,
    clip_file_prefix,
    compile_spec,
    load_spec,
    png_size,
    scan_frames,
    slugify,
)
from pix3tools.character._compile import default_loop
from pix3tools.character._prefab import yaml_scalar
from pix3tools.character._scan import sequence_key
from tests.support.images import png


def test_scan_groups_numbers_gaps_and_duplicates() -> None:
    scan = scan_frames(
        [
            "Goblin/Sword/idle0010.png",
            "Goblin/Sword/idle0002.png",
            "Goblin/Sword/idle0001.png",
            "Goblin/Sword/attack_03.png",
            "Goblin/Sword/attack_003.png",
            "Goblin/Sword/attack_1.png",
            "Goblin\\Bow\\run 0001.png",
            "Goblin/Bow/run 0002.png",
            "cover.jpg",
        ]
    )
    assert scan.unnumbered == ["cover.jpg"]
    assert [g.key for g in scan.groups] == ["Goblin/Bow/run", "Goblin/Sword/attack", "Goblin/Sword/idle"]
    run, attack, idle = scan.groups
    assert (idle.numbers, idle.gaps, idle.duplicates) == ([1, 2, 10], list(range(3, 10)), [])
    assert (attack.numbers, attack.duplicates, attack.gaps) == ([1, 3, 3], [3], [2])
    assert run.paths[0] == "Goblin/Bow/run 0001.png"
    assert scan_frames(["12.png", "a.png", ".5.png"]).unnumbered == ["12.png", "a.png", ".5.png"]


def test_sequence_keys() -> None:
    assert {sequence_key(s) for s in ("sword/attack", "sword/attack_", "sword/attack-", "sword\\attack. ")} == {
        "sword/attack"
    }
    assert sequence_key("die/") == "die"


def test_png_header() -> None:
    assert png_size(png(1, 1)) == (1, 1)
    assert png_size(png(64, 32)) == (64, 32)
    assert png_size(png(300, 7)) == (300, 7)
    assert png_size(b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>') is None
    assert png_size(b"\x00\x00\x00\x00") is None
    assert png_size(png(0, 5)) is None
    assert png_size(png(4, 4)[:23]) is None
    assert png_size(b"\xff\xd8\xff\xe0" + b"\x00" * 40) is None  # a JPEG


def test_names() -> None:
    assert slugify("Goblin Scout") == "goblin-scout"
    assert slugify("  Über--Goblin!! ") == "ber-goblin"
    assert [clip_file_prefix(n) for n in ("sword.idle", "Bow Attack!", "die", "...", "a-b_c")] == [
        "sword_idle",
        "bow_attack",
        "die",
        "frame",
        "a_b_c",
    ]
    assert [default_loop(s) for s in ("idle", "run", "Attack", " die ", "hurt", "death", "hit")] == [
        True,
        True,
        False,
        False,
        False,
        False,
        False,
    ]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", "plain"),
        ("", '""'),
        ("123", '"123"'),
        ("1.0", '"1.0"'),
        ("0x1F", '"0x1F"'),
        ("0o17", '"0o17"'),
        ("+1", '"+1"'),
        ("1e3", '"1e3"'),
        (".5", '".5"'),
        (".inf", '".inf"'),
        (".nan", '".nan"'),
        ("true", '"true"'),
        ("True", '"True"'),
        ("FALSE", '"FALSE"'),
        ("null", '"null"'),
        ("~", '"~"'),
        ("- a", '"- a"'),
        ("? a", '"? a"'),
        ("#x", '"#x"'),
        ("&a", '"&a"'),
        ("*a", '"*a"'),
        ("!a", '"!a"'),
        ("%a", '"%a"'),
        ("@a", '"@a"'),
        ("`a", '"`a"'),
        ("|a", '"|a"'),
        (">a", '">a"'),
        ("[a", '"[a"'),
        ("{a", '"{a"'),
        (",a", '",a"'),
        ('"q"', "'\"q\"'"),
        ("a: b", '"a: b"'),
        ("a #b", '"a #b"'),
        (" lead", '" lead"'),
        ("trail ", '"trail "'),
        ("-", '"-"'),
        (":", '":"'),
        ("yes", "yes"),
        ("on", "on"),
        ("Off", "Off"),
        ("NO", "NO"),
        ("y", "y"),
        ("2026-01-01", "2026-01-01"),
        ("12:30", "12:30"),
        ("1_000", "1_000"),
        ("?x", "?x"),
        ('a"b', 'a"b'),
        ("it's", "it's"),
        ("Gobelin éclaireur", "Gobelin éclaireur"),
        (".", "."),
        ("a\tb", "a\tb"),
        ("1.0.0", "1.0.0"),
        ("two\nlines", "|-\n  two\n  lines"),
    ],
)
def test_yaml_scalars_as_the_reference_writes_them(value: str, text: str) -> None:
    assert yaml_scalar(value) == text


def test_yaml_scalars_read_back_as_themselves() -> None:
    from pix3tools.scene import parse_yaml

    for value in ("123", "true", "- a", "a: b", '"q"', "it's", "", "~", "two\nlines", "a #b"):
        assert parse_yaml(f"k: {yaml_scalar(value)}\n").data == {"k": value}, value


def _normalise(resource: dict[str, Any]) -> dict[str, Any]:
    """What the runtime makes of a resource (only the fields the compiler writes)."""

    def xy(v: Any, missing: float) -> dict[str, Any]:
        v = v if isinstance(v, dict) else {}
        return {k: v.get(k, missing) for k in ("x", "y")}

    clips = []
    for i, clip in enumerate(resource.get("clips", [])):
        frames = []
        for frame in clip.get("frames", []):
            box = frame.get("boundingBox", {})
            size = frame.get("sourceSize") or {}
            frames.append(
                {
                    "textureIndex": max(0, math.floor(frame.get("textureIndex", 0))),
                    "offset": xy(frame.get("offset"), 0),
                    "repeat": xy(frame.get("repeat"), 0),
                    "durationMultiplier": max(0.001, frame.get("durationMultiplier", 1)),
                    "anchor": xy(frame.get("anchor"), 0.5),
                    "texturePath": str(frame.get("texturePath", "")).strip(),
                    "boundingBox": {k: box.get(k, 0) for k in ("x", "y", "width", "height")},
                    "collisionPolygon": frame.get("collisionPolygon", []),
                    "events": frame.get("events", []),
                    "sourceSize": size
                    if size.get("width", 0) > 0 and size.get("height", 0) > 0
                    else {"width": box.get("width", 0), "height": box.get("height", 0)},
                    "points": frame.get("points", []),
                }
            )
        fps = clip.get("fps")
        clips.append(
            {
                "name": str(clip.get("name", "")).strip() or f"clip-{i + 1}",
                "fps": fps if isinstance(fps, int | float) and fps > 0 else 12,
                "loop": clip["loop"] if isinstance(clip.get("loop"), bool) else True,
                "playbackMode": "ping-pong" if clip.get("playbackMode") == "ping-pong" else "normal",
                "frames": frames,
            }
        )
    return {
        "version": str(resource.get("version", "1.0.0")).strip(),
        "texturePath": resource.get("texturePath", ""),
        "clips": clips,
    }


def _goblin(tmp_path: Path, spec: str, frames: dict[str, tuple[int, int]]) -> Path:
    for name, (w, h) in frames.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png(w, h, name.encode()))
    (tmp_path / "goblin.yaml").write_text(spec)
    return tmp_path / "goblin.yaml"


GOBLIN = """name: GOBLIN
slug: goblin
anchor: { x: 0.5, y: 0.9 }
defaultVariant: sword
defaultState: idle
clips:
  - { variant: sword, state: idle, frames: [sword/idle_1.png, sword/idle_2.png] }
  - { variant: sword, state: attack, fps: 15, frames: [sword/attack_1.png] }
  - { variant: bow, state: idle, loop: true, frames: [bow/idle_1.png] }
  - { state: die, frames: [die/die_1.png, die/die_2.png] }
"""
GOBLIN_FRAMES = {
    "sword/idle_1.png": (100, 100),
    "sword/idle_2.png": (100, 100),
    "sword/attack_1.png": (100, 100),
    "bow/idle_1.png": (100, 100),
    "die/die_1.png": (100, 100),
    "die/die_2.png": (100, 100),
}


def test_goblin_plan(tmp_path: Path) -> None:
    plan = compile_spec(load_spec(_goblin(tmp_path, GOBLIN, GOBLIN_FRAMES)))
    assert (plan.animation_path, plan.prefab_path) == (
        "sprites/goblin/goblin.pix3anim",
        "scenes/prefabs/GOBLIN.pix3scene",
    )
    assert [c.name for c in plan.clips] == ["sword.idle", "sword.attack", "bow.idle", "die"]
    frames = [f.path.rpartition("/")[2] for f in plan.files if f.kind == "frame"]
    assert frames == [
        "sword_idle_0001.png",
        "sword_idle_0002.png",
        "sword_attack_0001.png",
        "bow_idle_0001.png",
        "die_0001.png",
        "die_0002.png",
    ]
    anim = json.loads(plan.files[0].data)
    idle, attack, _, die = anim["clips"]
    assert idle["frames"][1]["texturePath"] == "res://sprites/goblin/sword_idle_0002.png"
    assert idle["frames"][0]["sourceSize"] == {"width": 100, "height": 100}
    assert (idle["fps"], idle["loop"], attack["fps"], attack["loop"], die["loop"]) == (12, True, 15, False, False)
    assert list(idle) == ["name", "fps", "loop", "playbackMode", "frames"]
    prefab = plan.files[1].data.decode()
    for needle in (
        "type: core:CharacterVisual2D",
        "type: AnimatedSprite2D",
        "animationResourcePath: res://sprites/goblin/goblin.pix3anim",
        "currentClip: sword.idle",
        "sizeMode: native",
    ):
        assert needle in prefab
    assert "Group2D" not in prefab and "&" not in prefab and "*" not in prefab
    for data in (plan.files[0].data, plan.files[1].data):
        assert b"sword/idle_1.png" not in data and str(tmp_path).encode() not in data
    # anchor kept, and the runtime's normalisation is the identity on the compiler's output
    assert idle["frames"][0]["anchor"] == {"x": 0.5, "y": 0.9}
    assert _normalise(anim) == anim
    # deterministic
    again = compile_spec(load_spec(tmp_path / "goblin.yaml"))
    assert [(f.path, f.data) for f in again.files] == [(f.path, f.data) for f in plan.files]
    assert "sword.idle: fps defaulted to 12." in plan.warnings
    assert "sword.idle: loop defaulted to true." in plan.warnings
    assert "sword.attack: fps defaulted to 12." not in plan.warnings


def test_mixed_sizes_warn(tmp_path: Path) -> None:
    frames = {**GOBLIN_FRAMES, "sword/idle_2.png": (100, 120)}
    plan = compile_spec(load_spec(_goblin(tmp_path, GOBLIN, frames)))
    assert any(w.startswith("sword.idle: frames differ in size (100x100, 100x120)") for w in plan.warnings)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("clips:\n", "clips: []\nx:\n"), "unknown key(s) x"),
        (
            (
                "  - { state: die, frames: [die/die_1.png, die/die_2.png] }\n",
                "  - { variant: sword, state: idle, frames: [die/die_1.png] }\n",
            ),
            'duplicate clip "sword.idle".',
        ),
        (
            ("defaultVariant: sword", "defaultVariant: staff"),
            "default pair staff/idle has no clip (have: sword.idle, sword.attack, bow.idle, die).",
        ),
        (("frames: [die/die_1.png, die/die_2.png]", "frames: []"), 'clip "die" has no frames.'),
        (("slug: goblin", "slug: ../goblin"), 'slug "../goblin" must be a plain folder name.'),
        (("slug: goblin", "slug: goblin\nprefabDirectory: ../out"), '"../out" must be a path inside the project.'),
        (("slug: goblin", "slug: goblin\nspriteDirectory: a/./b"), '"a/./b" must be a path inside the project.'),
        (
            ("  - { state: die,", "  - { variant: Sword, state: Idle!,"),
            "two frames would be written to sprites/goblin/sword_idle_0001.png (clip names that differ only in punctuation or case).",
        ),
        (("fps: 15", "fps: -1"), 'clip "sword.attack": fps must be a positive number.'),
        (("fps: 15", "fps: .inf"), 'clip "sword.attack": fps must be a positive number.'),
        (("fps: 15", "fps: fast"), "clips[1].fps must be a number."),
        (("loop: true", "loop: yes"), "clips[2].loop must be true or false."),
        (("name: GOBLIN", "name: 42"), "name must be a string."),
        (("name: GOBLIN", "name: '  '"), "name is required."),
        (("slug: goblin", "slug: 7"), "slug must be a string."),
        (("anchor: { x: 0.5, y: 0.9 }", "anchor: { x: 0.5 }"), "anchor must be { x: <number>, y: <number> }."),
        (("anchor: { x: 0.5, y: 0.9 }", "anchor: null"), "anchor must be { x: <number>, y: <number> }."),
        (("anchor: { x: 0.5, y: 0.9 }", "anchor: { x: .nan, y: 1 }"), "anchor must be finite numbers."),
        (("defaultState: idle", "defaultState: [idle]"), "defaultState must be a string."),
        (("  - { state: die,", "  - 7\n  - { state: die,"), "clips[3] must be a mapping."),
        (
            ("state: attack,", "state: attack, colour: red,"),
            "clips[1]: unknown key(s) colour (known: variant, state, fps, loop, frames, sequence).",
        ),
        (("state: attack,", "state: 5,"), "clips[1].state must be a string."),
        (("variant: bow,", "variant: 3,"), "clips[2].variant must be a string."),
        (
            ("frames: [bow/idle_1.png]", "frames: [bow/idle_1.png], sequence: bow/idle_"),
            "clips[2]: give exactly one of frames (a list) or sequence.",
        ),
        (("frames: [bow/idle_1.png]", "frames: bow/idle_1.png"), "clips[2].frames must be a list of paths."),
        (("frames: [bow/idle_1.png]", "frames: [bow/nope.png]"), "clips[2]: bow/nope.png does not exist."),
        (
            ("frames: [bow/idle_1.png]", "frames: [goblin.yaml]"),
            "clips[2]: goblin.yaml is not a PNG (frames must be PNG files).",
        ),
        (
            ("frames: [bow/idle_1.png]", "sequence: bow/run_"),
            "clips[2]: no numbered PNGs bow/run<n>.png (sequences there: bow/idle).",
        ),
        (("frames: [bow/idle_1.png]", "sequence: nowhere/run_"), "clips[2]: folder nowhere does not exist."),
        (("name: GOBLIN\nslug: goblin", "name: '!!!'"), "name and slug are required."),
    ],
)
def test_refusals(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    old, new = change
    assert old in GOBLIN
    spec = _goblin(tmp_path, GOBLIN.replace(old, new, 1), GOBLIN_FRAMES)
    with pytest.raises(CharacterError) as caught:
        compile_spec(load_spec(spec))
    assert str(caught.value).startswith(message)


def test_not_yaml_and_not_a_mapping(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("name: [\n")
    with pytest.raises(CharacterError, match=rf"^{spec}: "):
        load_spec(spec)
    spec.write_text("- a\n")
    with pytest.raises(CharacterError, match=r"expected a mapping\.$"):
        load_spec(spec)
    spec.write_text('{"name": "J", "clips": [{"state": "idle", "frames": ["a.png"]}]}')
    (tmp_path / "a.png").write_bytes(png(2, 3))
    plan = compile_spec(load_spec(spec))
    assert plan.slug == "j" and plan.clips[0].frames == 1


def test_sequences_with_gaps_warn_and_duplicates_refuse(tmp_path: Path) -> None:
    frames = {"run/run_1.png": (8, 8), "run/run_2.png": (8, 8), "run/run_5.png": (8, 8), "run/run_10.png": (8, 8)}
    spec = _goblin(tmp_path, "name: R\nclips:\n  - { state: run, sequence: run/run }\n", frames)
    plan = compile_spec(load_spec(spec))
    assert plan.warnings[0] == "clips[0]: run/run skips frame number(s) 3, 4, 6, 7, 8, 9."
    anim = json.loads(plan.files[0].data)
    assert [f["texturePath"] for f in anim["clips"][0]["frames"]][-1] == "res://sprites/r/run_0004.png"
    (tmp_path / "run/run_002.png").write_bytes(png(8, 8))
    with pytest.raises(
        CharacterError, match=r"^clips\[0\]: run/run has frame number\(s\) 2 more than once — rename one\.$"
    ):
        load_spec(spec)
