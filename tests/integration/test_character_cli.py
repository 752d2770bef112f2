"""`pix3 character-compile` as a real process: the art drop
outside the project, dry run / rerun / conflicts / --force, refusals, usage errors, and folders
that cannot be written — with nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pix3tools.core.usage import command_usage
from tests.support.images import png
from tests.support.pix3 import run_pix3

SPEC = """name: Goblin Scout
anchor: { x: 0.5, y: 0.9 }
clips:
  - { variant: sword, state: idle, fps: 8, frames: [sword/idle_1.png, sword/idle_2.png] }
  - { variant: sword, state: attack, fps: 15, sequence: sword/attack_ }
  - { variant: bow, state: idle, fps: 8, sequence: bow/idle_ }
  - { state: die, sequence: die/die_ }
"""
PREFAB = """version: 1.0.0
metadata:
  name: Goblin Scout
  description: Goblin Scout — 2D character (variant/state flipbook)
root:
  - id: goblin-scout
    type: AnimatedSprite2D
    name: Goblin Scout
    properties:
      animationResourcePath: res://sprites/goblin-scout/goblin-scout.pix3anim
      currentClip: sword.idle
      isPlaying: true
      sizeMode: native
      width: 48
      height: 64
      transform:
        position:
          - 0
          - 0
        scale:
          - 1
          - 1
        rotation: 0
    components:
      - id: goblin-scout-character
        type: core:CharacterVisual2D
        enabled: true
        config:
          variant: sword
          state: idle
          separator: .
    children: []
