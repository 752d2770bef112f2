"""The resident memory of Chrome's processes, from /proc (Linux): the browser process and every
process below it (renderers, GPU, utility). Standard library only: `pix3 editor --status` reads
it without trio (docs/editor.md, "Status")."""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def _parents(proc: Path) -> dict[int, int]:
    """pid → parent pid of every process we may read."""
    parents: dict[int, int] = {}
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            stat = (proc / entry.name / "stat").read_text()
        except OSError:
            continue
        # ``pid (comm) state ppid …``: comm may hold spaces and parentheses, so read after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[1].isdigit():
            parents[int(entry.name)] = int(fields[1])
    return parents


def process_tree(pid: int, proc: Path = PROC) -> list[int]:
    """``pid`` and its descendants (empty when it is not running or /proc is not there)."""
    if not (proc / str(pid)).is_dir():
        return []
    children: dict[int, list[int]] = {}
    for child, parent in _parents(proc).items():
        children.setdefault(parent, []).append(child)
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo.extend(children.get(current, ()))
    return sorted(tree)


def resident_bytes(pids: list[int], proc: Path = PROC) -> int:
    """The sum of the processes' resident set (``VmRSS``); processes gone meanwhile count 0."""
    total = 0
    for pid in pids:
        try:
            status = (proc / str(pid) / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
                break
    return total


def chrome_memory(chrome_pid: int, proc: Path = PROC) -> tuple[int, int] | None:
    """(resident bytes, process count) of Chrome's process tree; None when it cannot be read."""
    tree = process_tree(chrome_pid, proc)
    if not tree:
        return None
    return resident_bytes(tree, proc), len(tree)
