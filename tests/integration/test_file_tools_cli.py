"""A user's pass over the file tools: bad input is refused clearly, `--json` is a stable document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.pix3 import run_pix3


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("polish")
    done = run_pix3("new", "2d", "game", cwd=where, env={"PIX3_HOME": str(where / "home")})
    assert done.returncode == 0, done.stderr
    return where / "game"


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "--json", "--no-hydrate"],
        ["tree", "--json"],
        ["tree", "scenes/main.pix3scene", "--json"],
        ["gap", "--list", "--json"],
        ["sfx", "coin", "--json", "--out", "audio/c.wav"],
    ],
)
def test_json_is_two_space_indented_with_one_trailing_newline(project: Path, argv: list[str]) -> None:
    done = run_pix3(*argv, cwd=project)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert done.stdout == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_check_project_flag_does_not_swallow_the_next_option(project: Path) -> None:
    done = run_pix3("check", "--project", "--json", cwd=project)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("pix3 check: --project needs a folder\n\nUsage: pix3 check")


def test_check_empty_project_value_is_a_usage_error(project: Path) -> None:
    done = run_pix3("check", "--project=", cwd=project)
    assert done.returncode == 2
    assert done.stderr.startswith("pix3 check: --project needs a folder\n\n")


def test_tree_refuses_a_project_folder_that_does_not_exist(project: Path) -> None:
    done = run_pix3("tree", "--project", "nope", cwd=project)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"pix3 tree: no pix3project.yaml in {project / 'nope'}. Run it inside a Pix3 project, or pass --project <dir>.\n"
    )


def test_gap_without_a_project_says_what_to_do(tmp_path: Path) -> None:
    done = run_pix3("gap", "no tween node", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"pix3 gap: no pix3project.yaml in {tmp_path.resolve()} or any parent folder."
        " Run it inside a Pix3 project, or pass --project <dir>.\n"
    )


@pytest.mark.parametrize("command", ["new", "validate", "check", "tree", "kit", "character-compile", "sfx", "gap"])
def test_every_file_tool_usage_states_its_exit_codes(command: str) -> None:
    done = run_pix3(command, "--help")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith(f"Usage: pix3 {command} ")
    assert "\nExit 0 " in done.stdout


@pytest.mark.parametrize("command", ["validate", "check", "kit"])
@pytest.mark.parametrize("spelling", [["--project", ""], ["--project="], ["--project", "-x"], ["--project"]])
def test_project_needs_a_folder(project: Path, command: str, spelling: list[str]) -> None:
    done = run_pix3(command, *spelling, cwd=project)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"pix3 {command}: --project needs a ")
    assert f"\n\nUsage: pix3 {command} " in done.stderr


def test_sfx_that_cannot_write_says_so_and_exits_1(project: Path) -> None:
    done = run_pix3("sfx", "coin", "--out", "pix3project.yaml/coin.wav", cwd=project)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "pix3 sfx: cannot write pix3project.yaml/coin.wav (a folder on the way is a file); choose another --out.\n"
    )


def test_gap_equals_form_is_refused_with_the_spelling_it_takes(project: Path) -> None:
    done = run_pix3("gap", "no tween node", "--kind=node", cwd=project)
    assert done.returncode == 2
    assert done.stderr.startswith('pix3 gap: unknown option "--kind=node" (write --kind node)\n\nUsage: pix3 gap')
    assert not (project / ".pix3" / "gaps.jsonl").exists()


NAN_SCENE = """version: 1.0.0
root:
  - id: panel
    type: Group2D
    properties:
      width: .nan
      height: .inf
      layout:
        enabled: true
        horizontalAlign: stretch
        verticalAlign: stretch
    children:
      - id: fill
        type: ColorRect2D
        properties:
          layout:
            enabled: true
            horizontalAlign: stretch
            verticalAlign: stretch
            left: .nan
            right: 0
            top: 0
            bottom: 0
"""


def test_tree_shows_nan_and_infinity_instead_of_crashing(tmp_path: Path) -> None:
    (tmp_path / "pix3project.yaml").write_text("version: 1.0.0\nprojectType: 2d\n")
    (tmp_path / "odd.pix3scene").write_text(NAN_SCENE)
    text = run_pix3("tree", "odd.pix3scene", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "Group2D#panel size=NaNxInfinity" in text.stdout
    assert "ColorRect2D#fill pos=(NaN,0)" in text.stdout
    as_json = run_pix3("tree", "odd.pix3scene", "--json", cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    fill = json.loads(as_json.stdout)["nodes"][0]["children"][0]
    assert fill["resolved"]["position"][0] is None  # JSON.stringify(NaN) is null
