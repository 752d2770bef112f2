"""The one argument parser (docs/cli.md, "How a command declares its arguments"), as tables.

Each row is a command's declared syntax, an argv, and what the parse must be: the flags, option
values and words, a help request, or the exact usage error (and whether the usage follows it).
"""

from __future__ import annotations

import importlib

import pytest

from pix3tools.core.argv import Args, Option, Syntax, UsageError, parse
from pix3tools.core.commandtable import COMMANDS, HIDDEN
from pix3tools.core.usage import command_usage
from pix3tools.smoke import Shard

SYNTAXES = {
    name: importlib.import_module(module).SYNTAX
    for name, module in {**COMMANDS, **HIDDEN}.items()
    if name != "__chrome-owner"  # its one argument is a JSON document, not options
}


def _parse(name: str, argv: list[str]) -> Args:
    syntax: Syntax = SYNTAXES[name]
    return parse(syntax, argv)


def _as_data(args: Args) -> tuple[set[str], dict[str, object], tuple[str, ...]]:
    return set(args.flags), dict(args.values), args.words


OK = [
    # (command, argv, flags, values, words)
    ("kit", ["--update", "--json"], {"--update", "--json"}, {}, ()),
    ("kit", ["--project=p", "--migrate"], {"--migrate"}, {"--project": "p"}, ()),
    (
        "tree",
        ["a.pix3scene", "--depth=2", "--types", " A, ,B"],
        set(),
        {"--depth": 2, "--types": ("A", "B")},
        ("a.pix3scene",),
    ),
    ("tree", ["--project="], set(), {"--project": ""}, ()),
    ("gap", ["x", "--detail", "--list", "--json"], {"--json"}, {"--detail": "--list"}, ("x",)),
    ("gap", ["-x", "--kind", "node"], set(), {"--kind": "node"}, ("-x",)),
    ("sfx", ["coin", "pickup", "-x", "--seed=7"], set(), {"--seed": "7"}, ("coin", "pickup", "-x")),
    ("new", ["2d", "game", "--name", "--odd"], set(), {"--name": "--odd"}, ("2d", "game")),
    ("new", ["--name=My Game", "3d"], set(), {"--name": "My Game"}, ("3d",)),
    (
        "agent-setup",
        ["codex", "--repair", "--cdp-port", "9336", "claude", "codex"],
        {"--repair"},
        {"--cdp-port": 9336},
        ("codex", "claude", "codex"),
    ),
    ("editor", ["--stop", "--cdp-port", "0x2475", "--headless"], {"--stop", "--headless"}, {"--cdp-port": 9333}, ()),
    (
        "editor",
        ["--url", "http://localhost:5174", "--ssh", "box"],
        set(),
        {"--url": "http://localhost:5174/__pix3/", "--ssh": "box"},
        (),
    ),
    ("validate", ["scenes", "a.pix3scene", "--no-hydrate"], {"--no-hydrate"}, {}, ("scenes", "a.pix3scene")),
    (
        "check",
        ["--json", "--offline", "--no-sync", "--project", "p"],
        {"--json", "--offline", "--no-sync"},
        {"--project": "p"},
        (),
    ),
    (
        "character-compile",
        ["spec.yaml", "--dry-run", "--project", "p"],
        {"--dry-run"},
        {"--project": "p"},
        ("spec.yaml",),
    ),
    ("__dev-server", ["--project=p", "--port", "5174"], set(), {"--project": "p", "--port": 5174}, ()),
    (
        "smoke",
        ["scenes/main.pix3scene", "--json", "--frames", "2", "--timeout=1.5"],
        {"--json"},
        {"--frames": 2, "--timeout": 1.5},
        ("scenes/main.pix3scene",),
    ),
    ("smoke", ["--frames=0.5", "--all", "--no-sync"], {"--all", "--no-sync"}, {"--frames": 0}, ()),  # floored
    ("smoke", ["--frames", " 0x10 ", "--changed"], {"--changed"}, {"--frames": 16}, ()),  # JavaScript's Number()
    ("smoke", ["--project="], set(), {"--project": ""}, ()),
    ("smoke", ["--project", "-odd"], set(), {"--project": "-odd"}, ()),
    (
        "smoke",
        ["--all", "--workers", "4", "--shard=2/4", "--reporter", "github,junit", "--junit-file", "out/j.xml"],
        {"--all"},
        {"--workers": 4, "--shard": Shard(2, 4), "--reporter": ("github", "junit"), "--junit-file": "out/j.xml"},
        (),
    ),
    (
        "smoke",
        ["--output", "artifacts", "--output-all", "--virtual-time", "--json", "--reporter=junit"],
        {"--output-all", "--virtual-time", "--json"},
        {"--output": "artifacts", "--reporter": ("junit",)},
        (),
    ),
    (
        "smoke",
        ["--shard", " 1 / 1 ", "--reporter", " json , json ", "--real-time"],
        {"--real-time"},
        {"--shard": Shard(1, 1), "--reporter": ("json",)},
        (),
    ),
]

