"""CPU time a measured run used, from /proc (Linux), and the speed-up the cores allow.

What a run costs is counted over process trees: each root (a daemon the run talks to: the
Chrome owner with Chrome below it, the dev server) and every process below it, plus the
processes this one started and waited for (the measured command). A process counts its own
user + system time (``utime`` + ``stime``, all its threads) and the time of the children it has
reaped (``cutime`` + ``cstime``, which the kernel adds to the parent at ``wait``, with their own
reaped children). So a renderer Chrome started and ended inside the run is counted: alive, by
its own figure; ended, in its reaper's (Chrome's zygote). The difference of two snapshots is
the run's CPU, whatever came and went between them.

A snapshot is retried while the set of processes changes under it: a child reaped between
reading it and reading its parent would be counted twice (or not at all).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pix3net.daemon.memory import PROC, process_tree

# /proc/<pid>/stat fields after ``(comm)``, counted from the state (field 3 of proc(5)).
UTIME, STIME, CUTIME, CSTIME = 11, 12, 13, 14
SNAPSHOT_TRIES = 20  # a set of processes that keeps changing this often is a fault, not a race


def stat_ticks(stat: str) -> tuple[int, int]:
    """Clock ticks of one ``/proc/<pid>/stat`` line: (its own, all threads; its reaped children's)."""
    # ``pid (comm) state …``: comm may hold spaces and parentheses, so fields start after the last ')'.
    fields = stat[stat.rfind(")") + 2 :].split()
    return int(fields[UTIME]) + int(fields[STIME]), int(fields[CUTIME]) + int(fields[CSTIME])


def _read_ticks(pid: int | str, proc: Path) -> tuple[int, int]:
    try:
        return stat_ticks((proc / str(pid) / "stat").read_text())
    except (OSError, IndexError, ValueError):
        return 0, 0  # gone between the listing and the read: the retry below sees the set change


def snapshot(roots: Iterable[int], proc: Path = PROC, me: str = "self") -> int:
    """Ticks used so far by the trees under ``roots`` and by the children ``me`` reaped."""
    roots = tuple(roots)
    for _ in range(SNAPSHOT_TRIES):
        before = {pid for root in roots for pid in process_tree(root, proc)}
        total = sum(sum(_read_ticks(pid, proc)) for pid in before) + _read_ticks(me, proc)[1]
        if {pid for root in roots for pid in process_tree(root, proc)} == before:
            return total
    raise RuntimeError(f"the processes under {roots} kept changing over {SNAPSHOT_TRIES} reads of {proc}")


def ticks_per_second() -> int:
    return os.sysconf("SC_CLK_TCK")


def usable_cores() -> int:
    """The cores this process may run on (its affinity), which a run's processes inherit."""
    return len(os.sched_getaffinity(0))


def cores_limit(wall_s: float, cpu_s: float, cores: int, workers: int) -> float:
    """The most ``workers`` side by side can speed up a run that took ``wall_s`` and ``cpu_s`` on one.

    The run's CPU cannot go faster than ``cores`` cores do it: ``cores × wall / cpu``; and never
    more than ``workers`` times.
    """
    if cpu_s <= 0:
        return float(workers)
    return min(float(workers), cores * wall_s / cpu_s)


def speedup_target(limit: float, wanted: float, share: float) -> float:
    """``wanted``, or ``share`` of the physical limit when the cores allow less."""
    return min(wanted, share * limit)
