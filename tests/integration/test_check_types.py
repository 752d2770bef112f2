"""What a script is type-checked against, with the real TypeScript compiler: three's published types
and the @pix3/runtime declarations generated from the scene model (a project without its own
tsconfig.json), and the kit's bot-policy types (docs/kit.md, "Bot-policy types", in both modes)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from pix3tools.scripttypes import THREE_TYPES_VERSION, cache_prefix, three_install_command
from tests.support.node import node_modules_dir
from tests.support.pix3 import run_pix3

pytestmark = pytest.mark.node

TYPESCRIPT = node_modules_dir() / "typescript"
MOVER = """import { Script, Sprite2D } from '@pix3/runtime';
import { Vector3 } from 'three';

export class Mover extends Script {
  speed = 2;
  onUpdate(dt: number): void {
    const sprite = this.node as Sprite2D;
    sprite.width += dt * this.speed;
    sprite.position.x += new Vector3(1, 2, 3).length();
    sprite.blendMode = 'additive';
  }
}
"""
DODGE = "export default { name: 'dodge', tick(bot) { const e = bot.node('Enemy'); if (e && e.position.x < 100) bot.press('jump'); } } satisfies BotPolicy;\n"
DODGE_FLY = "export default { name: 'dodge', tick(bot) { bot.fly(); } } satisfies BotPolicy;\n"


def check(root: Path, *args: str) -> tuple[int, dict[str, object]]:
    done = run_pix3("check", "--json", "--no-hydrate", "--no-sync", *args, cwd=root,
                    env={"PIX3_TYPESCRIPT": str(TYPESCRIPT)}, timeout=180)  # fmt: skip
    assert done.stdout, done.stderr
    report = json.loads(done.stdout)
    assert isinstance(report, dict)
    return done.returncode, report


def type_errors(report: dict[str, object], file: str | None = None) -> list[tuple[str, int, str]]:
    diagnostics = report["diagnostics"]
    assert isinstance(diagnostics, list)
    return [(d["file"], d["line"], d["message"]) for d in diagnostics
            if d["code"] == "E_TYPE" and (file is None or d["file"] == file)]  # fmt: skip


@pytest.fixture
def recipe(tmp_path: Path, three_types_home: Path) -> Path:
    """A 1.x-shaped project: no tsconfig.json, no node_modules, the kit installed."""
    root = tmp_path / "recipe"
    (root / "scripts").mkdir(parents=True)
    (root / "pix3project.yaml").write_text("version: 1.0.0\nprojectType: 2d\n")
    (root / "scripts" / "Mover.ts").write_text(MOVER)
    done = run_pix3("kit", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "wrote    .pix3/types/, .pix3/tsconfig.check.json" in done.stdout
    return root


def test_kit_and_check_agree_and_a_good_script_passes(recipe: Path) -> None:
    types = recipe / ".pix3" / "types"
    before = {p: p.stat().st_mtime_ns for p in types.rglob("*") if p.is_file()}
    code, report = check(recipe)
    assert code == 0, report["diagnostics"]
    assert report["typecheck"]["mode"] == "pix3-types"  # type: ignore[index]
    assert report["typecheck"]["files"] == 2  # type: ignore[index]  # Mover and the bot types
    assert not any("Wrote" in note for note in report["notes"])  # type: ignore[attr-defined]
    assert {p: p.stat().st_mtime_ns for p in types.rglob("*") if p.is_file()} == before  # nothing rewritten


def test_a_misuse_of_three_is_one_type_error(recipe: Path) -> None:
    (recipe / "scripts" / "Mover.ts").write_text(MOVER.replace(".length()", ".fly()"))
    code, report = check(recipe)
    ((file, line, message),) = type_errors(report)
    assert (file, line, code) == ("scripts/Mover.ts", 9, 1)
    assert message == "TS2339: Property 'fly' does not exist on type 'Vector3'."


def test_the_runtime_types_are_the_scene_models(recipe: Path) -> None:
    text = MOVER.replace("sprite.blendMode = 'additive';", "sprite.blendMode = 'glow';\n    this.node.fly();")
    (recipe / "scripts" / "Mover.ts").write_text(text)
    code, report = check(recipe)
    assert code == 1
    assert [(line, message.split(":")[0]) for _, line, message in type_errors(report)] == [
        (10, "TS2322"), (11, "TS2339"),
    ]  # fmt: skip
    assert '\'"normal" | "additive" | "multiply" | "subtract"\'' in type_errors(report)[0][2]
    assert "Property 'fly' does not exist on type 'NodeBase'" in type_errors(report)[1][2]


def test_a_runtime_name_the_model_does_not_know_is_not_reported(recipe: Path) -> None:
    (recipe / "scripts" / "Uses.ts").write_text("import { SceneManager } from '@pix3/runtime';\nvoid SceneManager;\n")
    code, report = check(recipe)
    assert code == 0 and type_errors(report) == []
    assert any(n.startswith("1 import(s) from @pix3/runtime") for n in report["notes"])  # type: ignore[attr-defined]


def test_a_bot_policy_without_a_tsconfig_of_its_own(recipe: Path) -> None:
    bots = recipe / "design" / "tests" / "bots"
    assert (bots / "pix3-test-bot.d.ts").is_file()
    (bots / "dodge.ts").write_text(DODGE)
    code, report = check(recipe)
    assert (code, type_errors(report)) == (0, [])
    assert report["typecheck"]["files"] == 3  # type: ignore[index]  # Mover, the bot types, dodge
    (bots / "dodge.ts").write_text(DODGE_FLY)
    code, report = check(recipe)
    ((file, line, message),) = type_errors(report)
    assert (code, file, line) == (1, "design/tests/bots/dodge.ts", 1)
    assert message == "TS2339: Property 'fly' does not exist on type 'Pix3TestBot'."


def test_a_bot_policy_in_a_starter(tmp_path: Path, pix3_home: Path) -> None:
    """The starter's own tsconfig.json includes design/tests: a policy's type error is found there."""
    assert run_pix3("new", "2d", "game", cwd=tmp_path).returncode == 0
    root = tmp_path / "game"
    (root / "node_modules").mkdir()
    for package in ("typescript", "vite"):  # what the starter's tsconfig needs to run at all
        os.symlink(node_modules_dir() / package, root / "node_modules" / package)
    bots = root / "design" / "tests" / "bots"
    (bots / "dodge.ts").write_text(DODGE)
    _, report = check(root)
    assert type_errors(report, "design/tests/bots/dodge.ts") == []
    assert report["typecheck"]["mode"] == "project" and report["typecheck"]["ok"] is False  # type: ignore[index]
    (bots / "dodge.ts").write_text(DODGE_FLY)
    code, report = check(root)
    assert code == 1
    assert type_errors(report, "design/tests/bots/dodge.ts") == [
        ("design/tests/bots/dodge.ts", 1, "TS2339: Property 'fly' does not exist on type 'Pix3TestBot'.")
    ]


def test_offline_names_the_command_for_three_and_installs_nothing(tmp_path: Path, pix3_home: Path) -> None:
    root = tmp_path / "game"
    (root / "scripts").mkdir(parents=True)
    (root / "pix3project.yaml").write_text("version: 1.0.0\n")
    (root / "scripts" / "Mover.ts").write_text(MOVER)
    code, report = check(root, "--offline")
    (missing,) = [d for d in report["diagnostics"] if d["code"] == "E_TYPECHECK_UNAVAILABLE"]  # type: ignore[attr-defined]
    assert missing["fix"] == three_install_command(pix3_home)
    assert "--offline forbids installing them" in missing["message"]
    assert code == 1 and not cache_prefix(pix3_home).exists() and not (root / ".pix3" / "types").exists()


FAKE_NPM = """#!/bin/sh
printf '%s\\n' "$@" > "$PIX3_TEST_NPM_ARGV"
prefix="$3"
mkdir -p "$prefix/node_modules/@types/three"
printf '{"name": "@types/three", "version": "VERSION"}' > "$prefix/node_modules/@types/three/package.json"
printf 'export declare class Vector3 { length(): number; }\\n' > "$prefix/node_modules/@types/three/index.d.ts"
"""


def test_check_installs_three_once_saying_the_command_first(tmp_path: Path, pix3_home: Path) -> None:
    """The npm run itself is a stand-in that records its argv (the real download: the next test)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM.replace("VERSION", THREE_TYPES_VERSION))
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)
    root = tmp_path / "game"
    root.mkdir()
    (root / "pix3project.yaml").write_text("version: 1.0.0\n")
    argv_file = tmp_path / "argv"
    env = {"PIX3_TYPESCRIPT": str(TYPESCRIPT), "PATH": f"{bin_dir}:{os.environ['PATH']}",
           "PIX3_TEST_NPM_ARGV": str(argv_file)}  # fmt: skip
    done = run_pix3("check", "--json", "--no-hydrate", "--no-sync", cwd=root, env=env, timeout=180)
    command = three_install_command(pix3_home)
    prefix = cache_prefix(pix3_home)
    assert (
        done.stderr == f"pix3 check: installing @types/three {THREE_TYPES_VERSION} once into {prefix}\n  $ {command}\n"
    )
    assert argv_file.read_text().split("\n")[:-1] == [
        "install", "--prefix", str(prefix), f"@types/three@{THREE_TYPES_VERSION}", "--no-save", "--no-package-lock",
        "--no-audit", "--no-fund", "--loglevel=error",
    ]  # fmt: skip
    assert done.returncode == 0, done.stdout
    argv_file.unlink()
    again = run_pix3("check", "--no-hydrate", "--no-sync", cwd=root, env=env, timeout=180)
    assert again.returncode == 0 and again.stderr == "" and not argv_file.exists()


