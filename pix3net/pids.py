"""Whether a process id names a live process: one answer for every daemon record and lock we read."""

from __future__ import annotations

import os

__all__ = ["pid_alive"]


def pid_alive(pid: int) -> bool:
    """``kill(pid, 0)``: gone is False; alive, or alive under another user (EPERM), is True."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
