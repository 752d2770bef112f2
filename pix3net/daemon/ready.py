"""Readiness over an inherited pipe: a daemon `pix3 editor` starts says "ready" the moment it is
(docs/editor.md, "Cold start and reuse (performance)").

The parent makes a pipe and hands the write end to the child, naming it in ``PIX3_READY_FD``. The
child takes it first thing (:func:`take`: the variable is removed and the descriptor made
close-on-exec, so neither Chrome nor Vite inherits it), writes one byte once its record is written
and it answers (:func:`say_ready`), and closes it. The parent sleeps in ``select`` on the read end:
it wakes at once on the byte, and at once on end-of-file when the child died before it was ready,
instead of finding either out at its next poll. The parent still checks the record and probes the
port itself; the pipe only says when to look. Standard library only: the editor and both daemons
use it before anything heavy is imported.
"""

from __future__ import annotations

import contextlib
import os
import select
import stat
from collections.abc import MutableMapping

ENV = "PIX3_READY_FD"
READY = b"r"


def take(env: MutableMapping[str, str] = os.environ) -> int | None:
    """The child's side: the write end named in ``PIX3_READY_FD``, close-on-exec from now on; None
    when the variable is absent or does not name a pipe of ours (then nobody listens)."""
    value = env.pop(ENV, None)
    if value is None or not value.isdigit():
        return None
    fd = int(value)
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
        os.set_inheritable(fd, False)
    except OSError:
        return None
    return fd


def say_ready(fd: int | None) -> None:
    """The child is ready: one byte, and the pipe is closed (a parent gone already changes nothing)."""
    if fd is None:
        return
    with contextlib.suppress(OSError):
        os.write(fd, READY)
    with contextlib.suppress(OSError):
        os.close(fd)


class Pipe:
    """The parent's side of one child's readiness pipe."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()  # both close-on-exec (PEP 446)
        self.heard = False  # the byte, or end-of-file: the child is ready or gone

    def child_env(self, env: MutableMapping[str, str]) -> None:
        env[ENV] = str(self.write_fd)

    def spawned(self) -> None:
        """After the spawn: only the child holds the write end now, so its death is end-of-file here."""
        with contextlib.suppress(OSError):
            os.close(self.write_fd)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.read_fd)
        self.heard = True

    def hear(self) -> None:
        """The read end is readable: take the byte (or the end) so it is not seen again."""
        with contextlib.suppress(OSError):
            os.read(self.read_fd, 1)
        self.close()


def wait(pipes: list[Pipe | None], timeout: float) -> None:
    """Sleep up to ``timeout`` seconds, less when one of ``pipes`` has news (it is then heard)."""
    live = {pipe.read_fd: pipe for pipe in pipes if pipe is not None and not pipe.heard}
    if not live:
        select.select([], [], [], timeout)
        return
    readable, _, _ = select.select(list(live), [], [], timeout)
    for fd in readable:
        live[fd].hear()
