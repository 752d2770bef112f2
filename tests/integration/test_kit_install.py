"""`pix3 kit`: install, update, own files kept, bad input (docs/kit.md, "Install, all or nothing")."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from pix3tools.core import CLI_VERSION
from pix3tools.kit import Kit, install, load_kit
from pix3tools.kit.command import main as kit_main
from pix3tools.scripttypes import three_install_command
from tests.support.pix3 import run_pix3

pytestmark = pytest.mark.node  # the kit links three's types from the test clients

RECIPE_YAML = """# a 1.x recipe: comments, quoting and order must survive
version: 1.0.0
defaultExportScenePath: scenes/menu.pix3scene   # the menu
viewportBaseSize: {width: 1080, height: 1920}
metadata:
  projectName: 'Recipe Tapper'
  templateId: recipe-tapper-2d

autoloads:
  - singleton: Game
    scriptPath: scripts/Game.ts
"""


def _yaml(path: Path) -> dict[str, object]:
    data = YAML(typ="safe", pure=True).load(path.read_text())
    assert isinstance(data, dict)
    return data


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(autouse=True)
def _home(three_types_home: Path) -> Path:
    """A private PIX3_HOME (in this process and the children) with three's types in its cache."""
    return three_types_home


@pytest.fixture
def recipe(tmp_path: Path) -> Path:
    root = tmp_path / "recipe"
    root.mkdir()
    (root / "pix3project.yaml").write_text(RECIPE_YAML)
    return root


