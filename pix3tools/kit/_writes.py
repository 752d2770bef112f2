"""All-or-nothing file changes: plan every write first, then apply them, undoing on failure.

A kit run touches a dozen files and ``pix3project.yaml``; a failure half-way (a folder that is a
file, a disk full, a permission) must leave the project as it was, not half-updated.

Every file is reached through its folders without following a link (``pix3tools.core.private``):
a project is untrusted input, and a linked folder (`.claude`, `.pix3`) must not carry a write,
a delete or a read outside the project (docs/kit.md, "Install, all or nothing").
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pix3tools.core.private import Folder, Refused, open_folder, open_folder_making, plain_name, remove_made


class WriteError(OSError):
    """A planned change could not be applied; everything already applied was undone."""

    def __str__(self) -> str:
        return str(self.strerror)  # the message alone, without OSError's "[Errno n]"


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


def project_parts(path: Path, root: Path) -> list[str]:
    """``path`` as plain names below ``root``; a path outside it (or with ``..``) → :class:`Refused`."""
    try:
        parts = list(path.relative_to(root).parts)
    except ValueError:
        parts = []
    if not parts or not all(plain_name(part) for part in parts):
        raise Refused(errno.EINVAL, f"{path} is not a path inside the project {root}; pix3 left it alone.", str(path))
    return parts


def read_project_file(path: Path, root: Path) -> bytes | None:
    """The bytes of the regular file ``path`` in the project, its folders reached without following
    a link; None when it is missing or not a file. A final link is read only when it resolves
    inside the project (``CLAUDE.md`` → ``AGENTS.md``); one that leaves it → :class:`Refused`."""
    *folders, name = project_parts(path, root)
    try:
        with open_folder(root, folders) as folder:
            st = folder.lstat(name)
            if st is None:
                return None
            if stat.S_ISLNK(st.st_mode):
                return _read_link_inside(folder, name, path, root)
            if not stat.S_ISREG(st.st_mode):
                return None
            return folder.read(name)
    except FileNotFoundError:
        return None


def _read_link_inside(folder: Folder, name: str, path: Path, root: Path) -> bytes | None:
    real = Path(os.path.realpath(path))
    inside = Path(os.path.realpath(root))
    if real != inside and inside not in real.parents:
        target = os.readlink(name, dir_fd=folder.fd)
        raise Refused(
            errno.ELOOP,
            f"{path} is a symbolic link to {target}, outside the project; pix3 does not follow it: "
            "make it a file (or remove it) and run again.",
            str(path),
        )
    return read_project_file(real, inside) if real.is_file() else None


@dataclass
class _Before:
    """What a path held before a change: bytes of a file, a link's target, or nothing."""

    data: bytes | None = None
    link: str | None = None


def _before(folder: Folder, name: str) -> _Before:
    st = folder.lstat(name)
    if st is None:
        return _Before()
    if stat.S_ISLNK(st.st_mode):
        return _Before(link=os.readlink(name, dir_fd=folder.fd))
    if stat.S_ISREG(st.st_mode):
        return _Before(data=folder.read(name))
    raise IsADirectoryError(errno.EISDIR, "is a directory", folder.child_path(name))


def _restore(root: Path, parts: list[str], before: _Before) -> None:
    *folders, name = parts
    with open_folder(root, folders) as folder:
        if before.data is not None:
            folder.write(name, before.data)
            return
        with contextlib.suppress(FileNotFoundError):
            folder.unlink(name)
        if before.link is not None:
            os.symlink(before.link, name, dir_fd=folder.fd)


def _rmdir(root: Path, parts: list[str]) -> None:
    *folders, name = parts
    with open_folder(root, folders) as folder:
        os.rmdir(name, dir_fd=folder.fd)


def apply(changes: Changes, *, root: Path, durable: bool = True) -> None:
    """Apply every change; on any failure undo what was done and raise.

    ``durable``: each file fsync'ed (an existing project). A project being created (``pix3 new``)
    skips that: nobody reads it yet, and a failure removes it whole; 15 fsyncs were half of
    `pix3 new`'s time. Either way each file is a temporary renamed over its name.
    """
    done: list[tuple[list[str], _Before]] = []
    created_dirs: list[list[str]] = []
    try:
        for path, data in changes.writes.items():
            parts = project_parts(path, root)
            *folders, name = parts
            if data is None:
                try:
                    folder = open_folder(root, folders)
                except FileNotFoundError:
                    continue
                with folder:
                    before = _before(folder, name)
                    if before.data is not None or before.link is not None:
                        folder.unlink(name)
                        done.append((parts, before))
                continue
            with open_folder_making(root, folders, created_dirs) as folder:
                before = _before(folder, name)
                folder.write(name, data, durable=durable)
                done.append((parts, before))
    except OSError as exc:
        for parts, before in reversed(done):
            with contextlib.suppress(OSError):
                _restore(root, parts, before)
        remove_made(root, created_dirs)
        if isinstance(exc, Refused):
            raise WriteError(exc.errno or 0, f"nothing was changed: {exc.message}") from exc
        where = exc.filename or ""
        reason = exc.strerror or str(exc)
        raise WriteError(exc.errno or 0, f"could not write {where} ({reason}); nothing was changed") from exc


def prune_empty_dirs(start: Path, stop: Path) -> None:
    """Remove ``start`` and its parents while empty, up to (not including) ``stop`` (a folder of the
    project); a link on the way stops it."""
    try:
        parts = project_parts(start, stop.parent)
    except Refused:
        return
    if parts[0] != stop.name:
        return
    while len(parts) > 1:
        try:
            _rmdir(stop.parent, parts)
        except OSError:
            return
        parts = parts[:-1]


def relative(path: Path, root: Path) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")