ERRORS = [
    # (command, argv, message, usage follows)
    ("kit", ["--updat"], 'unknown option "--updat"', True),
    ("kit", ["extra"], 'kit takes no argument, not "extra"', True),
    ("kit", ["--project", "-x"], "--project needs a directory", True),
    ("kit", ["--project="], "--project needs a directory", True),
    ("tree", ["--depth"], "--depth needs a value", True),
    ("tree", ["--depth", "--json"], "--depth needs a value", True),
    ("tree", ["--depth", "-1"], "--depth needs a whole number ≥ 0", True),
    ("tree", ["--json=1"], "unknown argument --json=1", True),
    ("tree", ["-"], "unknown argument -", True),
    ("tree", ["a", "b"], "one scene at a time (got a and b)", True),
    ("gap", ["x", "--kind=node"], 'unknown option "--kind=node" (write --kind node)', True),
    ("gap", ["x", "--kind", "wish"], '--kind is one of capability, tool, node, doc, other, not "wish"', True),
    ("gap", ["a", "b"], 'one summary only — quote it ("…"); put the rest in --detail', True),
    ("gap", ["x", "--detail"], "--detail needs a value", True),
    ("sfx", ["coin", "--out"], "--out needs a value.", False),
    ("sfx", ["coin", "--out", "--json"], "--out needs a value.", False),
    ("sfx", ["coin", "--bogus"], "unknown option --bogus.", True),
    ("new", ["2d", "--bogus"], 'unknown option "--bogus"', True),
    ("new", ["2d", "x", "--name"], "--name needs a value", True),
    ("new", ["2d", "x", "y"], 'new takes a starter and a folder, not also "y"', True),
    ("agent-setup", ["gemini"], 'agent-setup takes claude, codex or pi, not "gemini"', True),
    ("agent-setup", ["--cdp-port", "--repair"], "--cdp-port needs a port", True),
    ("agent-setup", ["--cdp-port"], "--cdp-port needs a port", True),
    ("agent-setup", ["--project", "--repair"], "--project needs a directory", True),
    ("editor", ["--port", "70000"], "--port needs a port", True),
    ("editor", ["--project", "--stop"], "--project needs a value", True),
    ("editor", ["--port=5174"], 'unknown option "--port=5174" (write --port 5174)', True),
    ("editor", ["stray"], 'unknown option "stray"', True),
    ("editor", ["--url", "file:///x"], '--url needs an http(s) URL, not "file:///x"', True),
    ("validate", ["--project", "--json"], "--project needs a folder", True),
    ("validate", ["-x"], "unknown option -x", True),
    ("check", ["--bogus"], "unknown argument --bogus", True),
    ("check", ["stray"], "unknown argument stray", True),
    ("check", ["--project="], "--project needs a folder", True),
    ("character-compile", [], "name the spec file.", True),
    ("character-compile", ["a", "b"], "one spec at a time (got a and b)", True),
    ("character-compile", ["a", "--project", "--json"], "--project needs a value", True),
    ("__dev-server", ["--port", "x"], "--port needs a port", True),
    ("__dev-server", ["--what"], 'unknown option "--what"', True),
    ("smoke", ["--frames", "lots"], "--frames needs a positive number", True),
    ("smoke", ["--frames", "-1"], "--frames needs a positive number", True),
    ("smoke", ["--frames="], "--frames needs a positive number", True),
    ("smoke", ["--timeout", "Infinity"], "--timeout needs a positive number", True),
    ("smoke", ["--frames"], "--frames needs a value", True),
    ("smoke", ["--project", "--json"], "--project needs a value", True),
    ("smoke", ["--project=--json"], "--project needs a value", True),
    ("smoke", ["--json=1"], "unknown argument --json=1", True),
    ("smoke", ["-"], "unknown argument -", True),
    ("smoke", ["--frame", "3"], "unknown argument --frame", True),
    ("smoke", ["a.pix3scene", "b.pix3scene"], "one scene at a time (got a.pix3scene and b.pix3scene)", True),
    ("smoke", ["--all", "--changed"], "--changed and --all exclude each other", True),
    (
        "smoke",
        ["scenes/main.pix3scene", "--all"],
        "--all picks the scenes; drop scenes/main.pix3scene or the flag",
        True,
    ),
    ("smoke", ["--changed", "x.pix3scene"], "--changed picks the scenes; drop x.pix3scene or the flag", True),
    ("smoke", ["--workers", "0"], "--workers needs a whole number ≥ 1", True),
    ("smoke", ["--workers", "1.5"], "--workers needs a whole number ≥ 1", True),
    ("smoke", ["--workers", "--all"], "--workers needs a value", True),
    ("smoke", ["--shard", "0/4"], "--shard needs i/n with 1 ≤ i ≤ n (e.g. --shard 2/4)", True),
    ("smoke", ["--shard", "5/4"], "--shard needs i/n with 1 ≤ i ≤ n (e.g. --shard 2/4)", True),
    ("smoke", ["--shard", "2"], "--shard needs i/n with 1 ≤ i ≤ n (e.g. --shard 2/4)", True),
    ("smoke", ["--shard", "1/4", "x.pix3scene"], "--shard splits a set of scenes; drop x.pix3scene or --shard", True),
    ("smoke", ["--reporter", "dot"], "--reporter takes line, json, github, junit (comma-separated; got 'dot')", True),
    ("smoke", ["--reporter", ","], "--reporter takes line, json, github, junit (comma-separated; got ',')", True),
    ("smoke", ["--reporter", "line,json"], "--reporter: line and json both write the report on stdout; pick one", True),
    ("smoke", ["--json", "--reporter", "github"], "--json is --reporter json; drop one", True),
    ("smoke", ["--output-all"], "--output-all needs --output <dir>", True),
    ("smoke", ["--real-time", "--virtual-time"], "--real-time and --virtual-time exclude each other", True),
    ("smoke", ["--output="], "--output needs a folder", True),
    ("smoke", ["--junit-file", "--all"], "--junit-file needs a value", True),
    ("smoke", ["--junit-file="], "--junit-file needs a file path", True),
]

