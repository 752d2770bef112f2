"""The `pix3` entry: the global rules (version, help, unknown commands) and dispatch (docs/cli.md).

The entry's pre-parse is one more syntax of the one parser (``ENTRY``): options it does not know
are taken anyway, so ``--help new`` names a topic and ``-v`` anywhere wins. A command then gets
only the tokens after its own name.

Nothing heavy is imported here: a command's module loads only when that command runs, so
``pix3 --version`` starts as fast as Python does.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from pix3tools.core.argv import Args, Syntax, parse
from pix3tools.core.commandtable import COMMANDS, entry_module
from pix3tools.core.usage import overview
from pix3tools.core.version import CLI_VERSION

__all__ = ["ENTRY", "main"]

ENTRY = Syntax(
    "pix3",
    words=None,
    dash_words=True,
    help="none",
    open=True,
    aliases=(("-v", "--version"), ("-h", "--help")),
)


def _given(entry: Args, name: str) -> bool:
    return entry.flag(name) or name in entry.values


def _dispatch(name: str, argv: list[str]) -> int:
    module_name = entry_module(name)
    assert module_name is not None
    main: Callable[..., int] = importlib.import_module(module_name).main
    if name == "check":
        # check flushes a running editor first: the flush client is the network side's, passed in here.
        from pix3net.clients.flush import flush_editor

        return main(argv, sync=lambda root, no_sync: flush_editor(root, no_sync=no_sync))
    return main(argv)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    entry = parse(ENTRY, args)
    command = entry.words[0] if entry.words else None
    out, err = sys.stdout, sys.stderr
    if _given(entry, "--version"):
        out.write(f"{CLI_VERSION}\n")
        return 0
    topic: str | None = None
    wants_help = False
    if command == "help":
        wants_help = True
        topic = entry.words[1] if len(entry.words) > 1 else None
    elif command is None and _given(entry, "--help"):
        wants_help = True
        topic = entry.text("--help")
    if wants_help:
        if topic is None:
            out.write(overview())
            return 0
        if topic not in COMMANDS:
            err.write(f'pix3: unknown command "{topic}".\n\n{overview()}')
            return 1
        return _dispatch(topic, ["--help"])
    if command is None:
        out.write(overview())
        return 1
    if entry_module(command) is None:
        err.write(f'pix3: unknown command "{command}".\n\n{overview()}')
        return 1
    try:
        code = _dispatch(command, args[args.index(command) + 1 :])
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the reference's contract: any uncaught error is one line, exit 1
        err.write(f"pix3: {exc}\n")
        return 1
    return code if code >= 0 else 0
