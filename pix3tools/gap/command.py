"""`pix3 gap "<what was missing>" [--kind …] [--detail …] [--context …] [--agent …] [--list] [--json]
[--project <dir>]`: record or list (docs/gap.md).

Exit codes as for every command: a usage error (unknown option,
missing value, bad kind, a second summary, an empty or too long field) and "no project" exit 2;
a record that cannot be written (an unwritable ``.pix3/``) exits 1. The valued options take the
next token whatever it is, and have no ``=`` form (the reference's parser).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from pix3tools.core.argv import Option, Project, Syntax, UsageError
from pix3tools.core.private import Refused
from pix3tools.core.runner import EXIT_FAILED, EXIT_OK, EXIT_USAGE, Call, run
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

__all__ = ["SYNTAX", "main"]


def _kind(name: str, value: str) -> str:
    if value not in KINDS:
        raise UsageError(f'{name} is one of {", ".join(KINDS)}, not "{value}"')
    return value


def _valued(name: str) -> Option:
    return Option(name, stop=None, equals=False, convert=_kind if name == "--kind" else None)


SYNTAX = Syntax(
    "gap",
    flags=("--list", "--json"),
    options=tuple(_valued(name) for name in ("--kind", "--detail", "--context", "--agent", "--project")),
    words=1,
    too_many='one summary only — quote it ("…"); put the rest in --detail',
    dash_words=True,
    # The reference says "or any parent folder" also after --project (docs/gap.md).
    project=Project(parent_hint=True),
)


def main(
    argv: list[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    now: Callable[[], datetime] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    def body(call: Call) -> int:
        return _gap(call, os.environ if env is None else env, now or (lambda: datetime.now(UTC)))

    return run(SYNTAX, argv, body, cwd=cwd, out=out, err=err)


def _gap(call: Call, env: Mapping[str, str], now: Callable[[], datetime]) -> int:
    args, root, out, err = call.args, call.project, call.out, call.err
    if args.flag("--list"):
        try:
            records = read_records(root)
        except Refused as exc:
            err.write(f"pix3 gap: {exc}\n")
            return EXIT_FAILED
        if args.flag("--json"):
            out.write(json.dumps(records, ensure_ascii=False, indent=2) + "\n")
        elif not records:
            out.write(f"No gaps recorded ({GAPS_FILE}).\n")
        else:
            out.write("".join(list_line(record) + "\n" for record in records))
        return EXIT_OK
    given_agent = args.text("--agent")
    agent = given_agent if given_agent is not None else detect_agent(env)
    try:
        record = build_record(
            now=now(),
            kind=args.text("--kind") or "other",
            summary=args.words[0] if args.words else "",
            detail=args.text("--detail"),
            context=args.text("--context"),
            agent=agent or None,
        )
    except GapError as exc:
        err.write(f"pix3 gap: {exc}\n")
        return EXIT_USAGE
    try:
        append_record(root, record)
    except Refused as exc:
        err.write(f"pix3 gap: nothing was recorded: {exc}\n")
        return EXIT_FAILED
    except OSError as exc:
        err.write(f"pix3 gap: could not append to {root / GAPS_FILE} ({exc.strerror or exc}); nothing was recorded.\n")
        return EXIT_FAILED
    if args.flag("--json"):
        out.write(serialise(record) + "\n")
    else:
        out.write(f"Recorded in {GAPS_FILE}: [{record['kind']}] {record['summary']}\n")
    return EXIT_OK
