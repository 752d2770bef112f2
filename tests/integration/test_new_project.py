"""`pix3 new`: the starters, the files they write, bad targets (docs/new.md)."""

from __future__ import annotations

import html
import io
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from pix3tools.core import CLI_VERSION, find_project_root
from pix3tools.core.commandtable import COMMANDS
from pix3tools.kit import load_kit
from pix3tools.new import PACKAGED_ROOT, create_project, find_template, list_templates, one_line, package_name_of
from pix3tools.new.command import main as new_run
from pix3tools.scripttypes import USE_GENERATED_TYPES
from tests.support.pix3 import pix3_env, run_pix3

STARTER_FILES = {
    ".gitignore",
    ".pix3/template.json",
    "README.md",
    "index.html",
    "package.json",
    "pix3project.yaml",
    "scenes/main.pix3scene",
    "src/main.ts",
    "tsconfig.json",
    "vite.config.ts",
}
SCRIPTS = {
    "dev": "vite",
    "editor": "pix3 editor",
    "build": "vite build",
    "preview": "vite preview",
    "check": "pix3 check",
    "smoke": "pix3 smoke",
}
ROOT_TYPES = {
    "2d": ["Group2D", "ColorRect2D"],
    "3d": ["Node3D", "Camera3D", "DirectionalLightNode", "AmbientLightNode"],
}


def _load(path: Path) -> object:
    return YAML(typ="safe", pure=True).load(path.read_text())


def _types(nodes: list[dict[str, object]]) -> list[str]:
    found: list[str] = []
    for node in nodes:
        found.append(str(node["type"]))
        children = node.get("children")
        if isinstance(children, list):
            found.extend(_types(children))
    return found


