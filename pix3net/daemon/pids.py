"""Processes by id: whether one is alive (one answer for every daemon record and lock we read),
which one holds a loopback port (for the sentence that says a port is taken), and a child that
dies with the thread that spawned it."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from functools import partial

__all__ = ["dies_with_us", "listening_sockets", "pid_alive", "port_holder"]

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's "st" column (<net/tcp_states.h>)
# Enough to find a holder among a desktop's processes; a port is only looked up once it failed.
_MAX_PROCESSES = 4096


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


def listening_sockets(table: str, port: int) -> list[tuple[int, int]]:
    """``(uid, inode)`` of each listening socket on ``port`` in a ``/proc/net/tcp`` or ``tcp6`` text."""
    found: list[tuple[int, int]] = []
    for line in table.splitlines()[1:]:
        # sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        fields = line.split()
        if len(fields) < 10 or fields[3] != _LISTEN:
            continue
        _, _, hex_port = fields[1].rpartition(":")
        try:
            if int(hex_port, 16) == port:
                found.append((int(fields[7]), int(fields[9])))
        except ValueError:
            continue
    return found


def port_holder(port: int, proc: str = "/proc") -> str:
    """Who listens on ``port``: ``pid 1234, python3`` when /proc shows it (our own user's
    processes), ``a process of user bob`` when only the socket's owner is visible, "" when
    /proc says nothing (not Linux, or the port is free)."""
    sockets: list[tuple[int, int]] = []
    for name in ("tcp", "tcp6"):
        try:
            with open(f"{proc}/net/{name}", encoding="ascii", errors="replace") as handle:
                sockets += listening_sockets(handle.read(), port)
        except OSError:
            continue
    if not sockets:
        return ""
    wanted = {f"socket:[{inode}]" for _, inode in sockets}
    try:
        pids = [int(entry) for entry in os.listdir(proc) if entry.isdigit()][:_MAX_PROCESSES]
    except OSError:
        pids = []
    for pid in pids:
        try:
            links = os.listdir(f"{proc}/{pid}/fd")
            if any(os.readlink(f"{proc}/{pid}/fd/{fd}") in wanted for fd in links):
                with open(f"{proc}/{pid}/comm", encoding="utf-8", errors="replace") as handle:
                    return f"pid {pid}, {handle.read().strip()}"
        except OSError:  # another user's process, or gone meanwhile
            continue
    uid = sockets[0][0]
    try:
        import pwd

        return f"a process of user {pwd.getpwuid(uid).pw_name}"
    except (ImportError, KeyError):
        return f"a process of uid {uid}"
