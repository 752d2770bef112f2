"""Checking scenes in more than one process: the whole-project run of ``pix3 validate`` on a
machine with a second core.

Each scene's level-1 check is independent of the others, so the targets are cut into contiguous
runs of about equal bytes; the calling process checks the first run and a forked child checks each
other run and sends its result back pickled through a pipe. The results are put back in target
order, so the report is the one a single process writes (tests/unit/test_validate_workers.py
compares them). A child that fails in any way has its run checked again by the caller.

Only a caller that knows it is single-threaded may ask for workers (the command line does; the
dev server, which runs validate in a worker thread of a trio process, does not): ``fork`` copies
one thread, and a lock held by another would stay held in the child.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

__all__ = ["MIN_PARALLEL_BYTES", "available_cores", "in_workers", "split_by_size"]

# Below this much YAML a fork, a pickle and a pipe cost more than the second core saves (a fork
# of the loaded interpreter and the round trip take a few milliseconds; 1 MB takes ~50 ms).
MIN_PARALLEL_BYTES = 1024 * 1024

T = TypeVar("T")


def available_cores() -> int:
    """The cores this process may run on (its affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def split_by_size(root: Path, targets: Sequence[str], parts: int) -> list[list[str]]:
    """``targets`` cut into at most ``parts`` contiguous runs of about equal bytes; one run when
    there is too little to share."""
    sizes = []
    for rel in targets:
        try:
            sizes.append(os.stat(root / rel).st_size)
        except OSError:
            sizes.append(0)
    total = sum(sizes)
    if parts < 2 or total < MIN_PARALLEL_BYTES or len(targets) < parts:
        return [list(targets)]
    runs: list[list[str]] = [[]]
    done = 0
    for rel, size in zip(targets, sizes, strict=True):
        if done >= total * len(runs) / parts and len(runs) < parts:
            runs.append([])
        runs[-1].append(rel)
        done += size
    return [run for run in runs if run]


def in_workers(work: Callable[[list[str]], T], runs: list[list[str]]) -> list[T]:
    """``work(run)`` for every run, the first here and each other in a forked child; results in
    run order."""
    children: list[tuple[int, int] | None] = []
    for run in runs[1:]:
        children.append(_fork(work, run))
    results: list[T] = [work(runs[0])]
    for run, child in zip(runs[1:], children, strict=True):
        found = _collect(child) if child is not None else None
        results.append(cast(T, found[0]) if found is not None else work(run))
    return results


def _fork(work: Callable[[list[str]], T], run: list[str]) -> tuple[int, int] | None:
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: do the run, send it, leave without running the parent's exit code
        code = 1
        try:
            os.close(read_end)
            data = pickle.dumps(work(run), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def _collect(child: tuple[int, int]) -> tuple[Any] | None:
    """The child's result (in a 1-tuple), or None when it failed."""
    pid, read_end = child
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    try:
        return (pickle.loads(data),)
    except Exception:  # a truncated answer: check the run here instead
        return None
