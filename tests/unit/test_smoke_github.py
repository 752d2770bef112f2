"""`pix3 smoke --reporter github`: workflow commands GitHub turns into annotations (pure)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pix3net.commands.smoke import workspace_prefix
from pix3net.commands.smoke.command import SYNTAX, SmokeArgs
from pix3tools.core.argv import parse
from pix3tools.smoke import Failure, SmokeReport, escape_data, escape_property, github_annotations

ROOT = Path("/work/repo/game")


def unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert escape_data("100% done\r\nnext::error x") == "100%25 done%0D%0Anext::error x"
    assert escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    for text in ("%0A", "a%25b", "x\ny:z,w", "%%"):
        assert unescape(escape_property(text)) == text


def test_errors_point_at_the_line_the_mapped_stack_names() -> None:
    report = SmokeReport(
        "scenes/throws.pix3scene",
        30,
        120,
        True,
        errors=[
            {
                "code": "E_SMOKE_SCRIPT",
                "message": "Error: thrown on frame 30",
                "stack": "Error: x\n    at http://localhost:5173/@vite/client:1:1\n"
                "    at three (node_modules/three/build/three.module.js:9:9)\n"
                f"    at loop ({ROOT}/games/throws.js:5:27)",
                "frame": 30,
            },
            {
                "code": "E_SMOKE_LOAD",
                "message": "the page's script res://src/gone.js did not load (HTTP 404).",
                "frame": 0,
            },
        ],
        warnings=[{"code": "W_SMOKE_DIALOG", "frame": 2, "message": 'alert "hi, there"'}],
    )
    stuck = Failure(
        "E_SMOKE_TIMEOUT", "the run did not finish within 20 s: a loop; try --timeout.", "scenes/loop.pix3scene"
    )
    assert github_annotations([report, stuck], ROOT, "game/") == [
        "::error file=game/games/throws.js,line=5,col=27,title=pix3 smoke E_SMOKE_SCRIPT::"
        "scenes/throws.pix3scene: frame 30: Error: thrown on frame 30",
        "::error file=game/scenes/throws.pix3scene,title=pix3 smoke E_SMOKE_LOAD::"
        "scenes/throws.pix3scene: frame 0: the page's script res://src/gone.js did not load (HTTP 404).",
        '::warning file=game/scenes/throws.pix3scene,title=pix3 smoke W_SMOKE_DIALOG::scenes/throws.pix3scene: frame 2: alert "hi, there"',
        "::error file=game/scenes/loop.pix3scene,title=pix3 smoke E_SMOKE_TIMEOUT::"
        "scenes/loop.pix3scene: the run did not finish within 20 s: a loop; try --timeout.",
    ]


def test_a_hostile_message_or_path_never_starts_a_second_command() -> None:
    hostile = "boom\n::error file=/etc/passwd::owned\r%0A"
    report = SmokeReport(
        "scenes/a,b:c.pix3scene",
        1,
        1,
        False,
        errors=[
            {"code": "E_SMOKE_CONSOLE_ERROR", "message": hostile, "stack": "E\n    at f (x,y:z.js:3:4)", "frame": 1}
        ],
    )
    [line] = github_annotations([report], ROOT)
    assert "\n" not in line and "\r" not in line
    command = re.fullmatch(r"::error (?P<props>[^:]*)::(?P<message>.*)", line)
    assert command is not None, line
    props = dict(part.split("=", 1) for part in command["props"].split(","))
    assert set(props) == {"file", "title"}  # the frame's file had ':' in it: not a project path
    assert unescape(props["file"]) == "scenes/a,b:c.pix3scene"
    assert unescape(command["message"]) == f"scenes/a,b:c.pix3scene: frame 1: {hostile}"


@pytest.mark.parametrize(
    ("argv", "env", "printed", "junit"),
    [
        ([], {}, "line", None),
        ([], {"GITHUB_ACTIONS": "true"}, "github", None),  # the runner sets it: annotations by default
        ([], {"GITHUB_ACTIONS": ""}, "line", None),  # set but empty is not set
        ([], {"CI": "true"}, "line", None),  # CI alone changes nothing
        (["--json"], {"GITHUB_ACTIONS": "true"}, "json", None),
        (["--reporter", "line"], {"GITHUB_ACTIONS": "true"}, "line", None),
        (["--reporter", "junit"], {"GITHUB_ACTIONS": "true"}, "github", "pix3-smoke-junit.xml"),
        (["--reporter", "junit,json"], {}, "json", "pix3-smoke-junit.xml"),
        (["--junit-file", "out/j.xml"], {}, "line", "out/j.xml"),  # naming the file turns junit on
        (["--junit-file", "/abs/j.xml", "--reporter", "github"], {}, "github", "/abs/j.xml"),
    ],
)
def test_which_reporters_write(argv: list[str], env: dict[str, str], printed: str, junit: str | None) -> None:
    args = SmokeArgs.of(parse(SYNTAX, argv))
    assert args.stdout_reporter(env) == printed
    cwd = Path("/work/game")
    assert args.junit_path(cwd) == (None if junit is None else cwd / junit)


@pytest.mark.parametrize(
    ("workspace", "prefix"),
    [
        (None, ""),  # not in GitHub Actions: paths from the project
        ("/w/repo", "games/space/"),  # the project in a subfolder of the repository
        ("/w/repo/games/space", ""),  # the project is the repository
        ("/elsewhere", ""),  # outside the workspace: paths from the project
    ],
)
def test_annotation_paths_start_at_the_repositorys_root(workspace: str | None, prefix: str) -> None:
    env = {} if workspace is None else {"GITHUB_WORKSPACE": workspace}
    assert workspace_prefix(Path("/w/repo/games/space"), env) == prefix
