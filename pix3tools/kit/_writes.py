"""All-or-nothing file changes: plan every write first, then apply them, undoing on failure.

A kit run touches a dozen files and ``pix3project.yaml``; a failure half-way (a folder that is a
file, a disk full, a permission) must leave the project as it was, not half-updated.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from pix3tools.core import atomic_write


class WriteError(OSError):
    """A planned change could not be applied; everything already applied was undone."""


@dataclass
class Changes:
    """Planned changes: path → new bytes, or ``None`` to delete the file."""

    writes: dict[Path, bytes | None] = field(default_factory=dict)

    def write(self, path: Path, data: bytes) -> None:
        self.writes[path] = data

    def delete(self, path: Path) -> None:
        self.writes[path] = None

    def exists_after(self, path: Path) -> bool:
        if path in self.writes:
            return self.writes[path] is not None
        return path.is_file()


def _prune(directory: Path, stop: Path) -> None:
    while directory != stop and stop in directory.parents:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def _plain_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def apply(changes: Changes, *, root: Path, durable: bool = True) -> None:
    """Apply every change; on any failure undo what was done and raise.

    ``durable``: each file through a temporary file, fsync and rename (an existing project). A
    project being created (``pix3 new``) skips that: nobody reads it yet, and a failure removes it
    whole; 15 fsyncs were half of `pix3 new`'s time.
    """
    write = atomic_write if durable else _plain_write
    done: list[tuple[Path, bytes | None]] = []
    created_dirs: list[Path] = []
    try:
        for path, data in changes.writes.items():
            previous = path.read_bytes() if path.is_file() else None
            if data is None:
                if previous is not None:
                    path.unlink()
                    done.append((path, previous))
                continue
            missing = [p for p in (path.parent, *path.parent.parents) if not p.exists() and root in (p, *p.parents)]
            created_dirs.extend(reversed(missing))
            write(path, data)
            done.append((path, previous))
    except OSError as exc:
        for path, previous in reversed(done):
            with contextlib.suppress(OSError):
                if previous is None:
                    path.unlink()
                else:
                    atomic_write(path, previous)
        for directory in reversed(created_dirs):
            with contextlib.suppress(OSError):
                directory.rmdir()
        where = exc.filename or ""
        reason = exc.strerror or str(exc)
        raise WriteError(exc.errno or 0, f"could not write {where} ({reason}); nothing was changed") from exc


def prune_empty_dirs(start: Path, stop: Path) -> None:
    """Remove ``start`` and its parents while empty, up to (not including) ``stop``."""
    _prune(start, stop)


def relative(path: Path, root: Path) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")
