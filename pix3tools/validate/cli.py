"""``pix3 validate [paths…] [--json] [--no-hydrate] [--project <dir>]`` (spec/validate.md §3)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pix3net.cli.usage import COMMAND_USAGE
from pix3tools._argv import option_value
from pix3tools.project import MANIFEST
from pix3tools.validate._run import ValidateUsageError, run_validate
from pix3tools.validate.codes import codes_help

__all__ = ["USAGE", "main"]

USAGE = COMMAND_USAGE["validate"]


def _find_root(start: Path) -> Path | None:
    here = Path(os.path.abspath(start))
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        if (folder / MANIFEST).is_file():
            return folder
    return None


def _usage_error(message: str) -> int:
    sys.stderr.write(f"pix3 validate: {message}\n\n{USAGE}")
    return 2


def main(argv: list[str]) -> int:
    as_json = False
    hydrate = True
    project: str | None = None
    paths: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--help", "-h"):
            sys.stdout.write(USAGE + "\n" + codes_help())
            return 0
        if arg == "--json":
            as_json = True
        elif arg == "--no-hydrate":
            hydrate = False
        elif arg.partition("=")[0] == "--project":
            project, i = option_value(argv, i, stop="-", empty=False)
            if project is None:
                return _usage_error("--project needs a folder")
            continue
        elif arg.startswith("-") and arg != "-":
            return _usage_error(f"unknown option {arg}")
        else:
            paths.append(arg)
        i += 1
    cwd = Path.cwd()
    if project is not None:
        root = Path(os.path.abspath(cwd / project))
        if not (root / MANIFEST).is_file():
            sys.stderr.write(
                f"pix3 validate: no {MANIFEST} in {root}. Run it inside a Pix3 project, or pass --project <dir>.\n"
            )
            return 2
    else:
        start = Path(os.path.abspath(cwd / paths[0])) if paths else cwd
        found = _find_root(start)
        if found is None:
            where = start if start.is_dir() else start.parent
            sys.stderr.write(
                f"pix3 validate: no {MANIFEST} in {where} or any parent folder. Run it inside a Pix3 project,"
                " or pass --project <dir>.\n"
            )
            return 2
        root = found
    try:
        report = run_validate(root, paths or None, hydrate=hydrate, cwd=cwd)
    except ValidateUsageError as exc:
        return _usage_error(str(exc))
    sys.stdout.write(report.json_text() if as_json else report.human_text())
    return report.exit_code
