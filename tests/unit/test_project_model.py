"""The project model: one walk with each tool's folder rules, the inventory, the readers, prefabs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pix3net.devserver.files import Scanner
from pix3tools.check._chain import scan_chain
from pix3tools.core.walk import EDITOR_CHAIN, FILE_TABLE, INVENTORY, walk, walk_files
from pix3tools.project import Project, ProjectFiles, first_mapping, load_manifest, load_scene, only_root
from pix3tools.validate import run_validate

SCENE = "version: 1.0.0\nroot:\n  - id: a\n    type: Node2D\n"


def _tree(root: Path, files: list[str]) -> Path:
    for rel in files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SCENE if rel.endswith(".pix3scene") else "x")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = _tree(
        tmp_path / "p",
        [
            "pix3project.yaml",
            "scenes/a.pix3scene",
            "scenes/.cache/b.pix3scene",
            "scenes/deep/.pix3/c.pix3scene",
            "node_modules/x/d.pix3scene",
            ".vite/e.pix3scene",
            ".pix3/f.pix3scene",
            "build/g.pix3scene",
            "scripts/A.ts",
            "scripts/.cache/B.ts",
            "scripts/dist/C.ts",
            "scripts/A.spec.ts",
            "dist",  # a FILE named like a skipped folder is listed
        ],
    )
    (root / "pix3project.yaml").write_text("version: 1.0.0\nmetadata:\n  agentKit: { version: 1.2.3 }\n")
    os.symlink(root / "scenes", root / "linked-folder")
    os.symlink(root / "scenes/a.pix3scene", root / "scenes/linked.pix3scene")
    os.symlink(root / "gone.pix3scene", root / "scenes/dangling.pix3scene")
    return root


def test_the_inventory_skips_its_folders_at_any_depth_and_lists_links_to_files(project: Path) -> None:
    files = ProjectFiles(project)
    # `dist` is a file here (listed); `scripts/dist/` a folder (skipped, at any depth)
    assert files.files == [
        "build/g.pix3scene",  # `build` is the dev server's rule only
        "dist",
        "pix3project.yaml",
        "scenes/a.pix3scene",
        "scenes/dangling.pix3scene",
        "scenes/linked.pix3scene",
        "scripts/A.spec.ts",
        "scripts/A.ts",
    ]
    assert files.scenes == [
        "build/g.pix3scene",
        "scenes/a.pix3scene",
        "scenes/dangling.pix3scene",
        "scenes/linked.pix3scene",
    ]
    assert files.case_match("SCENES/A.pix3scene") == "scenes/a.pix3scene"


def test_each_tool_keeps_its_own_folder_rules(project: Path) -> None:
    # check's chain roots: `.cache` is entered there (the reference's scan skips only four names)
    chain = scan_chain(project)
    assert chain.files == ["scripts/.cache/B.ts", "scripts/A.ts"]
    # the dev server's table: `.vite` and a deep `.pix3` are listed, the root `.pix3` and `build` are not
    table = Scanner(str(project)).scan("")
    scenes = sorted(p for p in table if p.endswith(".pix3scene"))
    assert scenes == [".vite/e.pix3scene", "scenes/a.pix3scene", "scenes/deep/.pix3/c.pix3scene"]
    assert table["dist"].kind == "file" and "linked-folder" not in table
    # validate and tree list what the inventory lists
    report = run_validate(project, None, hydrate=False)
    assert [f for f, _ in report.files] == ["build/g.pix3scene", "scenes/a.pix3scene", "scenes/linked.pix3scene"]
    assert [d.file for d in report.diagnostics if d.code == "E_SHAPE"] == ["scenes/dangling.pix3scene"]


def test_rules_say_which_paths_a_walk_never_reaches() -> None:
    assert INVENTORY.hides("a/node_modules/b.txt") and not INVENTORY.hides("node_modules")
    assert FILE_TABLE.hides(".pix3/dev.json") and not FILE_TABLE.hides("a/.pix3/x")
    assert EDITOR_CHAIN.hides("dist/a.ts") and not EDITOR_CHAIN.hides(".vite/a.ts")


def test_a_walk_from_a_folder_enters_it_whatever_its_name(project: Path) -> None:
    assert list(walk_files(project, INVENTORY, "node_modules")) == ["node_modules/x/d.pix3scene"]
    order = [found.path for found in walk(project, INVENTORY, "scenes", order=str)]
    assert order == [
        "scenes/a.pix3scene",
        "scenes/dangling.pix3scene",
        "scenes/deep",
        "scenes/linked.pix3scene",
    ]
    assert list(walk(project, INVENTORY, "missing")) == []


def test_the_manifest_is_read_once_by_one_reader(project: Path) -> None:
    model = Project(project)
    first = model.manifest
    assert first is not None and first.data["metadata"]["agentKit"]["version"] == "1.2.3"
    (project / "pix3project.yaml").write_text("version: 2.0.0\n")
    assert model.manifest is first  # one run, one read
    assert load_manifest(project) is not None and load_manifest(project).data == {"version": "2.0.0"}  # type: ignore[union-attr]
    (project / "pix3project.yaml").write_text("a: [\n")
    assert load_manifest(project) is None


def test_scene_reads_say_why_not(tmp_path: Path) -> None:
    (tmp_path / "bin.pix3scene").write_bytes(b"\x89PNG\x00\x00")
    (tmp_path / "latin.pix3scene").write_bytes(b"a: 1\nb: caf\xe9\n")
    (tmp_path / "bad.pix3scene").write_text("a: [\n")
    (tmp_path / "bom.pix3scene").write_bytes(b"\xef\xbb\xbfa: 1\n")
    (tmp_path / "folder.pix3scene").mkdir()
    assert load_scene(tmp_path / "none.pix3scene").raw is None
    assert load_scene(tmp_path / "bin.pix3scene").problem == "the file is binary (it holds NUL bytes), not YAML text"
    latin = load_scene(tmp_path / "latin.pix3scene")
    assert latin.problem == "the file is not UTF-8 text" and latin.error is not None and latin.error.line == 2
    assert load_scene(tmp_path / "bad.pix3scene").doc is None
    bom = load_scene(tmp_path / "bom.pix3scene").doc
    assert bom is not None and bom.data == {"a": 1}
    folder = load_scene(tmp_path / "folder.pix3scene")
    assert folder.raw is None and folder.problem is not None and folder.problem.startswith("the file cannot be read")


def test_the_instance_resolver(tmp_path: Path) -> None:
    scenes = {
        "one.pix3scene": "root:\n  - id: one\n    type: Sprite2D\n    children:\n      - id: kid\n",
        "two-roots.pix3scene": "root:\n  - 3\n  - id: first\n    type: Label2D\n  - id: second\n",
        "outer.pix3scene": "root:\n  - id: outer\n    instance: res://one.pix3scene\n",
        "loop-a.pix3scene": "root:\n  - id: a\n    instance: res://loop-b.pix3scene\n",
        "loop-b.pix3scene": "root:\n  - id: b\n    children:\n      - instance: res://loop-a.pix3scene\n",
        "broken.pix3scene": "root: [\n",
    }
    for name, text in scenes.items():
        (tmp_path / name).write_text(text)
    prefabs = Project(tmp_path).prefabs
    assert prefabs.roots("broken.pix3scene") is None and prefabs.roots("nope.pix3scene") is None
    two = prefabs.roots("two-roots.pix3scene")
    assert two is not None and only_root(two) is None and first_mapping(two)["id"] == "first"
    node, complete = prefabs.innermost({"instance": "res://outer.pix3scene"}, set(), only_root)
    assert complete and node["id"] == "one"
    node, complete = prefabs.innermost({"instance": "res://broken.pix3scene"}, set(), only_root)
    assert not complete and node == {"instance": "res://broken.pix3scene"}
    assert prefabs.cycle("scene.pix3scene", "loop-a.pix3scene") == [
        "loop-a.pix3scene",
        "loop-b.pix3scene",
        "loop-a.pix3scene",
    ]
    assert prefabs.cycle("scene.pix3scene", "outer.pix3scene") is None
    root = {"id": "top", "children": [{"id": "inner", "instance": "res://outer.pix3scene"}]}
    assert prefabs.override_target(root, "inner/kid", set())[0] == {"id": "kid"}
    assert prefabs.override_target(root, "/top/inner/kid", set())[0] == {"id": "kid"}
    assert prefabs.override_target(root, "outer", set())[0] == root["children"][0]  # its prefab root's id
    assert prefabs.override_target(root, "nobody", set()) == (None, True)
    assert prefabs.override_target({"id": "x", "instance": "res://broken.pix3scene"}, "kid", set()) == (None, False)


def test_outlining_one_scene_never_walks_the_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import pix3tools.core.walk as walk_module
    from pix3tools.tree.command import main

    def refuse(*_: object, **__: object) -> list[str]:
        raise AssertionError("the project was walked")

    monkeypatch.setattr(walk_module, "walk_files", refuse)
    out, err = io.StringIO(), io.StringIO()
    assert main(["scenes/a.pix3scene"], cwd=project, out=out, err=err) == 0, err.getvalue()
    assert out.getvalue().startswith("scenes/a.pix3scene — 1 node\n")
