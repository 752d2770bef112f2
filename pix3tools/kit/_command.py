"""The `pix3 kit` command (spec/cli.md §4.1; the seed README: an unknown option is exit 2)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pix3net.home import no_project_message
from pix3tools._argv import option_value
from pix3tools._project import lookup_project

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class UsageError(ValueError):
    pass


@dataclass
class KitArgs:
    update: bool = False
    migrate: bool = False
    project: str | None = None
    json: bool = False
    help: bool = False


def parse_args(argv: list[str]) -> KitArgs:
    args = KitArgs()
    if "--help" in argv or "-h" in argv:
        args.help = True
        return args
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--update":
            args.update = True
        elif token == "--migrate":
            args.migrate = True
        elif token == "--json":
            args.json = True
        elif token.partition("=")[0] == "--project":
            args.project, i = option_value(argv, i, stop="-", empty=False)
            if args.project is None:
                raise UsageError("--project needs a directory")
            continue
        elif token.startswith("-"):
            raise UsageError(f'unknown option "{token}"')
        else:
            raise UsageError(f'kit takes no argument, not "{token}"')
        i += 1
    return args


def run(argv: list[str], *, cwd: Path, out: TextIO, err: TextIO) -> int:
    from pix3net.cli.usage import command_usage, usage_error

    try:
        args = parse_args(argv)
    except UsageError as exc:
        err.write(usage_error("kit", str(exc)))
        return EXIT_USAGE
    if args.help:
        out.write(command_usage("kit"))
        return EXIT_OK
    lookup = lookup_project(cwd, args.project)
    root = lookup.root
    if root is None:
        err.write(f"pix3 kit: {no_project_message(lookup.start, explicit=lookup.explicit)}\n")
        return EXIT_USAGE
    from pix3tools.kit._api import install, migrate
    from pix3tools.kit._install import KitError
    from pix3tools.kit._writes import WriteError

    try:
        text = (
            migrate(root, as_json=args.json) if args.migrate else install(root, update=args.update, as_json=args.json)
        )
    except (KitError, WriteError) as exc:
        err.write(f"pix3 kit: {exc}\n")
        return EXIT_FAILED
    out.write(text)
    return EXIT_OK


def main(argv: list[str]) -> int:
    return run(argv, cwd=Path.cwd(), out=sys.stdout, err=sys.stderr)
