"""Small durable-write helpers shared by the core and the changeset transaction."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil


def fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_new(path: str, data: bytes, *, mode: int | None = None, sync: bool = True) -> None:
    """Create ``path`` exclusively (never through a symlink) and write ``data``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def permission_bits(path: str) -> int | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_mode & 0o7777


def rename_over(src: str, dst: str) -> None:
    """rename(2), or across devices a copy to a sibling temp then a rename (§7.5)."""
    try:
        os.rename(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        folder, name = os.path.split(dst)
        sibling = os.path.join(folder, f".{name}.pix3-tmp-{secrets.token_hex(6)}")
        try:
            shutil.copyfile(src, sibling, follow_symlinks=False)
            shutil.copymode(src, sibling, follow_symlinks=False)
            os.rename(sibling, dst)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(sibling)
            raise
        os.unlink(src)


def makedirs_nofollow(root: str, wire_dir: str) -> None:
    """mkdir -p below root; an existing component that is not a real directory stops it."""
    current = root
    for part in wire_dir.split("/"):
        current = os.path.join(current, part)
        try:
            os.mkdir(current)
        except FileExistsError:
            if not os.path.isdir(current) or os.path.islink(current):
                raise NotADirectoryError(errno.ENOTDIR, "not a directory", current) from None
