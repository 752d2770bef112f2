"""`pix3 __dev-server [--project <dir>] [--port <n>]`: the hidden command `pix3 editor` starts.

Exit 0 stopped by a signal; 1 no port could be had, or the project's `.pix3` is a link (or not a
folder: nothing is written through it); 2 a usage error or no project.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from pix3tools.core.argv import Option, Project, Syntax, tcp_port
from pix3tools.core.private import Refused, private_folder
from pix3tools.core.runner import Call, run

__all__ = ["SYNTAX", "main"]

SYNTAX = Syntax(
    "__dev-server",
    options=(
        Option("--project", stop="-"),
        Option("--port", missing="--port needs a port", stop="-", convert=tcp_port),
    ),
    project=Project(),
)


def main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run(SYNTAX, argv, _serve, cwd=cwd, out=out, err=err)


def _serve(call: Call) -> int:
    from pix3net.daemon import ready
    from pix3net.devserver.front.bind import PortError, choose_sockets

    ready_fd = ready.take()  # close-on-exec from here: Vite never holds it

    try:  # dev.json, dev.log and every other file of ours go there: never through a planted link
        private_folder(call.project, create=True).close()
    except Refused as exc:
        return call.fail(str(exc))
    try:  # before trio and the server's stack load: a Chrome on its way to us waits in the backlog
        sockets = choose_sockets(call.args.get("--port", int))
    except (PortError, OSError) as exc:
        call.err.write(f"pix3 __dev-server: {exc}\n")
        return 1
    from pix3net.devserver.process import run_server

    return run_server(call.project, sockets, ready_fd)
