"""Outlines checked against expectations written by hand, not produced by our code.

The goldens in tests/fixtures/tree/golden/ were written by `pix3 tree` itself (and reviewed); these
cases restate, independently, what the tree rules give for a few of the same fixtures: each line
below was worked out from the fixture's YAML and the rules in docs/tree.md (the arithmetic is in
the comments), so a golden regenerated from a wrong outline would still fail here.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from pix3tools.tree.command import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tree"


def _tree(project: str, *argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), cwd=FIXTURES / project, out=out, err=err)
    assert err.getvalue() == ""
    return code, out.getvalue()


def test_instances_with_a_missing_prefab() -> None:
    # world (Group2D) holds two instances; the count is every mapping of the file (3), not the
    # prefab's nodes. enemy-a shows its prefab root's type, its own name, 2 override keys
    # (value, maxValue), its 2 own properties (transform, visible) and the transform position;
    # enemy-b's prefab is missing: "Instance", no name, nothing edited.
    code, text = _tree("instances", "scenes/level.pix3scene")
    assert code == 0
    assert text == (
        "scenes/level.pix3scene — 3 nodes\n"
        'Group2D#world "World"\n'
        '  Sprite2D#enemy-a "Enemy A" ↳ instance res://scenes/prefabs/enemy.pix3scene (2 overrides, 2 properties)'
        " pos=(100,200)\n"
        "  Instance#enemy-b ↳ instance res://scenes/prefabs/missing.pix3scene (no overrides)\n"
    )


def test_an_instance_in_json_names_its_prefab_root() -> None:
    code, text = _tree("instances", "scenes/level.pix3scene", "--json")
    assert code == 0
    nodes = json.loads(text)["nodes"]
    enemy_a = nodes[0]["children"][0]
    assert enemy_a["instance"] == {
        "path": "res://scenes/prefabs/enemy.pix3scene",
        "rootType": "Sprite2D",
        "rootName": "Enemy",
        "overrides": 2,
        "properties": 2,
    }
    assert nodes[0]["children"][1]["instance"] == {
        "path": "res://scenes/prefabs/missing.pix3scene",
        "overrides": 0,
        "properties": 0,
    }


def test_margins_resolve_against_the_parent() -> None:
    # The viewport is 1080x1920 (the w21 manifest). hud stretches both ways with 0 margins: 1080x1920.
    # bar: stretch/bottom, left 40 right 40 bottom 20, height 40 → width 1080-40-40 = 1000,
    #      x = (40-40)/2 = 0, y = -1920/2 + 20 + 40/2 = -920.
    # knob: right 10, width 20 inside bar (1000 wide) → x = 1000/2 - 10 - 20/2 = 480; y as written: 5.
    # unsized: left 10 but no width → x unknown (?), y as written: 70.
    code, text = _tree("w21", "scenes/hud.pix3scene")
    assert code == 0
    assert text.splitlines() == [
        "scenes/hud.pix3scene — 4 nodes",
        "Group2D#hud size=1080x1920 layout=stretch/stretch(left=0,right=0,top=0,bottom=0)",
        "  Group2D#bar pos=(0,-920) size=1000x40 layout=stretch/bottom(left=40,right=40,bottom=20)",
        "    Group2D#knob pos=(480,5) size=20x20 layout=right/none(right=10)",
        "  Sprite2D#unsized pos=(?,70) layout=left/none(left=10)",
    ]


def test_depth_zero_counts_what_is_cut() -> None:
    # main.pix3scene has 12 node mappings; at depth 0 only game-root is shown, its 11 descendants cut.
    code, text = _tree("tapper", "res://scenes/main.pix3scene", "--depth", "0")
    assert code == 0
    assert text.splitlines() == [
        "scenes/main.pix3scene — 12 nodes, 1 shown to depth 0",
        'Group2D#game-root "Game Root" size=1080x1920 layout=stretch/stretch'
        "  components=[user:GameRules, user:TouchRules]  … +11 below",
    ]


def test_the_project_at_a_glance() -> None:
    # The manifest's name, type, viewport and entry (res:// dropped); the five Script classes of
    # scripts/, sorted; then one line per scene.
    code, text = _tree("tapper")
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == '"Tapper" — 2d, 1080x1920, entry scenes/menu.pix3scene (*)'
    assert lines[1] == "scripts: user:GameRules user:MenuFlow user:ScoreHud user:Spawner user:TouchRules"
    assert lines[-1] == "`pix3 tree <scene>` for one scene's nodes (--depth N, --types A,B, --props)."
    by_scene = {line.split()[0]: line.split()[1:] for line in lines[2:] if line.startswith("scenes/")}
    assert by_scene["scenes/menu.pix3scene"][:2] == ["*", "scene"]
    assert by_scene["scenes/prefabs/target.pix3scene"][:3] == ["prefab", "1", "node"]
    assert by_scene["scenes/ui/result.pix3scene"][0] == "overlay"
