"""`pix3` as a real process: version, help, unknown commands (docs/cli.md, "Entry rules")."""

from __future__ import annotations

import subprocess
import sys

from pix3tools.core import CLI_VERSION
from pix3tools.core.commandtable import COMMANDS
from tests.support.pix3 import pix3_env, run_pix3


def test_version_beats_everything() -> None:
    for argv in (["--version"], ["-v"], ["help", "-v"], ["nonsense", "-v"]):
        done = run_pix3(*argv)
        assert (done.returncode, done.stdout, done.stderr) == (0, f"{CLI_VERSION}\n", "")


def test_bare_pix3_prints_usage_on_stdout_and_exits_1() -> None:
    done = run_pix3()
    assert done.returncode == 1
    assert done.stdout.startswith(f"pix3 {CLI_VERSION}\n\nUsage:\n")
    assert "  pix3 --version" in done.stdout


def test_help_forms_exit_0() -> None:
    for argv in (["help"], ["--help"], ["-h"]):
        done = run_pix3(*argv)
        assert done.returncode == 0, argv
        assert done.stdout.startswith(f"pix3 {CLI_VERSION}\n")


def test_unknown_command_and_topic() -> None:
    for argv, word in ((["frobnicate"], "frobnicate"), (["help", "nope"], "nope"), (["--help", "nope"], "nope")):
        done = run_pix3(*argv)
        assert done.returncode == 1
        assert done.stdout == ""
        assert done.stderr.startswith(f'pix3: unknown command "{word}".\n\npix3 {CLI_VERSION}\n')


def test_usage_lists_exactly_the_dispatched_commands() -> None:
    from pix3tools.core.commandtable import ORDER

    text = run_pix3("help").stdout
    for name in ORDER:
        listed = f"\n  pix3 {name}" in text
        assert listed == (name in COMMANDS), name


def test_every_dispatched_command_answers_help() -> None:
    for name in COMMANDS:
        for argv in ([name, "--help"], [name, "-h"], ["help", name], ["--help", name]):
            done = run_pix3(*argv)
            assert done.returncode == 0, (argv, done.stderr)
            assert done.stdout.startswith(f"Usage: pix3 {name}"), argv


def test_version_imports_nothing_heavy() -> None:
    code = (
        "import sys, runpy; sys.argv=['pix3','--version'];\n"
        "from pix3net.cli import main; main();\n"
        "bad=[m for m in ('trio','httpx','hypercorn','quart','numpy','ruamel') if m in sys.modules];\n"
        "print(bad)"
    )
    done = subprocess.run([sys.executable, "-c", code], env=pix3_env(), capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"
