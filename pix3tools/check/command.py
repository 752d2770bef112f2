"""`pix3 check [--json] [--no-hydrate] [--offline] [--no-sync] [--project <dir>]` (docs/check.md).

Exit 0 no errors (warnings allowed), 1 errors, 2 could not run (a usage error, no project).
The flush client that asks a running editor to write its unsaved scenes belongs to the network
side: the command line passes it in as ``sync`` (without one, check reads the disk as it is).
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import TextIO

from pix3tools.check._begin import CheckOptions, SyncFn, begin_check
from pix3tools.check._codes import codes_help
from pix3tools.core import pix3_home
from pix3tools.core.argv import Option, Project, Syntax
from pix3tools.core.runner import Call, run

__all__ = ["SYNTAX", "main"]


SYNTAX = Syntax(
    "check",
    flags=("--json", "--no-hydrate", "--offline", "--no-sync"),
    # As validate: `--project --json` is a missing folder, not a folder named "--json".
    options=(Option("--project", missing="--project needs a folder", stop="-", empty=False),),
    unknown="unknown argument {arg}",
    help="parsed",
    project=Project(),
    more_help=codes_help,
)


def main(
    argv: list[str],
    *,
    sync: SyncFn | None = None,
    cwd: Path | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    return run(SYNTAX, argv, lambda call: _check(call, sync), cwd=cwd, out=out, err=err)


def _check(call: Call, sync: SyncFn | None) -> int:
    args = call.args
    options = CheckOptions(
        hydrate=not args.flag("--no-hydrate"), offline=args.flag("--offline"), no_sync=args.flag("--no-sync")
    )
    begun = begin_check(call.project, options, home=pix3_home(), sync=sync or _no_flush)
    # tsc is running: only now the rest of check (validate, the scene model, the chain scanner).
    from pix3tools.check._run import finish_check, human_report, validate_project

    report = finish_check(begun, validate_project)
    call.out.write(
        json.dumps(report, indent=2, ensure_ascii=False) + "\n" if args.flag("--json") else human_report(report)
    )
    # The process ends next. Frozen objects are spared the collections the interpreter runs as it
    # exits: with validate's modules loaded those took 10–25 ms, after tsc was done (docs/check.md).
    gc.freeze()
    return 0 if report["ok"] else 1


def _no_flush(root: Path, no_sync: bool) -> None:
    """No flush client: nothing to ask, the disk is read as it is."""
    return None