@pytest.mark.slow
def test_three_types_are_installed_for_real(tmp_path: Path, pix3_home: Path) -> None:
    """The real npm and registry: what a user's first check does."""
    root = tmp_path / "game"
    (root / "scripts").mkdir(parents=True)
    (root / "pix3project.yaml").write_text("version: 1.0.0\n")
    (root / "scripts" / "Mover.ts").write_text(MOVER.replace(".length()", ".fly()"))
    code, report = check(root)
    assert [m.split(":")[0] for _, _, m in type_errors(report)] == ["TS2339"], report["diagnostics"]
    installed = json.loads((cache_prefix(pix3_home) / "node_modules/@types/three/package.json").read_text())
    assert installed["version"] == THREE_TYPES_VERSION and code == 1


# Root files TypeScript's `<folder>/**/*.ts` matching takes or leaves: hidden folders and files,
# package folders (and a folder that only starts like one), `x.d.ts` beside `x.ts` (both read, via a
# reference), `.ts` as a whole name.
ROOT_EDGES = {
    "scripts/sub/deep/A.ts": "export const a = 1;\n",
    "scripts/.hid/H.ts": "export const h = 1;\n",
    "scripts/sub/node_modules/N.ts": "export const n = 2;\n",
    "scripts/sub/node_modules/M.d.ts": "declare const m: number;\n",
    "scripts/Z.ts": "import { h } from './.hid/H';\nimport { a } from './sub/deep/A';\n"
    "import { n } from './sub/node_modules/N';\nexport const z = h + a + n;\n",
    "scripts/Q.ts": "export const q = 1;\n",
    "scripts/Q.d.ts": "export declare const q: number;\n",
    "scripts/.dot.ts": "export const d = 1;\n",
    "scripts/R.ts": '/// <reference path="./Q.d.ts" />\n/// <reference path="./.dot.ts" />\n'
    '/// <reference path="./sub/node_modules/M.d.ts" />\nexport {};\n',
    "src/scripts/node_modules2/K.ts": "export const k = 1;\n",
    "src/scripts/.ts": "export const e = 1;\n",
    "design/tests/bots/dodge.ts": DODGE,
}


