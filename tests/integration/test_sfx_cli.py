"""`pix3 sfx` as a real process: arguments, messages, exit codes, files (docs/sfx.md, "Output")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pix3tools.sfx import PARAM_KEYS
from tests.support.pix3 import run_pix3


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pix3project.yaml").write_text("version: 1.0.0\n")
    (tmp_path / "scenes").mkdir()
    return tmp_path


def test_preset_lands_in_the_project_audio_folder(project: Path) -> None:
    done = run_pix3("sfx", "coin", cwd=project / "scenes")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "wrote ../audio/coin.wav  coin, 302 ms, 26.1 KiB\n  use it as res://audio/coin.wav\n"
    assert (project / "audio" / "coin.wav").stat().st_size == 26680


def test_json_shape_and_key_order(project: Path) -> None:
    done = run_pix3("sfx", "big", "explosion", "--seed=3", "--json", "--out", "sounds/boom.WAV", cwd=project)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert list(report) == ["path", "res", "durationMs", "preset", "seed", "modifiers", "bytes", "peak", "params"]
    assert report["path"] == "sounds/boom.WAV" and report["res"] == "res://sounds/boom.WAV"
    assert report["preset"] == "explosion" and report["seed"] == 3 and report["modifiers"] == ["big"]
    assert list(report["params"]) == list(PARAM_KEYS)
    assert report["peak"] == 0.9
    assert report["bytes"] == (project / "sounds" / "boom.WAV").stat().st_size
    assert done.stdout.endswith("}\n") and '  "path"' in done.stdout


def test_outside_a_project_res_is_null_and_target_is_cwd(tmp_path: Path) -> None:
    done = run_pix3("sfx", "click", "--json", cwd=tmp_path)
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert (report["path"], report["res"], report["seed"]) == ("audio/click.wav", None, None)
    human = run_pix3("sfx", "click", "--seed", "9", cwd=tmp_path)
    assert human.stdout.startswith("wrote audio/click.wav  click (seed 9), ") and "use it as" not in human.stdout


@pytest.mark.parametrize(
    ("argv", "stderr", "with_usage"),
    [
        ([], "pix3 sfx: say which sound.\n", True),
        (["  "], "pix3 sfx: say which sound.\n", True),
        (["coin", "--loud"], "pix3 sfx: unknown option --loud.\n", True),
        (["coin", "--out"], "pix3 sfx: --out needs a value.\n", False),
        (["coin", "--seed", "--json"], "pix3 sfx: --seed needs a value.\n", False),
        (["coin", "--seed", "-1"], 'pix3 sfx: --seed takes a whole number 0..4294967295, not "-1".\n', False),
        (["coin", "--seed", "1.5"], 'pix3 sfx: --seed takes a whole number 0..4294967295, not "1.5".\n', False),
        (
            ["coin", "--seed", "4294967296"],
            'pix3 sfx: --seed takes a whole number 0..4294967295, not "4294967296".\n',
            False,
        ),
        (
            ["a", "cat"],
            'pix3 sfx: "a cat" names no preset. Use one of coin, jump, hit, explosion, powerup, click, or words like '
            '"coin pickup", "big explosion", "button click".\n',
            False,
        ),
        (
            ["coin", "--out", "x.mp3"],
            'pix3 sfx: --out must end in .wav (the only format this writes), got "x.mp3".\n',
            False,
        ),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, argv: list[str], stderr: str, with_usage: bool) -> None:
    done = run_pix3("sfx", *argv, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(stderr)
    assert ("Usage: pix3 sfx" in done.stderr) == with_usage
    assert not (tmp_path / "audio").exists()


def test_help_wins_only_when_reached(tmp_path: Path) -> None:
    assert run_pix3("sfx", "--help", "--bogus", cwd=tmp_path).returncode == 0
    assert run_pix3("sfx", "--bogus", "--help", cwd=tmp_path).returncode == 2
    assert run_pix3("sfx", "-x", "coin", "--json", cwd=tmp_path).returncode == 0  # -x is text


def test_seed_spellings_of_js_number(tmp_path: Path) -> None:
    a = json.loads(run_pix3("sfx", "coin", "--seed", "0x10", "--json", cwd=tmp_path).stdout)
    b = json.loads(run_pix3("sfx", "coin", "--seed", "16", "--json", cwd=tmp_path).stdout)
    assert a["seed"] == b["seed"] == 16 and a["params"] == b["params"]
