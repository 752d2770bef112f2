"""Checking scenes in more than one process: the whole-project run of ``pix3 validate`` on a
machine with a second core.

Each scene's level-1 check is independent of the others. The targets are cut into many small
contiguous chunks, one ticket per chunk is put in a pipe, and the calling process and a forked
child per extra core each take the next ticket until none is left. So the work balances itself: a
process that gets less of the CPU (a busy core, a slow file) simply takes fewer chunks, and the
run ends one chunk after the last ticket is taken instead of when the slowest fixed share is done.
A child sends back what it found, per chunk, as ``marshal`` data (plain tuples: no pickle to
import, nothing to look up when it is read); the results are put back in chunk order, so the
report is the one a single process writes (tests/unit/test_validate_workers.py compares them). A
chunk whose result does not come back (a child that failed in any way) is checked again here.

The children are forked after the imports and the project walk, so they start with everything
loaded; nothing is imported or pickled to start one.

Only a caller that knows it is single-threaded may ask for workers (the command line does; the
dev server, which runs validate in a worker thread of a trio process, does not): ``fork`` copies
one thread, and a lock held by another would stay held in the child.
"""

from __future__ import annotations

import gc
import marshal
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["CHUNKS_PER_PROCESS", "MIN_PARALLEL_BYTES", "available_cores", "in_workers", "plan_chunks"]

# Below this much YAML a fork and a pipe cost more than the second core saves (a fork of the
# loaded interpreter and the round trip take a few milliseconds; 1 MB takes ~50 ms).
MIN_PARALLEL_BYTES = 1024 * 1024
# Chunks per process: enough that the last one to finish is short (a chunk of the bench's project
# is ~40 scenes, a few milliseconds), few enough that a ticket costs nothing. A ticket is one byte.
CHUNKS_PER_PROCESS = 24
_MAX_CHUNKS = 255

T = TypeVar("T")


def available_cores() -> int:
    """The cores this process may run on (its affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _enough_bytes(root: Path, targets: Sequence[str]) -> bool:
    """Whether the targets hold at least ``MIN_PARALLEL_BYTES`` (stat stops once they do)."""
    total = 0
    for rel in targets:
        if total >= MIN_PARALLEL_BYTES:
            return True
        try:
            total += os.stat(root / rel).st_size
        except OSError:
            continue
    return total >= MIN_PARALLEL_BYTES


def plan_chunks(root: Path, targets: Sequence[str], processes: int) -> list[list[str]] | None:
    """``targets`` cut into contiguous chunks for ``processes`` processes, in order; None when
    one process should do it all (one core, or too little to share)."""
    if processes < 2 or len(targets) < 2 or not _enough_bytes(root, targets):
        return None
    count = min(len(targets), processes * CHUNKS_PER_PROCESS, _MAX_CHUNKS)
    size, extra = divmod(len(targets), count)
    chunks: list[list[str]] = []
    start = 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        chunks.append(list(targets[start:end]))
        start = end
    return chunks


def in_workers(
    work: Callable[[list[str]], T],
    chunks: list[list[str]],
    processes: int,
    pack: Callable[[T], Any],
    unpack: Callable[[Any], T],
) -> list[T]:
    """``work(chunk)`` for every chunk, shared between this process and ``processes - 1`` forked
    children; results in chunk order. ``pack`` turns a result into ``marshal``-able data in a
    child, ``unpack`` turns it back here."""
    if not 0 < len(chunks) <= _MAX_CHUNKS:
        raise ValueError(f"between 1 and {_MAX_CHUNKS} chunks, not {len(chunks)}")
    try:
        tickets, feed = os.pipe()
    except OSError:
        return [work(chunk) for chunk in chunks]
    try:
        os.write(feed, bytes(range(len(chunks))))  # at most 255 bytes: one atomic write
    finally:
        os.close(feed)  # the last ticket taken, every reader sees the end of the pipe
    done: dict[int, T] = {}
    children: list[tuple[int, int]] = []
    try:
        gc.freeze()  # the children's collector leaves the shared objects (and their pages) alone
        try:
            for _ in range(processes - 1):
                child = _fork(work, chunks, tickets, pack)
                if child is not None:
                    children.append(child)
        finally:
            gc.unfreeze()
        while (ticket := _take(tickets)) is not None:
            done[ticket] = work(chunks[ticket])
    finally:
        os.close(tickets)
        answers = [_collect(child) for child in children]
    for answer in answers:
        for ticket, packed in (answer or {}).items():
            done[ticket] = unpack(packed)
    return [done[index] if index in done else work(chunk) for index, chunk in enumerate(chunks)]


def _take(tickets: int) -> int | None:
    """The next chunk's number, or None when every chunk has been taken."""
    ticket = os.read(tickets, 1)
    return ticket[0] if ticket else None


def _fork(
    work: Callable[[list[str]], T], chunks: list[list[str]], tickets: int, pack: Callable[[T], Any]
) -> tuple[int, int] | None:
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
    if pid == 0:  # the child: take chunks, send what it found, leave without the parent's exit code
        code = 1
        try:
            os.close(read_end)
            found: dict[int, Any] = {}
            while (ticket := _take(tickets)) is not None:
                found[ticket] = pack(work(chunks[ticket]))
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(marshal.dumps(found))
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def _collect(child: tuple[int, int]) -> dict[int, Any] | None:
    """What the child found (chunk number → packed result), or None when it failed."""
    pid, read_end = child
    try:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
    finally:
        _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    try:
        found = marshal.loads(data)
    except (EOFError, ValueError, TypeError):  # a truncated answer: its chunks are checked here
        return None
    return found if isinstance(found, dict) else None