HELP = [
    # (command, argv, is help): when --help wins over an error
    ("gap", ["x", "--bogus", "-h"], True),  # anywhere
    ("editor", ["stray", "--help"], True),
    ("kit", ["--updat", "--help"], True),
    ("sfx", ["--help", "--bogus"], True),  # as soon as it is reached
    ("sfx", ["--bogus", "--help"], False),
    ("validate", ["--help", "--bogus"], True),
    ("check", ["--help", "--bogus"], False),  # only once everything parsed
    ("check", ["--bogus", "--help"], False),
    ("tree", ["--help", "--depth", "3"], True),
    ("character-compile", ["--help"], True),  # help wins over the missing spec
    ("tree", ["--types", "-h"], None),  # a value, not help: --types stops only at "--"
    ("smoke", ["--changed", "--help"], True),
    ("smoke", ["--help", "--all", "--changed"], False),  # the rules between arguments are part of the parse
    ("smoke", ["--bogus", "--help"], False),
]


@pytest.mark.parametrize(("name", "argv", "flags", "values", "words"), OK, ids=[f"{r[0]} {' '.join(r[1])}" for r in OK])
def test_parses(name: str, argv: list[str], flags: set[str], values: dict[str, object], words: tuple[str, ...]) -> None:
    assert _as_data(_parse(name, argv)) == (flags, values, words)


@pytest.mark.parametrize(("name", "argv", "message", "usage"), ERRORS, ids=[f"{r[0]} {' '.join(r[1])}" for r in ERRORS])
def test_usage_errors(name: str, argv: list[str], message: str, usage: bool) -> None:
    with pytest.raises(UsageError) as caught:
        _parse(name, argv)
    assert (caught.value.message, caught.value.usage) == (message, usage)


@pytest.mark.parametrize(("name", "argv", "wins"), HELP, ids=[f"{r[0]} {' '.join(r[1])}" for r in HELP])
def test_when_help_wins(name: str, argv: list[str], wins: bool | None) -> None:
    if wins is False:
        with pytest.raises(UsageError):
            _parse(name, argv)
        return
    assert _parse(name, argv).help is bool(wins)


def test_every_dispatched_command_declares_its_syntax_under_its_own_name() -> None:
    assert set(SYNTAXES) == (set(COMMANDS) | set(HIDDEN)) - {"__chrome-owner"}
    for name, syntax in SYNTAXES.items():
        assert syntax.name == name


def test_every_declared_option_is_in_the_usage() -> None:
    for name, syntax in SYNTAXES.items():
        usage = command_usage(name)
        for token in (*syntax.flags, *(option.name for option in syntax.options)):
            assert token in usage, f"pix3 {name}: {token} is not in its usage"


def test_typed_access() -> None:
    args = parse(Syntax("x", options=(Option("--n", convert=lambda _n, t: int(t)),)), ["--n", "3"])
    assert args.get("--n", int) == 3 and args.text("--missing") is None
    with pytest.raises(TypeError):
        args.text("--n")


def test_open_syntax_takes_what_it_does_not_know() -> None:
    open_syntax = Syntax("pix3", words=None, dash_words=True, help="none", open=True, aliases=(("-v", "--version"),))
    assert _as_data(parse(open_syntax, ["--a", "-b", "--c=d", "-v", "--e"])) == (
        {"--a", "--version", "--e"},
        {"--c": "d"},
        ("-b",),
    )
