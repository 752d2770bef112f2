"""The owner's first steps, standard library only: its options, its log, and Chrome's launch.

``pix3 __chrome-owner`` launches Chrome before it imports trio and the proxy (process.py), so
Chrome starts while the rest of the owner loads: on the cold `pix3 editor` this is the path
everything waits for (docs/chrome-owner.md, "The owner process", steps 1–2).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

from pix3net.owner.chrome.discover import chrome_problem
from pix3net.owner.chrome.spawn import RawChrome, chrome_args, needs_no_sandbox, spawn_raw
from pix3net.owner.options import OwnerOptions
from pix3net.wire.token import ensure_token
from pix3tools.core.timestamps import iso_time

EXIT_OK, EXIT_PROXY_FAILED, EXIT_BAD_OPTIONS, EXIT_NOT_READY, EXIT_CANNOT_LISTEN = 0, 1, 2, 3, 4

Log = Callable[[str], None]


class Out(Protocol):
    """Where log lines go: stdout, or the rotating log (``pix3net.daemon.logfile``)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


def parse_options(argv: list[str]) -> OwnerOptions | None:
    """The options JSON of ``argv[0]``, or None when it is not usable (→ exit 2).

    The reference checks ``chrome`` is a string and ``port`` a number; we also need ``profile``
    and ``url`` as strings and ``port`` an integer 0–65535 to build a working launch.
    """
    if not argv:
        return None
    try:
        data = json.loads(argv[0])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    chrome, port, profile, url = (data.get(k) for k in ("chrome", "port", "profile", "url"))
    if not isinstance(chrome, str) or not isinstance(profile, str) or not isinstance(url, str):
        return None
    if not isinstance(port, int | float) or isinstance(port, bool) or port != int(port) or not 0 <= port <= 65535:
        return None
    return OwnerOptions(chrome=chrome, port=int(port), profile=profile, url=url, headless=data.get("headless") is True)


def make_log(out: Out, pid: int) -> Log:
    """Log lines ``<ISO UTC ms>Z [owner <pid>] <text>`` on ``out`` (the owner's stdout = chrome-owner.log)."""

    def log(text: str) -> None:
        out.write(f"{iso_time()} [owner {pid}] {text}\n")
        out.flush()

    return log


def launch(options: OwnerOptions, home: Path, log: Log, env: Mapping[str, str] | None = None) -> RawChrome | int:
    """Steps 1–2: the token file, then Chrome started on the pipe; or :data:`EXIT_NOT_READY` after
    logging why a binary that cannot be started could not (its cause, last)."""
    env = os.environ if env is None else env
    ensure_token(home)
    no_sandbox = needs_no_sandbox()
    args = chrome_args(options.profile, options.url, headless=options.headless, no_sandbox=no_sandbox)
    if no_sandbox:
        log("running as root: Chrome gets --no-sandbox (its sandbox cannot start as root)")
    log(f"launching {options.chrome} {' '.join(args)}")
    try:
        return spawn_raw(options.chrome, args)
    except OSError as exc:
        problem = chrome_problem(options.chrome, env)
        log(problem or f"Chrome could not be started: {options.chrome}: {exc.strerror or exc}.")
        return EXIT_NOT_READY
