"""Whether a process id names a live process: one answer for every daemon record and lock we read."""

from __future__ import annotations

import os

__all__ = ["pid_alive"]


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
