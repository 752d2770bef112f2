"""``pix3 validate [paths…] [--json] [--no-hydrate] [--project <dir>]`` (docs/validate.md).

Exit 0 no errors, 1 errors, 2 could not run (a usage error, no project, a path outside it).
Without ``--project`` the project is looked up from the first path (or the current folder).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from pix3tools.core.argv import Args, Option, Project, Syntax, UsageError
from pix3tools.core.pathtest import is_dir
from pix3tools.core.runner import Call, run
from pix3tools.validate._run import ValidateUsageError, run_validate
from pix3tools.validate._workers import available_cores
from pix3tools.validate.codes import codes_help

__all__ = ["SYNTAX", "main"]


def _search_start(args: Args, cwd: Path) -> Path:
    """The first path's folder (a file's parent), else the current folder."""
    if not args.words:
        return cwd
    start = Path(os.path.abspath(cwd / args.words[0]))
    return start if is_dir(start) else start.parent


SYNTAX = Syntax(
    "validate",
    flags=("--json", "--no-hydrate"),
    options=(Option("--project", missing="--project needs a folder", stop="-", empty=False),),
    words=None,
    unknown="unknown option {arg}",
    help="reached",
    project=Project(start=_search_start),
    more_help=lambda: "\n" + codes_help(),
)


def main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run(SYNTAX, argv, _validate, cwd=cwd, out=out, err=err)


def _validate(call: Call) -> int:
    paths = list(call.args.words)
    try:
        report = run_validate(
            call.project,
            paths or None,
            hydrate=not call.args.flag("--no-hydrate"),
            cwd=call.cwd,
            workers=available_cores(),  # the command line runs single-threaded: it may fork
        )
    except ValidateUsageError as exc:
        raise UsageError(str(exc)) from None
    call.out.write(report.json_text() if call.args.flag("--json") else report.human_text())
    return report.exit_code