def test_our_tsconfigs_root_files_are_the_ones_tsc_explains(recipe: Path) -> None:
    """check asks tsc for --listFiles (explaining ~500 files of three's costs it ~5 %) and picks the
    root files by the include patterns: the same files tsc's own --explainFiles names."""
    import subprocess

    from pix3tools.check._typescript import parse_tsc_output
    from pix3tools.scripttypes import check_root_files

    for name, text in ROOT_EDGES.items():
        (recipe / name).parent.mkdir(parents=True, exist_ok=True)
        (recipe / name).write_text(text)

    def tsc(listing: str) -> str:
        argv = ["node", str(TYPESCRIPT / "lib" / "tsc.js"), "--noEmit", "-p", str(recipe / ".pix3" / "tsconfig.check.json"),
                "--pretty", "false", listing]  # fmt: skip
        return subprocess.run(argv, cwd=recipe, capture_output=True, text=True, check=False, timeout=120).stdout

    _, explained = parse_tsc_output(tsc("--explainFiles"), recipe)
    _, listed = parse_tsc_output(tsc("--listFiles"), recipe, explained=False)
    assert str(recipe / "scripts" / "Q.d.ts") in listed and str(recipe / "scripts" / ".dot.ts") in listed
    picked = check_root_files(recipe, listed)
    assert sorted(picked) == sorted(explained) and len(explained) == 9
    code, report = check(recipe)
    assert report["typecheck"]["files"] == 9 and code == 0, report["diagnostics"]  # type: ignore[index]