"""


def art_drop(tmp_path: Path) -> tuple[Path, Path]:
    """A 2D project and, beside it (outside), the art and the spec."""
    root = tmp_path / "game"
    (root / "scenes").mkdir(parents=True)
    (root / "pix3project.yaml").write_text("version: 1.0.0\nprojectType: 2d\ntargetPlatform: mobile\n")
    art = tmp_path / "art"
    frames = {
        "sword/idle_1.png": (48, 64),
        "sword/idle_2.png": (48, 64),
        "sword/attack_01.png": (64, 64),
        "sword/attack_02.png": (64, 64),
        "sword/attack_03.png": (64, 64),
        "bow/idle_1.png": (48, 64),
        "die/die_1.png": (48, 32),
    }
    for name, (w, h) in frames.items():
        (art / name).parent.mkdir(parents=True, exist_ok=True)
        (art / name).write_bytes(png(w, h, name.encode()))
    (art / "goblin.yaml").write_text(SPEC)
    return root, art / "goblin.yaml"


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_art_drop_json(tmp_path: Path) -> None:
    root, spec = art_drop(tmp_path)
    done = run_pix3("character-compile", str(spec), "--json", cwd=root / "scenes")
    assert (done.returncode, done.stderr) == (0, "")
    report = json.loads(done.stdout)
    assert list(report) == [
        "dryRun",
        "name",
        "slug",
        "animationPath",
        "prefabPath",
        "clips",
        "warnings",
        "ok",
        "files",
    ]
    assert (report["animationPath"], report["prefabPath"]) == (
        "sprites/goblin-scout/goblin-scout.pix3anim",
        "scenes/prefabs/Goblin Scout.pix3scene",
    )
    assert [[c["name"], c["frames"], c["fps"], c["loop"]] for c in report["clips"]] == [
        ["sword.idle", 2, 8, True],
        ["sword.attack", 3, 15, False],
        ["bow.idle", 1, 8, True],
        ["die", 1, 12, False],
    ]
    assert {f["action"] for f in report["files"]} == {"written"}
    assert [f["kind"] for f in report["files"]].count("frame") == 7
    assert report["warnings"] == [
        "sword.idle: loop defaulted to true.",
        "sword.attack: loop defaulted to false.",
        "bow.idle: loop defaulted to true.",
        "die: fps defaulted to 12.",
        "die: loop defaulted to false.",
    ]
    folder = root / "sprites/goblin-scout"
    assert (folder / "sword_attack_0003.png").read_bytes() == (spec.parent / "sword/attack_03.png").read_bytes()
    anim = json.loads((folder / "goblin-scout.pix3anim").read_text())
    assert anim["clips"][0]["frames"][0]["sourceSize"] == {"width": 48, "height": 64}
    assert (root / "scenes/prefabs/Goblin Scout.pix3scene").read_text() == PREFAB
    assert not list(root.rglob("*.tmp"))


def test_dry_run_rerun_conflict_force(tmp_path: Path) -> None:
    root, spec = art_drop(tmp_path)
    before = files_under(root)
    done = run_pix3("character-compile", str(spec), "--dry-run", cwd=root)
    assert done.returncode == 0 and "would write" in done.stdout
    assert done.stdout.splitlines()[0].endswith(" — dry run, nothing written")
    assert files_under(root) == before
    assert run_pix3("character-compile", str(spec), cwd=root).returncode == 0
    again = run_pix3("character-compile", str(spec), cwd=root)
    assert again.returncode == 0 and "current" in again.stdout and "wrote" not in again.stdout
    # retouch a frame, add a fourth attack frame: refused, nothing written
    (spec.parent / "sword/attack_02.png").write_bytes(png(64, 64, b"retouched"))
    (spec.parent / "sword/attack_04.png").write_bytes(png(64, 64, b"new"))
    snapshot = {p: (root / p).read_bytes() for p in files_under(root)}
    refused = run_pix3("character-compile", str(spec), cwd=root)
    assert refused.returncode == 1
    assert "  EXISTS        sprites/goblin-scout/sword_attack_0002.png  (other content; --force replaces it)" in (
        refused.stdout
    )
    assert refused.stdout.rstrip().endswith(
        "error: 2 file(s) exist with other content; nothing was written (--force replaces them)."
    )
    assert "  EXISTS        sprites/goblin-scout/goblin-scout.pix3anim  (other" in refused.stdout
    assert not (root / "sprites/goblin-scout/sword_attack_0004.png").exists()
    assert {p: (root / p).read_bytes() for p in files_under(root)} == snapshot
    forced = run_pix3("character-compile", str(spec), "--force", cwd=root)
    assert forced.returncode == 0 and "  replaced " in forced.stdout
    assert (root / "sprites/goblin-scout/sword_attack_0004.png").read_bytes() == png(64, 64, b"new")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("clips: []\n", "name is required"),
        ("name: X\nclips: []\n", "clips must be a non-empty list"),
        ("name: X\ncolour: red\nclips: []\n", "unknown key(s) colour"),
        ("name: X\nclips:\n  - { state: a }\n", "exactly one of frames"),
        ("name: X\nclips:\n  - { state: a, frames: [nope.png] }\n", "nope.png does not exist"),
        ("name: X\nclips:\n  - { state: a, frames: [goblin.yaml] }\n", "is not a PNG"),
        ("name: X\nclips:\n  - { state: a, sequence: sword/run_ }\n", "no numbered PNGs sword/run<n>.png"),
        ("name: [\n", "goblin.yaml: "),
    ],
)
def test_bad_specs_exit_1_and_write_nothing(tmp_path: Path, text: str, message: str) -> None:
    root, spec = art_drop(tmp_path)
    spec.write_text(text)
    before = files_under(root)
    done = run_pix3("character-compile", str(spec), cwd=root)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("pix3 character-compile: ") and message in done.stderr
    assert done.stderr.count("\n") == 1
    assert files_under(root) == before
    as_json = run_pix3("character-compile", str(spec), "--json", cwd=root)
    assert as_json.returncode == 1 and as_json.stderr == ""
    assert list(json.loads(as_json.stdout)) == ["ok", "error"]


def test_usage_and_project_errors(tmp_path: Path) -> None:
    root, spec = art_drop(tmp_path)
    usage = command_usage("character-compile")
    assert "pix3 character-compile <spec>" in usage
    for argv, message in (
        ([], "name the spec file."),
        (["a.yaml", "b.yaml"], "one spec at a time (got a.yaml and b.yaml)"),
        (["a.yaml", "--bogus"], "unknown argument --bogus"),
        (["a.yaml", "--project"], "--project needs a value"),
        (["a.yaml", "--project", "--json"], "--project needs a value"),
    ):
        done = run_pix3("character-compile", *argv, cwd=root)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"pix3 character-compile: {message}\n\n{usage}")
    done = run_pix3("character-compile", "--help", cwd=root)
    assert (done.returncode, done.stdout) == (0, usage)
    outside = run_pix3("character-compile", str(spec), cwd=spec.parent)
    assert outside.returncode == 2
    assert outside.stderr == (
        f"pix3 character-compile: no pix3project.yaml in {spec.parent} or any parent folder."
        " Run it inside a Pix3 project, or pass --project <dir>.\n"
    )
    explicit = run_pix3("character-compile", str(spec), "--project", str(spec.parent), cwd=root)
    assert explicit.returncode == 2 and f"no pix3project.yaml in {spec.parent}. Run" in explicit.stderr
    missing = run_pix3("character-compile", "art/nope.yaml", cwd=root)
    assert (missing.returncode, missing.stderr) == (2, "pix3 character-compile: art/nope.yaml does not exist.\n")
    by_project = run_pix3("character-compile", str(spec), f"--project={root}", "--dry-run", cwd=spec.parent)
    assert by_project.returncode == 0


def test_unwritable_target_writes_nothing(tmp_path: Path) -> None:
    """A file where the prefab folder should be: the frames staged so far are removed again."""
    root, spec = art_drop(tmp_path)
    (root / "scenes/prefabs").write_text("not a folder")
    before = {p: (root / p).read_bytes() for p in files_under(root)}
    done = run_pix3("character-compile", str(spec), cwd=root)
    assert done.returncode == 1
    assert "error: could not write" in done.stdout and "nothing was written." in done.stdout
    assert {p: (root / p).read_bytes() for p in files_under(root)} == before
    assert not (root / "sprites").exists()


def test_instanced_prefab_passes_validate(tmp_path: Path) -> None:
    root, spec = art_drop(tmp_path)
    assert run_pix3("character-compile", str(spec), cwd=root).returncode == 0
    (root / "scenes/main.pix3scene").write_text(
        "version: 1.0.0\nroot:\n  - id: game-root\n    type: Group2D\n    children:\n"
        "      - id: goblin\n        instance: res://scenes/prefabs/Goblin Scout.pix3scene\n"
        "        properties: { transform: { position: [0, -200] } }\n"
    )
    done = run_pix3("validate", "--json", "--no-hydrate", cwd=root)
    report = json.loads(done.stdout)
    assert (done.returncode, report["errorCount"]) == (0, 0), report["diagnostics"]
    assert [f["file"] for f in report["files"]] == ["scenes/main.pix3scene", "scenes/prefabs/Goblin Scout.pix3scene"]


def test_awkward_names_read_back_and_validate(tmp_path: Path) -> None:
    from pix3tools.scene import parse_yaml

    root, spec = art_drop(tmp_path)
    spec.write_text(
        'name: "Goblin: the #1 \\"boss\\""\nslug: boss\nseparator: ": "\ndefaultState: die\ndefaultVariant: ""\n'
        "clips:\n  - { variant: sword, state: idle, frames: [sword/idle_1.png] }\n"
        "  - { state: die, frames: [die/die_1.png] }\n"
    )
    done = run_pix3("character-compile", str(spec), "--json", cwd=root)
    report = json.loads(done.stdout)
    assert done.returncode == 0, done.stdout
    assert report["prefabPath"] == "scenes/prefabs/Goblin_ the #1 _boss_.pix3scene"
    assert [c["name"] for c in report["clips"]] == ["sword: idle", "die"]
    prefab = parse_yaml((root / report["prefabPath"]).read_text()).data
    node = prefab["root"][0]
    assert node["name"] == 'Goblin: the #1 "boss"'
    assert node["properties"]["currentClip"] == "die"
    assert node["properties"]["width"] == 48 and node["properties"]["height"] == 32
    assert node["components"][0]["config"] == {"variant": "", "state": "die", "separator": ": "}
    done = run_pix3("validate", report["prefabPath"], "--json", "--no-hydrate", cwd=root)
    assert json.loads(done.stdout)["errorCount"] == 0


def test_a_linked_folder_in_the_project_is_never_written_through(tmp_path: Path) -> None:
    """A cloned project can commit `sprites` (or the prefab folder) as a link to a folder of the
    user's: nothing is written through it, and the link is named."""
    root, spec = art_drop(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "sprites").symlink_to(outside, target_is_directory=True)
    before = {p: (root / p).read_bytes() for p in files_under(root)}
    done = run_pix3("character-compile", str(spec), "--force", cwd=root)
    assert done.returncode == 1
    assert f"{root}/sprites is a symbolic link to {outside}" in done.stderr + done.stdout
    assert list(outside.iterdir()) == []
    assert {p: (root / p).read_bytes() for p in files_under(root)} == before
    assert (root / "sprites").is_symlink()
