"""`pix3 kit [--update] [--migrate] [--json] [--project <dir>]` (docs/kit.md).

Exit 0 done; 1 refused (the message says why); 2 a usage error or no project. An unknown option
is refused (``pix3 kit --updat`` is not a plain install).
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from pix3tools.core.argv import Option, Project, Syntax
from pix3tools.core.runner import EXIT_OK, Call, run
from pix3tools.kit import KitError, WriteError, install, migrate

__all__ = ["SYNTAX", "main"]

SYNTAX = Syntax(
    "kit",
    flags=("--update", "--migrate", "--json"),
    options=(Option("--project", missing="--project needs a directory", stop="-", empty=False),),
    too_many='kit takes no argument, not "{arg}"',
    project=Project(),
)


def main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run(SYNTAX, argv, _kit, cwd=cwd, out=out, err=err)


def _kit(call: Call) -> int:
    as_json = call.args.flag("--json")
    try:
        if call.args.flag("--migrate"):
            text = migrate(call.project, as_json=as_json)
        else:
            text = install(call.project, update=call.args.flag("--update"), as_json=as_json)
    except (KitError, WriteError) as exc:
        return call.fail(str(exc))
    call.out.write(text)
    return EXIT_OK
