"""`pix3 smoke`'s scene selection as tables: file texts and a change list in, scenes and a reason out."""

from __future__ import annotations

import pytest

from pix3tools.smoke import Selection, SelectionError, select_scenes
from pix3tools.smoke._select import attached_scripts, class_index, dependencies, is_script, top_level_scenes

# The recipe project: a menu (the manifest's default scene) that names the game as a PLAY target,
# the game instancing a coin prefab, a results overlay, four scripts and a design note.
RECIPE = {
    "pix3project.yaml": "name: recipe\ndefaultExportScenePath: res://scenes/menu.pix3scene\n",
    "scenes/menu.pix3scene": (
        "root:\n  - id: menu\n    type: Group2D\n    components:\n      - type: user:MenuFlow\n"
        "        config:\n          playScene: res://scenes/main.pix3scene\n"
    ),
    "scenes/main.pix3scene": (
        "root:\n  - id: game-root\n    type: Group2D\n    components:\n      - type: user:GameBoom\n"
        "    children:\n      - id: coin\n        instance: res://scenes/prefabs/coin.pix3scene\n"
    ),
    "scenes/prefabs/coin.pix3scene": (
        "root:\n  - id: coin\n    type: Sprite2D\n    components:\n      - type: user:CoinSpin\n"
    ),
    "scenes/ui/result.pix3scene": "root:\n  - id: result\n    type: Group2D\n",
    "scripts/MenuFlow.ts": "export class MenuFlow extends Script {}\n",
    "scripts/CoinSpin.ts": "export default class CoinSpin extends Script {}\n",
    "scripts/GameBoom.ts": "export class GameBoom extends Script { onStart() { throw new Error('game start broke'); } }\n",
    "scripts/util.ts": "export const two = 2;\n",
    "design/recipe.md": "# the recipe\n",
}
MAIN, MENU = "scenes/main.pix3scene", "scenes/menu.pix3scene"


def select(changed: list[str] | None, files: dict[str, str] = RECIPE, **flags: bool) -> Selection | SelectionError:
    return select_scenes(
        sorted(files), lambda p: files.get(p, ""), changed, manifest_default="scenes/menu.pix3scene", **flags
    )


@pytest.mark.parametrize(
    ("changed", "mode", "scenes"),
    [
        (["scripts/GameBoom.ts"], "changed", [MAIN]),
        (["scenes/prefabs/coin.pix3scene"], "changed", [MAIN]),
        (["scripts/CoinSpin.ts"], "changed", [MAIN]),
        (["scripts/MenuFlow.ts"], "changed", [MENU]),
        ([MENU, "scripts/GameBoom.ts"], "changed", [MAIN, MENU]),
        ([], "all", [MAIN, MENU]),
        (["design/recipe.md"], "all", [MAIN, MENU]),
        (["scripts/util.ts", "scripts/MenuFlow.ts"], "all", [MAIN, MENU]),
        (["pix3project.yaml", "scripts/MenuFlow.ts"], "all", [MAIN, MENU]),
        (
            [".yalc/@pix3/runtime/src/nodes/Node2D.ts", "node_modules/x/index.js", "scripts/MenuFlow.ts"],
            "changed",
            [MENU],
        ),
        ([".yalc/@pix3/runtime/src/nodes/Node2D.ts"], "all", [MAIN, MENU]),
        (["scripts/GameBoom.spec.ts", "scripts/MenuFlow.ts"], "changed", [MENU]),
        (None, "all", [MAIN, MENU]),
    ],
)
def test_recipe_matrix(changed: list[str] | None, mode: str, scenes: list[str]) -> None:
    picked = select(changed)
    assert isinstance(picked, Selection)
    assert (picked.mode, picked.scenes) == (mode, scenes)


