"""Processes by id: whether one is alive (one answer for every daemon record and lock we read),
and a child that dies with the thread that spawned it."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from functools import partial

__all__ = ["dies_with_us", "pid_alive"]

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def pid_alive(pid: int) -> bool:
    """``kill(pid, 0)``: gone is False; alive, or alive under another user (EPERM), is True.

    A zombie (dead, not reaped yet by its parent) takes ``kill`` like a live process but runs
    nothing: it is False (an owner killed with SIGKILL stays one until init reaps it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:  # no /proc (not Linux), or it went meanwhile
        return False
    # "pid (command) state …": the command may hold spaces and parentheses, the state follows the last ")"
    return stat.rpartition(b")")[2][1:2] == b"Z"


def dies_with_us() -> Callable[[], None] | None:
    """A ``preexec_fn`` (Linux) that has the child SIGKILLed when the *thread* that spawns it ends
    (``PR_SET_PDEATHSIG``), even by SIGKILL; None elsewhere. Spawn from a thread that lives as
    long as the child should (the main thread: trio's spawner uses a worker thread that ends).
    SIGKILL: the kernel sends it once per thread of the child that inherited it, and a second
    SIGTERM would cut a server's own shutdown short anyway."""
    if sys.platform != "linux":
        return None
    import ctypes  # here, not in the child: nothing is imported between fork and exec

    return partial(_die_with_parent, os.getpid(), ctypes.CDLL(None, use_errno=True).prctl)


def _die_with_parent(parent: int, prctl: Callable[..., int]) -> None:
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the call: nobody would signal
        os._exit(1)
