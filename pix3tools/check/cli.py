"""`pix3 check [--json] [--no-hydrate] [--offline] [--no-sync] [--project <dir>]` (spec/tools.md §1.1)."""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pix3net.cli.usage import command_usage
from pix3net.home import PROJECT_FILE, pix3_home
from pix3tools._argv import option_value
from pix3tools._project import lookup_project


class _ArgError(Exception):
    pass


def _parse(argv: list[str]) -> tuple[dict[str, bool], str | None, bool]:
    flags = {"json": False, "no-hydrate": False, "offline": False, "no-sync": False}
    project: str | None = None
    wants_help = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--help", "-h"):
            wants_help = True
        elif arg.startswith("--") and arg[2:] in flags:
            flags[arg[2:]] = True
        elif arg.partition("=")[0] == "--project":
            # As validate: `--project --json` is a missing folder, not a folder named "--json".
            project, i = option_value(argv, i, stop="-", empty=False)
            if project is None:
                raise _ArgError("--project needs a folder")
            continue
        else:
            raise _ArgError(f"unknown argument {arg}")
        i += 1
    return flags, project, wants_help


def validate_project(root: Path, hydrate: bool) -> Mapping[str, Any]:
    from pix3tools.validate import run_validate

    report: Mapping[str, Any] = run_validate(root, None, hydrate=hydrate).to_json()
    return report


def _sync(root: Path, no_sync: bool) -> Any:
    from pix3net.sync import sync_editor

    return sync_editor(root, no_sync=no_sync)


def main(argv: list[str]) -> int:
    from pix3tools.check._codes import codes_help

    usage = command_usage("check")
    try:
        flags, project, wants_help = _parse(argv)
    except _ArgError as error:
        sys.stderr.write(f"pix3 check: {error}\n\n{usage}")
        return 2
    if wants_help:
        sys.stdout.write(usage + codes_help())
        return 0
    lookup = lookup_project(Path.cwd(), project)
    root = lookup.root
    if root is None:
        sys.stderr.write(
            f"pix3 check: no {PROJECT_FILE} in {lookup.where}. Run it inside a Pix3 project, or pass --project <dir>.\n"
        )
        return 2

    from pix3tools.check._run import CheckOptions, human_report, run_check

    options = CheckOptions(hydrate=not flags["no-hydrate"], offline=flags["offline"], no_sync=flags["no-sync"])
    report = run_check(root, options, home=pix3_home(), validate=validate_project, sync=_sync)
    if flags["json"]:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(human_report(report))
    # The process ends next. Frozen objects are spared the collections the interpreter runs as it
    # exits: with validate's modules loaded those took 10–25 ms, after tsc was done (docs/check.md).
    gc.freeze()
    return 0 if report["ok"] else 1