@pytest.mark.parametrize(
    ("changed", "reason", "listed"),
    [
        (
            ["scripts/GameBoom.ts"],
            "scenes reached by files changed since the last commit (1 changed; --all for every scene)",
            ["scripts/GameBoom.ts"],
        ),
        ([], "every top-level scene (nothing changed since the last commit)", None),
        (None, "every top-level scene (no git history to narrow it down)", None),
        (["design/recipe.md"], "every top-level scene (no changed file is used by a scene)", ["design/recipe.md"]),
        (
            ["scripts/util.ts", "scripts/MenuFlow.ts"],
            "every top-level scene (changed scripts/util.ts reaches no scene directly)",
            ["scripts/util.ts", "scripts/MenuFlow.ts"],
        ),
        (
            ["pix3project.yaml", "scripts/MenuFlow.ts"],
            "every top-level scene (pix3project.yaml changed)",
            ["pix3project.yaml", "scripts/MenuFlow.ts"],
        ),
        (
            ["node_modules/x/index.js", "scripts/MenuFlow.ts"],
            "scenes reached by files changed since the last commit (1 changed; --all for every scene)",
            ["scripts/MenuFlow.ts"],
        ),
        ([".yalc/x.ts"], "every top-level scene (nothing changed since the last commit)", None),
    ],
)
def test_reasons_and_the_changed_list(changed: list[str] | None, reason: str, listed: list[str] | None) -> None:
    picked = select(changed)
    assert isinstance(picked, Selection)
    assert picked.reason == reason
    assert picked.changed == listed


def test_more_than_three_orphans_are_cut_with_an_ellipsis() -> None:
    files = {**RECIPE, **{f"scripts/h{i}.ts": "export const x = 1;\n" for i in range(5)}}
    picked = select([f"scripts/h{i}.ts" for i in range(5)], files)
    assert isinstance(picked, Selection)
    assert picked.reason == (
        "every top-level scene (changed scripts/h0.ts, scripts/h1.ts, scripts/h2.ts, … reaches no scene directly)"
    )


@pytest.mark.parametrize(
    ("changed", "flags", "reason"),
    [
        (None, {"changed_only": True}, "--changed needs git and a project inside a git work tree."),
        ([], {"changed_only": True}, "--changed: nothing changed since the last commit."),
        ([".yalc/a.ts"], {"changed_only": True}, "--changed: nothing changed since the last commit."),
    ],
)
def test_changed_only_refusals(changed: list[str] | None, flags: dict[str, bool], reason: str) -> None:
    assert select(changed, RECIPE, **flags) == SelectionError(reason)


@pytest.mark.parametrize(
    ("changed", "mode"),
    [
        (["scripts/MenuFlow.ts"], "changed"),
        (["scripts/util.ts"], "all"),  # an orphan widens, also under --changed
        (["pix3project.yaml"], "all"),
        (["design/recipe.md"], "all"),
    ],
)
def test_changed_only_still_widens(changed: list[str], mode: str) -> None:
    picked = select(changed, changed_only=True)
    assert isinstance(picked, Selection) and picked.mode == mode


def test_all_ignores_git() -> None:
    picked = select(["scripts/MenuFlow.ts"], run_all=True)
    assert picked == Selection("all", [MAIN, MENU], "--all: every top-level scene")


def test_no_scenes_and_no_top_level_scene() -> None:
    assert select(None, {"scripts/a.ts": ""}) == SelectionError("the project has no .pix3scene files.")
    only_parts = {
        "scenes/prefabs/coin.pix3scene": "root: []\n",
        "scenes/ui/result.pix3scene": "root: []\n",
        "levels/a.pix3scene": "root:\n  - instance: levels/b.pix3scene\n",
        "levels/b.pix3scene": "root:\n  - instance: res://levels/a.pix3scene\n",
    }
    assert select(None, only_parts) == SelectionError(
        "every scene is a prefab, a scenes/ui overlay or instanced by another — name one: pix3 smoke <scene>."
    )


def test_a_level_outside_scenes_is_the_only_top_level_scene() -> None:
    files = {
        "levels/start.pix3scene": "root: []\n",
        "scenes/prefabs/coin.pix3scene": "root: []\n",
        "scenes/ui/result.pix3scene": "root: []\n",
    }
    assert top_level_scenes(sorted(files), files.__getitem__, None) == ["levels/start.pix3scene"]


