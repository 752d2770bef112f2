"""`pix3 tree` as a real process: the cases of the reference's own tree tests on
our own tapper-like fixture, exit codes, usage errors and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pix3tools.core.usage import command_usage
from tests.support.pix3 import run_pix3

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tree"
TAPPER = FIXTURES / "tapper"
MANIFEST = "version: 1.0.0\nprojectType: 2d\ntargetPlatform: mobile\nmetadata:\n  projectName: Fixture\n"


def tree(*args: str, cwd: Path = TAPPER) -> tuple[int, list[str], str]:
    done = run_pix3("tree", *args, cwd=cwd)
    return done.returncode, done.stdout.split("\n"), done.stderr


def flatten(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for node in nodes:
        out.append(node)
        out.extend(flatten(node["children"]))
    return out


def test_scene_lines() -> None:
    code, lines, err = tree("scenes/main.pix3scene")
    assert (code, err) == (0, "")
    assert lines[0] == "scenes/main.pix3scene — 12 nodes"
    assert (
        'Group2D#game-root "Game Root" size=1080x1920 layout=stretch/stretch  components=[user:GameRules, user:TouchRules]'
        in lines
    )
    assert '    Label2D#score-label "Score Label" text="SCORE 0" pos=(-340,850) layout=left/top' in lines
    assert (
        '    Group2D#result-overlay "Result Overlay" ↳ instance res://scenes/ui/result.pix3scene (1 property) hidden'
        in lines
    )


def test_depth_zero_from_a_subfolder_with_res_path() -> None:
    code, lines, _ = tree("res://scenes/main.pix3scene", "--depth", "0", cwd=TAPPER / "scenes")
    assert code == 0
    assert lines[0] == "scenes/main.pix3scene — 12 nodes, 1 shown to depth 0"
    assert lines[1].endswith("components=[user:GameRules, user:TouchRules]  … +11 below")


def test_types_keep_ancestors_as_context() -> None:
    code, lines, _ = tree("scenes/main.pix3scene", "--types", "label2d,instance")
    assert code == 0
    firsts = [line.split()[0] for line in lines[1:] if line]
    assert firsts == ["·", "·", "Label2D#score-label", "Label2D#time-label", "Group2D#result-overlay"]


def test_json_scene() -> None:
    code, lines, _ = tree("scenes/main.pix3scene", "--json")
    data = json.loads("\n".join(lines))
    assert code == 0 and data["scene"] == "scenes/main.pix3scene"
    nodes = {n["id"]: n for n in flatten(data["nodes"])}
    assert len(nodes) == 12
    hud = nodes["hud"]
    assert (hud["type"], hud["name"], hud["depth"], hud["layout"]) == ("CanvasLayer2D", "HUD", 1, "stretch/stretch")
    assert hud["components"] == [{"type": "user:ScoreHud", "enabled": True}]
    overlay = nodes["result-overlay"]
    assert (overlay["type"], overlay["hidden"]) == ("Group2D", True)
    assert overlay["instance"] == {
        "path": "res://scenes/ui/result.pix3scene",
        "rootType": "Group2D",
        "overrides": 0,
        "properties": 1,
    }
    assert list(nodes["game-root"])[:4] == ["id", "type", "name", "depth"]


def test_overview() -> None:
    code, lines, _ = tree()
    text = "\n".join(lines)
    assert code == 0
    assert lines[0] == '"Tapper" — 2d, 1080x1920, entry scenes/menu.pix3scene (*)'
    assert lines[1] == "scripts: user:GameRules user:MenuFlow user:ScoreHud user:Spawner user:TouchRules"
    import re

    assert re.search(r"scenes/main\.pix3scene +scene +12 nodes +Group2D×4", text)
    assert re.search(r"scenes/menu\.pix3scene \* +scene", text)
    assert re.search(r"scenes/prefabs/target\.pix3scene +prefab +1 node +Sprite2D", text)
    assert re.search(r"scenes/ui/result\.pix3scene +overlay", text)
    assert "instances: scenes/ui/result.pix3scene" in text
    assert len(lines) < 25
    assert lines[-2] == "`pix3 tree <scene>` for one scene's nodes (--depth N, --types A,B, --props)."


def _instance_project(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES / "instances", tmp_path / "p")
    root = tmp_path / "p"
    (root / "pix3project.yaml").write_text("version: 1.0.0\nprojectType: 2d\n")
    return root


def test_instance_lines_exactly(tmp_path: Path) -> None:
    root = _instance_project(tmp_path)
    done = run_pix3("tree", "scenes/level.pix3scene", cwd=root)
    assert done.returncode == 0
    assert done.stdout == (
        "scenes/level.pix3scene — 3 nodes\n"
        'Group2D#world "World"\n'
        '  Sprite2D#enemy-a "Enemy A" ↳ instance res://scenes/prefabs/enemy.pix3scene (2 overrides, 2 properties) pos=(100,200)\n'
        "  Instance#enemy-b ↳ instance res://scenes/prefabs/missing.pix3scene (no overrides)\n"
    )


def test_instance_json_with_props(tmp_path: Path) -> None:
    root = _instance_project(tmp_path)
    done = run_pix3("tree", "scenes/level.pix3scene", "--props", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    nodes = {n["id"]: n for n in flatten(json.loads(done.stdout)["nodes"])}
    assert nodes["enemy-a"]["instance"] == {
        "path": "res://scenes/prefabs/enemy.pix3scene",
        "rootType": "Sprite2D",
        "rootName": "Enemy",
        "overrides": 2,
        "properties": 2,
    }


def test_overview_json(tmp_path: Path) -> None:
    root = _instance_project(tmp_path)
    done = run_pix3("tree", "--json", cwd=root / "scenes")
    data = json.loads(done.stdout)
    assert done.returncode == 0
    assert data["projectRoot"] == str(root)
    assert [[s["path"], s["kind"], s["nodes"]] for s in data["scenes"]] == [
        ["scenes/level.pix3scene", "scene", 3],
        ["scenes/prefabs/enemy.pix3scene", "prefab", 2],
    ]


def _project(tmp_path: Path, scenes: dict[str, str]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pix3project.yaml").write_text(MANIFEST)
    for name, text in scenes.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_exit_codes(tmp_path: Path) -> None:
    root = _project(
        tmp_path, {"scenes/bad.pix3scene": "root: [\n", "scenes/ok.pix3scene": "version: 1.0.0\nroot: []\n"}
    )
    code, _, err = tree("scenes/missing.pix3scene", cwd=root)
    assert code == 2
    assert err == f"pix3 tree: scenes/missing.pix3scene not found (looked in {root} and {root}).\n"
    code, lines, err = tree("scenes/bad.pix3scene", cwd=root)
    assert code == 1 and lines == [""]
    assert err == (
        "pix3 tree: scenes/bad.pix3scene is not valid YAML: the file ends inside a `[`: close the list with `]`"
        " at line 1.\n  1 | root: [\n    |       ^\n"
    )
    code, lines, err = tree("--depth", "-1", cwd=root)
    assert code == 2 and err == "pix3 tree: --depth needs a whole number ≥ 0\n\n" + command_usage("tree")
    code, lines, _ = tree(cwd=root)
    assert code == 1
    # The sentence names its file (the overview's line and its --json "error" alike).
    assert any(
        line.startswith("scenes/bad.pix3scene  UNPARSABLE: scenes/bad.pix3scene is not valid YAML: ") for line in lines
    )
    assert any(line.startswith("scenes/ok.pix3scene") and " 0 nodes" in line for line in lines)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--depth"], "--depth needs a value"),
        (["--depth", "--json"], "--depth needs a value"),
        (["--depth=x"], "--depth needs a whole number ≥ 0"),
        (["--depth", "1.5"], "--depth needs a whole number ≥ 0"),
        (["--types"], "--types needs a value"),
        (["--project"], "--project needs a value"),
        (["--bogus"], "unknown argument --bogus"),
        (["-x"], "unknown argument -x"),
        (["a.pix3scene", "b.pix3scene"], "one scene at a time (got a.pix3scene and b.pix3scene)"),
    ],
)
def test_usage_errors_exit_2_with_usage(argv: list[str], message: str) -> None:
    done = run_pix3("tree", *argv, cwd=TAPPER)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"pix3 tree: {message}\n\n" + command_usage("tree")


def test_help() -> None:
    for flag in ("--help", "-h"):
        done = run_pix3("tree", flag, "--depth", "3")
        assert (done.returncode, done.stdout, done.stderr) == (0, command_usage("tree"), "")


def test_bad_input_is_answered_without_traceback(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "scenes/scalar.pix3scene": "hello\n",
            "scenes/mapping-root.pix3scene": "root: { a: 1 }\n",
            "scenes/dup.pix3scene": "root: []\nroot: []\n",
        },
    )
    (root / "scenes/binary.pix3scene").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    for name, reason in (
        ("scalar", "is not a .pix3scene (no `root:` list)."),
        ("mapping-root", "is not a .pix3scene (no `root:` list)."),
        ("dup", "is not valid YAML: "),
        ("binary", "is not valid YAML: "),
    ):
        code, _, err = tree(f"scenes/{name}.pix3scene", cwd=root)
        assert code == 1, name
        assert err.startswith(f"pix3 tree: scenes/{name}.pix3scene {reason}"), err
        assert "Traceback" not in err


def _nested(levels: int) -> str:
    return "version: 1.0.0\nroot:\n" + "".join(
        f"{'  ' * (2 * i + 1)}- id: n{i}\n{'  ' * (2 * i + 1)}  children:\n" for i in range(levels)
    )


def test_deep_nesting_and_a_cycle_of_prefabs(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "scenes/deep.pix3scene": _nested(200),
            # deeper than the reader's 500 levels, and under the 64 MB a scene may weigh
            "scenes/deeper.pix3scene": _nested(600),
            "scenes/a.pix3scene": "root:\n  - id: a\n    instance: res://scenes/b.pix3scene\n",
            "scenes/b.pix3scene": "root:\n  - id: b\n    instance: res://scenes/a.pix3scene\n",
        },
    )
    code, lines, err = tree("scenes/deep.pix3scene", "--depth", "2", cwd=root)
    assert (code, err) == (0, "")
    assert lines[0] == "scenes/deep.pix3scene — 200 nodes, 3 shown to depth 2"
    assert lines[3] == "    ?#n2  … +197 below"
    code, lines, err = tree("scenes/deep.pix3scene", cwd=root)
    assert (code, err, len(lines)) == (0, "", 202)
    code, lines, err = tree("scenes/deeper.pix3scene", cwd=root)
    assert code == 1 and lines == [""]
    assert err.startswith("pix3 tree: scenes/deeper.pix3scene is not valid YAML: nesting deeper than")
    (root / "scenes/huge.pix3scene").write_bytes(b"root: []\n" + b"#" * (64 * 1024 * 1024))
    code, lines, err = tree("scenes/huge.pix3scene", cwd=root)
    assert code == 1 and lines == [""]
    assert err == "pix3 tree: scenes/huge.pix3scene is too large: 67108873 bytes, over the 67108864-byte limit.\n"
    code, lines, err = tree("scenes/a.pix3scene", cwd=root)
    assert (code, err) == (0, "")
    assert lines[1] == "?#a ↳ instance res://scenes/b.pix3scene (no overrides)"


def test_outside_a_project_it_says_so_and_scans_nothing(tmp_path: Path) -> None:
    # A folder with scenes but no pix3project.yaml here or above: the one "no project" message,
    # not an overview of whatever lies below (no project is a usage error, exit 2, as for every command).
    loose = tmp_path / "loose"
    (loose / "scenes").mkdir(parents=True)
    (loose / "scenes" / "a.pix3scene").write_text("version: 1.0.0\nroot: []\n")
    message = f"pix3 tree: no pix3project.yaml in {loose} or any parent folder. Run it inside a Pix3 project, or pass --project <dir>.\n"
    for argv in ([], ["scenes/a.pix3scene"], ["--json"]):
        done = run_pix3("tree", *argv, cwd=loose)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", message), argv
    done = run_pix3("tree", "--project", str(loose), cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith(f"pix3 tree: no pix3project.yaml in {loose}. Run")


def test_scene_outside_the_project_by_absolute_path(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", {})
    outside = tmp_path / "loose.pix3scene"
    outside.write_text(
        "root:\n  - id: x\n    type: Node3D\n    properties: { transform: { position: [1, 2.5, -3] } }\n"
    )
    code, lines, _ = tree(str(outside), cwd=root)
    assert code == 0
    assert lines[:2] == [f"{outside} — 1 node", "Node3D#x pos=(1,2.5,-3)"]


def test_props_show_what_differs_from_the_documented_defaults() -> None:
    code, lines, _ = tree("scenes/main.pix3scene", "--props")
    assert code == 0
    after = {lines[i].split()[0]: lines[i + 1] for i in range(1, len(lines) - 1)}
    assert after["ColorRect2D#game-background"].strip() == "color=#141a2e"
    assert "barColor=#ff4d6d" in after["Bar2D#lives-bar"]
    assert "transform." not in after["Bar2D#lives-bar"]
    # #FFF is the default white, opacity 0 is not the default 1.
    assert after["ColorRect2D#flash"].strip() == "opacity=0"
    assert not any(line.startswith("(") for line in lines)


def test_json_is_strict_json_with_nan_and_inf(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "scenes/n.pix3scene": "root:\n  - id: n\n    type: Node2D\n    properties: { position: [.nan, .inf], zIndex: -.inf }\n"
        },
    )
    done = run_pix3("tree", "scenes/n.pix3scene", "--json", "--props", cwd=root)
    assert done.returncode == 0
    node = json.loads(done.stdout, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))["nodes"][0]
    assert node["position"] == [None, None] and node["props"] == {"zIndex": None}
    code, lines, _ = tree("scenes/n.pix3scene", "--props", cwd=root)
    assert code == 0 and lines[1:3] == ["Node2D#n pos=(NaN,Infinity)", "    zIndex=-Infinity"]
