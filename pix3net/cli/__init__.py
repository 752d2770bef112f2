"""The `pix3` entry: global argv handling and dispatch (spec/cli.md §1).

Nothing heavy is imported here: a command's module loads only when that command runs, so
``pix3 --version`` starts as fast as Python does.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from pix3net import CLI_VERSION
from pix3net.cli._argv import parse_entry
from pix3net.cli._table import COMMANDS, HIDDEN
from pix3net.cli.usage import overview

__all__ = ["main"]


def _load(target: str) -> Callable[[list[str]], int]:
    module_name, _, function = target.partition(":")
    module = importlib.import_module(module_name)
    run: Callable[[list[str]], int] = getattr(module, function)
    return run


def _dispatch(name: str, argv: list[str]) -> int:
    target = COMMANDS.get(name) or HIDDEN[name]
    return _load(target)(argv)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    entry = parse_entry(args)
    out, err = sys.stdout, sys.stderr
    if "version" in entry.flags:
        out.write(f"{CLI_VERSION}\n")
        return 0
    topic: str | None = None
    wants_help = False
    if entry.command == "help":
        wants_help = True
        topic = entry.positionals[1] if len(entry.positionals) > 1 else None
    elif entry.command is None and "help" in entry.flags:
        wants_help = True
        value = entry.flags["help"]
        topic = value if isinstance(value, str) else None
    if wants_help:
        if topic is None:
            out.write(overview())
            return 0
        if topic not in COMMANDS:
            err.write(f'pix3: unknown command "{topic}".\n\n{overview()}')
            return 1
        return _dispatch(topic, ["--help"])
    if entry.command is None:
        out.write(overview())
        return 1
    if entry.command not in COMMANDS and entry.command not in HIDDEN:
        err.write(f'pix3: unknown command "{entry.command}".\n\n{overview()}')
        return 1
    try:
        code = _dispatch(entry.command, entry.command_argv)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the reference's contract: any uncaught error is one line, exit 1
        err.write(f"pix3: {exc}\n")
        return 1
    return code if code >= 0 else 0
