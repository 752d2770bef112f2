"""`pix3 __chrome-owner '<options JSON>'`: the hidden command `pix3 editor` starts detached.

Its one argument is a JSON document written by ``pix3 editor`` (``OwnerOptions.to_argv``), not
options for a person: it has no usage text, and an unusable one is logged as ``bad options: …`` on
stdout (the owner's log), exit 2 (docs/chrome-owner.md).
"""

from __future__ import annotations

import os
import sys

from pix3net.chrome.owner import EXIT_BAD_OPTIONS, make_log, own_chrome, parse_options
from pix3tools.core import pix3_home

__all__ = ["main"]


def main(argv: list[str]) -> int:
    log = make_log(sys.stdout, os.getpid())
    options = parse_options(argv)
    if options is None:
        log(f"bad options: {argv[0] if argv else '(none)'}")
        return EXIT_BAD_OPTIONS
    return own_chrome(options, pix3_home(os.environ), log)