def new(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return new_run(argv, cwd=cwd, env={}, out=out, err=err), out.getvalue(), err.getvalue()


def test_the_starters() -> None:
    templates = list_templates(PACKAGED_ROOT)
    assert [(t.id, t.hidden) for t in templates] == [("demo", True), ("2d", False), ("3d", False)]
    for t in templates:
        assert t.layer_dirs == (PACKAGED_ROOT / "base" / "files", PACKAGED_ROOT / t.id / "files")
        assert t.entry_scene == "scenes/main.pix3scene"
    assert find_template(templates, "3D").id == "3d"
    with pytest.raises(ValueError, match="2d, 3d"):
        find_template(templates, "tapper")


def test_one_line() -> None:
    assert one_line("One thing. Then another.") == "One thing."
    assert one_line("No full stop") == "No full stop"


def test_a_template_over_a_missing_layer_is_not_listed(tmp_path: Path) -> None:
    (tmp_path / "x" / "files").mkdir(parents=True)
    (tmp_path / "x" / "template.yaml").write_text("id: x\ntitle: X\nextends: nope\n")
    err = io.StringIO()
    assert list_templates(tmp_path, err=err) == []
    assert 'extends "nope", which has no files/' in err.getvalue()


@pytest.mark.parametrize(
    ("name", "slug"), [("My Game!", "my-game"), ("Space_Tapper 2", "space_tapper-2"), ("!!!", "pix3-game")]
)
def test_package_name(name: str, slug: str) -> None:
    assert package_name_of(name) == slug


@pytest.mark.parametrize("template_id", ["2d", "3d"])
def test_new_project_files(tmp_path: Path, template_id: str) -> None:
    code, out, err = new([template_id, "my-game", "--name", "My Game!"], tmp_path)
    assert (code, err) == (0, "")
    root = tmp_path / "my-game"
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    kit = load_kit()
    assert files == STARTER_FILES | set(kit.files) | {".pix3/kit-manifest.json"}
    for folder in ("design", "scenes", "sprites", "scripts", "audio"):
        assert (root / folder).is_dir()
    package = json.loads((root / "package.json").read_text())
    assert package["name"] == "my-game" and package["scripts"] == SCRIPTS
    for dep in ("@pix3/runtime",):
        assert package["dependencies"][dep] == CLI_VERSION
    for dep in ("@pix3/cli", "@pix3/editor-core", "@pix3/vite-plugin"):
        assert package["devDependencies"][dep] == CLI_VERSION
    assert package["dependencies"]["three"].startswith("~0.183.")
    assert package["devDependencies"]["vite"].startswith("^8")
    assert "plugins: [pix3()]" in (root / "vite.config.ts").read_text()
    assert "import { startGame } from '@pix3/vite-plugin/player';" in (root / "src/main.ts").read_text()
    page = (root / "index.html").read_text()
    assert "<title>My Game!</title>" in page
    # The fallback a page without the packages shows says what works today, as "Next:" does.
    fallback = " ".join(page.split('<div id="app">')[1].split("</div>")[0].split())
    assert "not on npm yet" in fallback and '<a href="/__pix3/">/__pix3/</a>' in fallback
    assert f"<code>{html.escape(USE_GENERATED_TYPES)}</code>, then <code>pix3 check</code>" in fallback
    assert fallback.index("Once they are published: <code>npm install</code>") > fallback.index("Until they are")
    assert f"`{USE_GENERATED_TYPES}`, then `pix3 check`" in " ".join((root / "README.md").read_text().split())
    gitignore = (root / ".gitignore").read_text().splitlines()
    assert {".pix3/*", "!.pix3/kit-manifest.json", "!.pix3/template.json", ".mcp.json", ".codex/config.toml"} <= set(
        gitignore
    )
    for path in files:
        if path.endswith((".json", ".ts", ".html", ".md", ".yaml", ".pix3scene")):
            assert not re.search(r"\{\{[A-Z_]+\}\}", (root / path).read_text()), path
    manifest = _load(root / "pix3project.yaml")
    assert isinstance(manifest, dict)
    assert list(manifest) == [
        "version",
        "defaultExportScenePath",
        "viewportBaseSize",
        "ambientOcclusion",
        "textureFiltering",
        "projectType",
        "targetPlatform",
        "quality",
        "metadata",
        "autoloads",
    ]
    assert manifest["version"] == "1.0.0" and manifest["projectType"] == template_id
    assert manifest["viewportBaseSize"] == {"width": 1920, "height": 1080}
    assert manifest["quality"] == {"antialias": True, "shadows": True, "maxPixelRatio": 2}
    assert manifest["autoloads"] == []
    meta = manifest["metadata"]
    assert meta["projectName"] == "My Game!" and meta["templateId"] == template_id
    assert str(uuid.UUID(meta["projectId"])) == meta["projectId"]
    assert meta["agentKit"]["version"] == CLI_VERSION
    assert f"project id {meta['projectId']}" in out
    assert out.startswith(f"Created My Game! (Empty {template_id.upper()}) in {root}\n")
    assert "  cd my-game\n" in out
    scene = _load(root / "scenes/main.pix3scene")
    assert isinstance(scene, dict)
    assert set(scene) <= {"version", "description", "metadata", "root"}
    assert _types(scene["root"]) == ROOT_TYPES[template_id]
    assert "components:" not in (root / "scenes/main.pix3scene").read_text()
    record = json.loads((root / ".pix3/template.json").read_text())
    assert list(record) == ["templateId", "editorVersion", "createdBy", "createdAt"]
    assert record["templateId"] == template_id and record["editorVersion"] == CLI_VERSION
    # The starter has its own tsconfig: no bundled types, and the kit leaves it alone.
    assert '"moduleResolution": "bundler"' in (root / "tsconfig.json").read_text()
    assert not (root / ".pix3/types").exists()
    assert gitignore.count(".pix3/*") == 1


DEMO_FILES = {
    ".gitignore",
    ".pix3/template.json",
    "README.md",
    "index.html",
    "pix3project.yaml",
    "scenes/main.pix3scene",
    "sprites/coin.png",
    "sprites/ship.png",
    "src/game.js",
}


def test_the_hidden_demo(tmp_path: Path) -> None:
    """`pix3 new demo` (what `just demo` makes): the base layer without its TypeScript player, its
    packages and its Vite config; a plain-JavaScript game with real textures; Next: says so."""
    code, out, err = new(["demo", "game", "--name", "Star <Catcher>"], tmp_path)
    assert (code, err) == (0, "")
    root = tmp_path / "game"
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    files = {path for path in files if not path.startswith(".pix3/types/")}  # the kit's generated types
    kit = load_kit()
    assert files == DEMO_FILES | set(kit.files) | {
        ".pix3/kit-manifest.json",
        ".pix3/tsconfig.check.json",
        "tsconfig.json",
    }
    assert (root / "tsconfig.json").read_text() != (PACKAGED_ROOT / "base/files/tsconfig.json").read_text()  # the kit's
    page = (root / "index.html").read_text()
    assert "<title>Star &lt;Catcher&gt;</title>" in page and '<script type="module" src="/src/game.js">' in page
    game = (root / "src/game.js").read_text()
    assert 'from "/__pix3/page/scene2d.js"' in game and "__PIX3_GAME_DEBUG__" in game
    for name in ("ship.png", "coin.png"):
        data = (root / "sprites" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 200
    scene = (root / "scenes/main.pix3scene").read_text()
    assert "res://sprites/ship.png" in scene and "res://sprites/coin.png" in scene
    manifest = _load(root / "pix3project.yaml")
    assert isinstance(manifest, dict) and manifest["projectType"] == "2d"
    assert manifest["metadata"]["templateId"] == "demo"
    next_lines = out.split("Next:\n")[1].split("\n\n")[0]
    assert "pix3 editor" in next_lines and "tsconfig" not in next_lines and "npm" not in next_lines
    assert "plain JavaScript (src/game.js): no npm install" in out
    assert ".pix3/*" in (root / ".gitignore").read_text().splitlines()  # the base layer's
    done = run_pix3("validate", cwd=root)
    assert done.returncode == 0 and "0 error(s), 0 warning(s)" in done.stdout, done.stdout + done.stderr


def test_every_project_gets_its_own_id(tmp_path: Path) -> None:
    template = find_template(list_templates(PACKAGED_ROOT), "2d")
    a = create_project(template, tmp_path / "a")
    b = create_project(template, tmp_path / "b")
    assert a.project_id != b.project_id


def test_post_create_files_are_counted(tmp_path: Path) -> None:
    template = find_template(list_templates(PACKAGED_ROOT), "2d")

    def extra(root: Path) -> list[str]:
        (root / "design" / "notes.md").write_text("x")
        return ["design/notes.md"]

    assert "design/notes.md" in create_project(template, tmp_path / "p", post_create=extra).files


def test_a_failing_step_leaves_nothing_behind(tmp_path: Path) -> None:
    template = find_template(list_templates(PACKAGED_ROOT), "2d")

    def broken(root: Path) -> list[str]:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        create_project(template, tmp_path / "p", post_create=broken)
    assert not (tmp_path / "p").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(OSError):
        create_project(template, tmp_path / "empty", post_create=broken)
    assert list((tmp_path / "empty").iterdir()) == []


def test_non_empty_target_is_refused_untouched(tmp_path: Path) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    done = run_pix3("new", "2d", "busy", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == f"pix3: {target} is not empty. Choose an empty or new folder for a new project.\n"
    assert [p.name for p in target.iterdir()] == ["keep.txt"]


def test_unknown_template_and_listing(tmp_path: Path) -> None:
    done = run_pix3("new", "tapper", cwd=tmp_path)  # a bad argument: exit 2 with the usage, as every usage error
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith('pix3 new: Unknown template "tapper"; the starters are 2d, 3d.\n\nUsage: pix3 new')
    assert list(tmp_path.iterdir()) == []
    done = run_pix3("new", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("Starters:\n  2d  Empty 2D — An empty 2D game")
    assert "demo" not in done.stdout  # hidden: `just demo` makes it
    assert "pix3 new <id> [dir]" in done.stdout


@pytest.mark.node
def test_the_next_lines_work_before_the_packages_are_published(
    tmp_path: Path, three_types_home: Path, typescript: Path
) -> None:
    """`npm install` fails while the @pix3 packages are unpublished, so "Next:" leads
    with what works: run as printed, through a shell, it ends in a `pix3 check` that type-checks
    (the real TypeScript, three's real types) and passes; and check's own fix is the same line."""
    done = run_pix3("new", "2d", "game", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "npm install fails (E404)" in said and "Once they are published: npm install" in said
    steps = done.stdout.split("Next:\n")[1].split("\n\n")[0].splitlines()
    commands = [re.split(r"\s{2,}", line.strip())[0] for line in steps if not line.startswith("   ")]
    assert commands[:3] == ["cd game", "mv tsconfig.json tsconfig.npm.json && pix3 kit", "pix3 check"]
    env = {"PIX3_HOME": str(three_types_home), "PIX3_TYPESCRIPT": str(typescript)}
    before = run_pix3("check", "--json", "--no-sync", cwd=tmp_path / "game", env=env, timeout=180)
    (missing,) = [d for d in json.loads(before.stdout)["diagnostics"] if d["severity"] == "error"]
    assert missing["code"] == "E_DEPENDENCIES_MISSING" and missing["fix"].startswith(f"{commands[1]} — ")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pix3").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pix3net "$@"\n')
    (bin_dir / "pix3").chmod(0o755)
    script = " && ".join([*commands[:2], f"{commands[2]} --json --no-sync"])
    shell = subprocess.run(
        ["bash", "-ec", script], cwd=tmp_path, env=pix3_env({**env, "PATH": f"{bin_dir}:{os.environ['PATH']}"}),
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    report = json.loads(shell.stdout[shell.stdout.index("{\n") :])
    assert shell.returncode == 0, shell.stdout + shell.stderr
    typecheck = report["typecheck"]
    assert (typecheck["mode"], typecheck["ok"], typecheck["typescript"]["version"]) == ("pix3-types", True, "5.8.3")
    assert typecheck["files"] >= 1 and report["errorCount"] == 0
    assert (tmp_path / "game" / "tsconfig.npm.json").is_file()


def test_default_folder_and_speed(tmp_path: Path) -> None:
    started = time.monotonic()
    done = run_pix3("new", "2d", cwd=tmp_path)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "pix3-2d" / "pix3project.yaml").is_file()
    assert elapsed < 10  # generous: the machine is shared; measured ~0.3 s alone
    assert find_project_root(tmp_path / "pix3-2d" / "scenes") == tmp_path / "pix3-2d"
    assert find_project_root(tmp_path) is None


def test_a_new_project_passes_validate(tmp_path: Path) -> None:
    assert "validate" in COMMANDS  # a build without validate fails here, it does not skip
    for template_id in ("2d", "3d"):
        assert run_pix3("new", template_id, template_id, cwd=tmp_path).returncode == 0
        done = run_pix3("validate", cwd=tmp_path / template_id)
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["2d", "--bogus"], 'unknown option "--bogus"'),
        (["2d", "-x"], 'unknown option "-x"'),
        (["--bogus", "2d", "game"], 'unknown option "--bogus"'),
        (["2d", "game", "extra"], 'new takes a starter and a folder, not also "extra"'),
    ],
)
def test_a_usage_error_creates_nothing(tmp_path: Path, argv: list[str], message: str) -> None:
    done = run_pix3("new", *argv, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"pix3 new: {message}\n\nUsage: pix3 new")
    assert list(tmp_path.iterdir()) == []


def test_usage_errors_and_version(tmp_path: Path) -> None:
    done = run_pix3("new", "2d", "x", "--name", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("pix3 new: --name needs a value\n\nUsage: pix3 new")
    assert list(tmp_path.iterdir()) == []
    done = run_pix3("new", "2d", "-v", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, f"{CLI_VERSION}\n")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("x")
    done = run_pix3("new", "3d", "file", cwd=tmp_path)
    assert done.returncode == 1 and "is a file" in done.stderr


def test_the_starter_keeps_every_agent_config_out_of_git(tmp_path: Path) -> None:
    """agent-setup writes a file naming this machine's home for each agent: git must ignore all of them."""
    from pix3net.commands.agentsetup.known import AGENTS

    assert new(["2d", "game"], tmp_path)[0] == 0
    root = tmp_path / "game"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for agent in AGENTS.values():
        agent.path(root).parent.mkdir(parents=True, exist_ok=True)
        agent.path(root).write_text("{}")
        done = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", agent.file], check=False)
        assert done.returncode == 0, f"{agent.file} ({agent.label}) is not ignored by the starter's .gitignore"
    kept = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", ".pix3/kit-manifest.json"], check=False)
    assert kept.returncode == 1
