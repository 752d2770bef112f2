"""`pix3 __chrome-owner '<options JSON>'`: the hidden command `pix3 editor` starts detached.

Its one argument is a JSON document written by ``pix3 editor`` (``OwnerOptions.to_argv``), not
options for a person: it has no usage text, and an unusable one is logged as ``bad options: …`` on
stdout (the owner's log), exit 2 (docs/chrome-owner.md).
"""

from __future__ import annotations

import os
import sys

from pix3net.daemon import ready
from pix3net.daemon.chromerecord import LOG_FILE
from pix3net.daemon.logfile import follow_stdout
from pix3net.owner.start import EXIT_BAD_OPTIONS, launch, make_log, parse_options
from pix3tools.core import pix3_home

__all__ = ["main"]


def main(argv: list[str]) -> int:
    ready_fd = ready.take()  # before Chrome is spawned: close-on-exec, so Chrome never holds it
    home = pix3_home(os.environ)
    # stdout is chrome-owner.log when `pix3 editor` started us: that file rotates at its bound
    rotating = follow_stdout(home, LOG_FILE)
    log = make_log(rotating.text() if rotating is not None else sys.stdout, os.getpid())
    options = parse_options(argv)
    if options is None:
        log(f"bad options: {argv[0] if argv else '(none)'}")
        return EXIT_BAD_OPTIONS
    # Chrome first: it starts while trio and the proxy load (docs/chrome-owner.md, "The owner process").
    launched = launch(options, home, log)
    if isinstance(launched, int):
        return launched
    # The proxy loads too while Chrome starts: imported once Chrome had answered, it was on the way
    # of every cold start (the editor waits for the proxy's proof).
    import pix3net.owner.proxy.transport  # noqa: F401
    from pix3net.owner.process import own_chrome

    return own_chrome(options, home, log, launched, ready_fd)