def test_order_main_then_manifest_default_then_locale_order() -> None:
    files = {
        name: "root: []\n"
        for name in ("b.pix3scene", "A.pix3scene", "a.pix3scene", "scenes/main.pix3scene", "z/menu.pix3scene")
    }
    order = top_level_scenes(sorted(files), files.__getitem__, "z/menu.pix3scene")
    assert order == ["scenes/main.pix3scene", "z/menu.pix3scene", "a.pix3scene", "A.pix3scene", "b.pix3scene"]


@pytest.mark.parametrize("folder", ["prefab/", "Prefabs/", "UI/", "x/ui/"])
def test_prefab_and_ui_folders_are_never_top_level(folder: str) -> None:
    files = {f"{folder}thing.pix3scene": "root: []\n", "scenes/main.pix3scene": "root: []\n"}
    assert top_level_scenes(sorted(files), files.__getitem__, None) == ["scenes/main.pix3scene"]


def test_instance_targets_are_taken_as_written() -> None:
    # `./x` and `RES://x` never equal a project path: the prefab stays top level, as in the reference.
    files = {
        "scenes/main.pix3scene": "root:\n  - instance: ./scenes/gem.pix3scene\n  - instance: RES://scenes/orb.pix3scene\n",
        "scenes/gem.pix3scene": "root: []\n",
        "scenes/orb.pix3scene": "root: []\n",
        "scenes/coin.pix3scene": "root:\n  - instance: '/scenes/ring.pix3scene'\n",
        "scenes/ring.pix3scene": "root: []\n",
    }
    top = top_level_scenes(sorted(files), files.__getitem__, None)
    assert top == ["scenes/main.pix3scene", "scenes/coin.pix3scene", "scenes/gem.pix3scene", "scenes/orb.pix3scene"]


def test_dependencies_follow_instances_deep_but_not_imports_or_scene_references() -> None:
    files = {
        "scenes/main.pix3scene": (
            "root:\n  - instance: res://prefabs/a.pix3scene\n    components:\n      - type: user:Boss\n"
            "    next: res://scenes/other.pix3scene\n"
        ),
        "prefabs/a.pix3scene": "root:\n  - instance: prefabs/b.prefab\n",
        "prefabs/b.prefab": "root:\n  - texture: res://art/coin%20gold.png?v=2\n  - missing: res://../outside.png\n",
        "scripts/Boss.ts": "import { helper } from './helper';\nexport abstract class Boss {}\n",
        "scripts/helper.ts": "export function helper() {}\n",
        "scenes/other.pix3scene": "root: []\n",
    }
    reach = dependencies(
        "scenes/main.pix3scene", lambda p: files.get(p, ""), class_index(sorted(files), files.__getitem__)
    )
    assert reach == {
        "scenes/main.pix3scene",
        "prefabs/a.pix3scene",
        "prefabs/b.prefab",
        "art/coin gold.png",
        "scripts/Boss.ts",
    }


def test_a_missing_instance_is_still_reached() -> None:
    files = {"scenes/main.pix3scene": "root:\n  - instance: res://prefabs/gone.pix3scene\n"}
    picked = select(["prefabs/gone.pix3scene"], files)
    assert isinstance(picked, Selection) and picked.scenes == ["scenes/main.pix3scene"]


@pytest.mark.parametrize(
    ("path", "script"),
    [
        ("a.ts", True),
        ("a.mts", True),
        ("a.js", True),
        ("a.mjs", True),
        ("a.d.ts", False),
        ("a.spec.ts", False),
        ("a.test.mjs", False),
        ("a.tsx", False),
        ("a.json", False),
    ],
)
def test_what_counts_as_a_script(path: str, script: bool) -> None:
    assert is_script(path) is script


def test_attached_scripts_of_a_scene_and_its_prefabs() -> None:
    assert attached_scripts(MAIN, lambda p: RECIPE.get(p, "")) == ["user:CoinSpin", "user:GameBoom"]
