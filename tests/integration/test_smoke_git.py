"""`pix3 smoke`'s change detection over real git repositories made in temp folders."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pix3tools.smoke import Selection, changed_files, parse_porcelain, plan_runs

MAIN, MENU = "scenes/main.pix3scene", "scenes/menu.pix3scene"
RECIPE = {
    "pix3project.yaml": "name: recipe\ndefaultExportScenePath: res://scenes/menu.pix3scene\n",
    MENU: "root:\n  - id: menu\n    components:\n      - type: user:MenuFlow\n        config:\n          play: res://scenes/main.pix3scene\n",
    MAIN: (
        "root:\n  - id: game-root\n    components:\n      - type: user:GameBoom\n"
        "    children:\n      - id: coin\n        instance: res://scenes/prefabs/coin.pix3scene\n"
    ),
    "scenes/prefabs/coin.pix3scene": (
        "root:\n  - id: coin\n    texture: res://art/coin.png\n    components:\n      - type: user:CoinSpin\n"
        "    children:\n      - instance: res://scenes/prefabs/gem.pix3scene\n"
    ),
    "scenes/prefabs/gem.pix3scene": "root:\n  - id: gem\n",
    "scenes/ui/result.pix3scene": "root:\n  - id: result\n",
    "scripts/MenuFlow.ts": "export class MenuFlow {}\n",
    "scripts/CoinSpin.ts": "export class CoinSpin {}\n",
    "scripts/GameBoom.ts": "export class GameBoom {}\n",
    "scripts/util.ts": "export const two = 2;\n",
    "art/coin.png": "png",
    "design/recipe.md": "# recipe\n",
    ".gitignore": "*.log\nbuild/\n",
}


def git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.fail("git is missing: apt-get install -y git")
    root = tmp_path / "game"
    for name, text in RECIPE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "baseline")
    return root


def plan(root: Path, **flags: bool) -> Selection:
    planned, _ = plan_runs(root, root, None, **flags)
    assert planned.failure is None, planned.failure
    assert planned.selection is not None
    return planned.selection


def test_clean_tree_runs_everything(repo: Path) -> None:
    picked = plan(repo)
    assert (picked.mode, picked.scenes) == ("all", [MAIN, MENU])
    assert "nothing changed" in picked.reason
    assert changed_files(repo) == []


def test_unstaged_change_picks_the_scene(repo: Path) -> None:
    (repo / "scripts/GameBoom.ts").write_text("export class GameBoom { x = 1 }\n")
    picked = plan(repo)
    assert (picked.mode, picked.scenes, picked.changed) == ("changed", [MAIN], ["scripts/GameBoom.ts"])


def test_staged_change_counts(repo: Path) -> None:
    (repo / "scripts/MenuFlow.ts").write_text("export class MenuFlow { y = 2 }\n")
    git(repo, "add", "scripts/MenuFlow.ts")
    picked = plan(repo)
    assert (picked.mode, picked.scenes) == ("changed", [MENU])


def test_untracked_new_script_widens_to_every_scene(repo: Path) -> None:
    (repo / "scripts/Extra.ts").write_text("export class Extra {}\n")
    picked = plan(repo)
    assert picked.mode == "all"
    assert picked.reason == "every top-level scene (changed scripts/Extra.ts reaches no scene directly)"


def test_a_prefab_two_levels_deep_reaches_the_top_scene(repo: Path) -> None:
    (repo / "scenes/prefabs/gem.pix3scene").write_text("root:\n  - id: gem2\n")
    assert plan(repo).scenes == [MAIN]


def test_a_res_reference_reaches_its_scene(repo: Path) -> None:
    (repo / "art/coin.png").write_text("png2")
    picked = plan(repo)
    assert (picked.mode, picked.scenes, picked.changed) == ("changed", [MAIN], ["art/coin.png"])


def test_a_renamed_script_still_exporting_the_class(repo: Path) -> None:
    git(repo, "mv", "scripts/CoinSpin.ts", "scripts/CoinTurn.ts")
    picked = plan(repo)
    assert (picked.scenes, picked.changed) == ([MAIN], ["scripts/CoinTurn.ts"])


def test_deleted_files_are_not_changes(repo: Path) -> None:
    (repo / "design/recipe.md").unlink()
    git(repo, "rm", "-q", "--cached", "scripts/util.ts")
    (repo / "scripts/util.ts").unlink()
    assert changed_files(repo) == []


def test_git_ignored_files_never_count(repo: Path) -> None:
    (repo / "debug.log").write_text("x")
    (repo / "build").mkdir()
    (repo / "build/out.js").write_text("x")
    assert changed_files(repo) == []
    assert "nothing changed" in plan(repo).reason


def test_node_modules_and_yalc_are_not_project_changes(repo: Path) -> None:
    (repo / ".yalc/@pix3/runtime").mkdir(parents=True)
    (repo / ".yalc/@pix3/runtime/index.ts").write_text("export class Node2D {}\n")
    (repo / "node_modules/x").mkdir(parents=True)
    (repo / "node_modules/x/index.js").write_text("x")
    (repo / "scripts/MenuFlow.ts").write_text("export class MenuFlow { z = 3 }\n")
    picked = plan(repo)
    assert (picked.mode, picked.scenes, picked.changed) == ("changed", [MENU], ["scripts/MenuFlow.ts"])


def test_manifest_change_widens(repo: Path) -> None:
    (repo / "pix3project.yaml").write_text(RECIPE["pix3project.yaml"] + "# touched\n")
    picked = plan(repo, changed_only=True)
    assert (picked.mode, picked.reason) == ("all", "every top-level scene (pix3project.yaml changed)")


def test_changed_only_refuses_a_clean_tree_and_no_git(repo: Path, tmp_path: Path) -> None:
    planned, _ = plan_runs(repo, repo, None, changed_only=True)
    assert planned.failure is not None
    assert (planned.failure.code, planned.failure.reason) == (
        "E_SMOKE_NO_SCENE",
        "--changed: nothing changed since the last commit.",
    )
    loose = tmp_path / "loose"
    shutil.copytree(repo, loose, ignore=shutil.ignore_patterns(".git"))
    assert changed_files(loose) is None
    planned, _ = plan_runs(loose, loose, None, changed_only=True)
    assert planned.failure is not None
    assert planned.failure.reason == "--changed needs git and a project inside a git work tree."


def test_a_project_in_a_subfolder_of_the_repository(tmp_path: Path) -> None:
    outer = tmp_path / "mono"
    game = outer / "games" / "one"
    for name, text in RECIPE.items():
        (game / name).parent.mkdir(parents=True, exist_ok=True)
        (game / name).write_text(text)
    (outer / "README.md").write_text("mono\n")
    git(outer, "init", "-q")
    git(outer, "add", "-A")
    git(outer, "commit", "-q", "-m", "baseline")
    (outer / "README.md").write_text("changed outside the project\n")
    (game / "scripts/GameBoom.ts").write_text("export class GameBoom { w = 1 }\n")
    assert changed_files(game) == ["scripts/GameBoom.ts"]


def test_porcelain_parsing() -> None:
    output = "\0".join(
        [
            " M scripts/a.ts",
            "R  scripts/new.ts",
            "scripts/old.ts",
            "C  scripts/copy.ts",
            "scripts/orig.ts",
            "D  gone.ts",
            " D gone2.ts",
            "?? art/new file.png",
            "A  ../outside.ts",
            "?? ..hidden/x.ts",
            "xy",
            "",
        ]
    )
    assert parse_porcelain(output, "/repo", "/repo") == [
        "art/new file.png",
        "scripts/a.ts",
        "scripts/copy.ts",
        "scripts/new.ts",
    ]
    assert parse_porcelain(" M game/a.ts\0 M other/b.ts\0", "/repo", "/repo/game") == ["a.ts"]
