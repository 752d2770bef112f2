"""The `pix3 gap` command: its own argv parser, then record or list (spec/cli.md §3).

Exit codes follow the seed README where it says more than cli.md: a usage error (unknown option,
missing value, bad kind, a second summary, an empty or too long field) and "no project" exit 2;
a record that cannot be written (an unwritable ``.pix3/``) exits 1.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from pix3net.home import PROJECT_FILE
from pix3tools._project import lookup_project
from pix3tools.gap._record import (
    GAPS_FILE,
    KINDS,
    GapError,
    append_record,
    build_record,
    detect_agent,
    list_line,
    read_records,
    serialise,
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

# Flags that take the next token whatever it is (it may start with `--`): spec/cli.md §7.12.
_VALUED = ("--kind", "--detail", "--context", "--agent", "--project")


class UsageError(ValueError):
    pass


@dataclass
class GapArgs:
    summary: str | None = None
    kind: str = "other"
    detail: str | None = None
    context: str | None = None
    agent: str | None = None
    project: str | None = None
    list: bool = False
    json: bool = False
    help: bool = False


def parse_args(argv: list[str]) -> GapArgs:
    args = GapArgs()
    if "--help" in argv or "-h" in argv:
        args.help = True
        return args
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in _VALUED:
            if i + 1 >= len(argv):
                raise UsageError(f"{token} needs a value")
            value = argv[i + 1]
            i += 2
            if token == "--kind":
                if value not in KINDS:
                    raise UsageError(f'--kind is one of {", ".join(KINDS)}, not "{value}"')
                args.kind = value
            else:
                setattr(args, token[2:], value)
            continue
        if token == "--list":
            args.list = True
        elif token == "--json":
            args.json = True
        elif token.startswith("--"):
            name, eq, value = token.partition("=")
            # The reference has no `--kind=node` form; say the spelling it takes.
            hint = f" (write {name} {value})" if eq and name in _VALUED else ""
            raise UsageError(f'unknown option "{token}"{hint}')
        elif args.summary is None:
            args.summary = token
        else:
            raise UsageError('one summary only — quote it ("…"); put the rest in --detail')
        i += 1
    return args


def run(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    now: Callable[[], datetime],
    out: TextIO,
    err: TextIO,
) -> int:
    from pix3net.cli.usage import command_usage, usage_error

    try:
        args = parse_args(argv)
    except UsageError as exc:
        err.write(usage_error("gap", str(exc)))
        return EXIT_USAGE
    if args.help:
        out.write(command_usage("gap"))
        return EXIT_OK
    lookup = lookup_project(cwd, args.project)
    root = lookup.root
    if root is None:
        err.write(
            f"pix3 gap: no {PROJECT_FILE} found in {lookup.start} or any parent folder."
            " Run it inside a Pix3 project, or pass --project <dir>.\n"
        )
        return EXIT_USAGE
    if args.list:
        records = read_records(root)
        if args.json:
            out.write(json.dumps(records, ensure_ascii=False, indent=2) + "\n")
        elif not records:
            out.write(f"No gaps recorded ({GAPS_FILE}).\n")
        else:
            out.write("".join(list_line(record) + "\n" for record in records))
        return EXIT_OK
    agent = args.agent if args.agent is not None else detect_agent(env)
    try:
        record = build_record(
            now=now(),
            kind=args.kind,
            summary=args.summary or "",
            detail=args.detail,
            context=args.context,
            agent=agent or None,
        )
    except GapError as exc:
        err.write(f"pix3 gap: {exc}\n")
        return EXIT_USAGE
    try:
        append_record(root, record)
    except OSError as exc:
        err.write(f"pix3 gap: could not append to {root / GAPS_FILE} ({exc.strerror or exc}); nothing was recorded.\n")
        return EXIT_FAILED
    if args.json:
        out.write(serialise(record) + "\n")
    else:
        out.write(f"Recorded in {GAPS_FILE}: [{record['kind']}] {record['summary']}\n")
    return EXIT_OK


def main(argv: list[str]) -> int:
    return run(argv, cwd=Path.cwd(), env=os.environ, now=lambda: datetime.now(UTC), out=sys.stdout, err=sys.stderr)