def kit_cli(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = kit_main(argv, cwd=cwd, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_fresh_project_gets_the_kit(recipe: Path) -> None:
    kit = load_kit()
    code, out, err = kit_cli([], recipe)
    assert (code, err) == (0, "")
    for path, data in kit.files.items():
        assert (recipe / path).read_bytes() == data, path
    assert out.startswith(f"Pix3 agent kit {CLI_VERSION} in {recipe}\n")
    assert "  wrote    AGENTS.md\n" in out and "  updated  .gitignore\n" in out
    lines = (recipe / ".gitignore").read_text().splitlines()
    assert ".pix3/*" in lines and "!.pix3/kit-manifest.json" in lines
    assert not (recipe / ".mcp.json").exists()
    # No tsconfig.json of its own: the kit writes the one-line one and the check's types (cli.md 28).
    assert (recipe / "tsconfig.json").read_text() == '{ "extends": "./.pix3/tsconfig.check.json" }\n'
    assert (recipe / ".pix3" / "types" / "@pix3" / "runtime" / "index.d.ts").is_file()
    assert (recipe / ".pix3" / "types" / "@types" / "three" / "index.d.ts").is_file()
    assert (recipe / ".pix3" / "tsconfig.check.json").is_file()
    assert "  wrote    tsconfig.json\n" in out and "  wrote    .pix3/types/, .pix3/tsconfig.check.json\n" in out
    manifest = _yaml(recipe / "pix3project.yaml")
    meta = manifest["metadata"]
    assert isinstance(meta, dict)
    assert meta["templateId"] == "recipe-tapper-2d"
    assert meta["agentKit"]["version"] == CLI_VERSION
    assert {"AGENTS.md", "CLAUDE.md", "tsconfig.json", "design/tests/bots/pix3-test-bot.d.ts"} <= set(
        meta["agentKit"]["files"]
    )
    record = json.loads((recipe / ".pix3" / "kit-manifest.json").read_text())
    assert record["format"] == 1 and record["version"] == CLI_VERSION
    assert record["files"]["AGENTS.md"] == _sha((recipe / "AGENTS.md").read_bytes())
    assert list(record["files"]) == sorted(record["files"])


def test_the_project_file_keeps_every_other_byte(recipe: Path) -> None:
    install(recipe)
    text = (recipe / "pix3project.yaml").read_text()
    before, _, after = text.partition("  agentKit:\n")
    kit_lines: list[str] = []
    rest: list[str] = []
    for line in after.splitlines(keepends=True):
        (kit_lines if line.startswith("    ") and not rest else rest).append(line)
    assert before + "".join(rest) == RECIPE_YAML
    assert "".join(kit_lines).startswith(f"    version: {CLI_VERSION}\n    files:\n      - .claude/skills/")


def test_second_run_is_all_current_and_rewrites_nothing(recipe: Path) -> None:
    install(recipe)
    project = (recipe / "pix3project.yaml").read_bytes()
    out = install(recipe)
    assert "wrote" not in out and "updated" not in out
    assert out.count("  current  ") == len(load_kit().files) + 1  # the kit's files and tsconfig.json
    assert ".pix3/types" not in out
    assert (recipe / "pix3project.yaml").read_bytes() == project


def test_own_agents_and_claude_are_kept(recipe: Path) -> None:
    (recipe / "AGENTS.md").write_text("# Our rules\n")
    (recipe / "CLAUDE.md").write_text("Be nice.\n")
    (recipe / ".gitignore").write_text("node_modules/\n")
    out = install(recipe)
    kit_agents = load_kit().files["AGENTS.md"].decode()
    assert (recipe / "AGENTS.md").read_text() == "# Our rules\n"
    assert (recipe / "CLAUDE.md").read_text() == "Be nice.\n"
    alt = (recipe / "AGENTS.pix3.md").read_text()
    assert alt.split("\n")[0] == kit_agents.split("\n")[0]
    assert "The project's own AGENTS.md wins on process" in alt
    assert "See AGENTS.pix3.md for the Pix3 engine rules." in alt
    assert alt.endswith(kit_agents.partition("\n")[2])
    assert (recipe / ".gitignore").read_text().startswith("node_modules/\n\n")
    assert "TODO: Your AGENTS.md is kept" in out and "@AGENTS.pix3.md" in out
    assert "  SKIPPED  CLAUDE.md" in out
    again = install(recipe)
    assert "  current  AGENTS.pix3.md" in again and "TODO: Your AGENTS.md is kept" in again
    (recipe / "AGENTS.md").write_text("# Our rules\nSee AGENTS.pix3.md for the Pix3 engine rules.\n")
    assert "TODO: Your AGENTS.md is kept" not in install(recipe)
    (recipe / "CLAUDE.md").unlink()
    install(recipe)
    assert (recipe / "CLAUDE.md").read_text() == "@AGENTS.md\n@AGENTS.pix3.md\n"


def _newer(kit: Kit) -> Kit:
    return Kit(version="2.0.1", files={p: d + b"NEW LINE\n" for p, d in kit.files.items()})


def test_update_replaces_unedited_files_and_skips_edited_ones(recipe: Path) -> None:
    install(recipe)
    edited = recipe / ".claude/skills/pix3-nodes/SKILL.md"
    edited.write_bytes(edited.read_bytes() + b"my note\n")
    newer = _newer(load_kit())
    out = install(recipe, kit=newer)
    assert "  outdated AGENTS.md  (pix3 kit --update replaces it)" in out
    assert "NEW LINE" not in (recipe / "AGENTS.md").read_text()
    assert "kit file(s) are from another version" in out
    # Nothing updated: the recorded version stays the old one so `check` keeps warning.
    assert json.loads((recipe / ".pix3/kit-manifest.json").read_text())["version"] == CLI_VERSION
    out = install(recipe, kit=newer, update=True)
    assert "  updated  AGENTS.md\n" in out
    assert "  updated  .claude/skills/pix3-verify/SKILL.md\n" in out
    assert "  SKIPPED  .claude/skills/pix3-nodes/SKILL.md  (edited since" in out
    assert edited.read_text().endswith("my note\n")
    record = json.loads((recipe / ".pix3/kit-manifest.json").read_text())
    assert record["version"] == "2.0.1"
    assert record["files"][".claude/skills/pix3-nodes/SKILL.md"] != _sha(edited.read_bytes())
    meta = _yaml(recipe / "pix3project.yaml")["metadata"]
    assert isinstance(meta, dict)
    assert ".claude/skills/pix3-nodes/SKILL.md" not in meta["agentKit"]["files"]
    assert meta["agentKit"]["version"] == "2.0.1"


def test_a_byte_identical_file_is_adopted(recipe: Path) -> None:
    kit = load_kit()
    (recipe / "AGENTS.md").write_bytes(kit.files["AGENTS.md"])
    out = install(recipe, kit=kit)
    assert "  current  AGENTS.md\n" in out
    assert not (recipe / "AGENTS.pix3.md").exists()


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_broken_yaml_is_refused_with_nothing_written(recipe: Path) -> None:
    (recipe / "pix3project.yaml").write_text("version: 1.0.0\nmetadata: [unclosed\n")
    before = _snapshot(recipe)
    code, out, err = kit_cli([], recipe)
    assert code == 1 and out == ""
    assert err.startswith("pix3 kit: ") and "pix3project.yaml is not valid YAML" in err
    assert _snapshot(recipe) == before
    assert not (recipe / ".claude").exists()


def test_a_blocked_folder_undoes_everything(recipe: Path) -> None:
    (recipe / ".claude").write_text("a file where the skills folder goes")
    before = _snapshot(recipe)
    code, out, err = kit_cli([], recipe)
    assert code == 1 and out == ""
    assert "nothing was changed" in err
    assert _snapshot(recipe) == before
    assert not (recipe / ".pix3").exists()


def test_usage_errors_exit_2(recipe: Path) -> None:
    for argv, message in (
        (["--updat"], 'unknown option "--updat"'),
        (["extra"], 'kit takes no argument, not "extra"'),
        (["--project"], "--project needs a directory"),
    ):
        code, out, err = kit_cli(argv, recipe)
        assert code == 2 and out == ""
        assert err.startswith(f"pix3 kit: {message}\n\nUsage: pix3 kit"), err
    assert not (recipe / "AGENTS.md").exists()


def test_through_the_entry(recipe: Path, tmp_path: Path) -> None:
    done = run_pix3("kit", "--project", str(recipe), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (recipe / "AGENTS.md").is_file()
    done = run_pix3("kit", cwd=tmp_path)
    assert done.returncode == 2
    assert "pix3project.yaml" in done.stderr and "or any parent folder" in done.stderr
    done = run_pix3("kit", "--project", "nope", cwd=tmp_path)
    assert done.returncode == 2 and "or any parent folder" not in done.stderr


def test_a_broken_manifest_is_said_and_rewritten(recipe: Path) -> None:
    install(recipe)
    (recipe / ".pix3/kit-manifest.json").write_text("{torn")
    out = install(recipe)
    assert "note: .pix3/kit-manifest.json could not be read" in out
    assert "  current  AGENTS.md\n" in out
    assert json.loads((recipe / ".pix3/kit-manifest.json").read_text())["version"] == CLI_VERSION


def test_three_types_that_cannot_be_installed_leave_the_kit_and_say_what_to_run(
    recipe: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "empty-home"
    monkeypatch.setenv("PATH", str(tmp_path / "no-npm-here"))
    out = install(recipe, home=home)
    assert "  wrote    AGENTS.md\n" in out and "  wrote    tsconfig.json\n" in out
    assert ".pix3/types/, " not in out and not (recipe / ".pix3" / "types").exists()
    assert "note: .pix3/types/ was not written: three's types (@types/three) — could not install them " in out
    assert "(npm was not found on the PATH).\n" in out
    assert f"TODO: Run `{three_install_command(home)}`, then pix3 kit again" in out
