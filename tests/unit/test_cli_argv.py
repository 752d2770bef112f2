"""The entry pre-parser (spec/cli.md §1.1), tested as pure data."""

from __future__ import annotations

import pytest

from pix3net.cli._argv import parse_entry


@pytest.mark.parametrize(
    ("argv", "flags", "positionals", "command", "command_argv"),
    [
        ([], {}, [], None, []),
        (["-v"], {"version": True}, [], None, []),
        (["new", "2d", "-v"], {"version": True}, ["new", "2d"], "new", ["2d", "-v"]),
        (["--help", "new"], {"help": "new"}, [], None, []),
        (["-h", "kit"], {"help": True}, ["kit"], "kit", []),
        (["--project=p", "kit"], {"project": "p"}, ["kit"], "kit", []),
        (["--project", "p", "kit", "--update"], {"project": "p", "update": True}, ["kit"], "kit", ["--update"]),
        (["kit", "--update", "foo"], {"update": "foo"}, ["kit"], "kit", ["--update", "foo"]),
        (["gap", "--kind", "-x"], {"kind": True}, ["gap", "-x"], "gap", ["--kind", "-x"]),
        (["--a=b=c"], {"a": "b=c"}, [], None, []),
    ],
)
def test_parse_entry(
    argv: list[str], flags: dict[str, object], positionals: list[str], command: str | None, command_argv: list[str]
) -> None:
    parsed = parse_entry(argv)
    assert parsed.flags == flags
    assert parsed.positionals == positionals
    assert parsed.command == command
    assert parsed.command_argv == command_argv
