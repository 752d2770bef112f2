"""Small durable-write helpers shared by the core and the changeset transaction."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat


def copy_out(root: str, wire: str, dst: str) -> None:
    """Copy the project file ``wire`` (reached without following links) to a new file ``dst``
    with the same permission bits, fsync'ed."""
    src = open_file_nofollow(root, wire)
    try:
        out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.fchmod(out, os.fstat(src).st_mode & 0o7777)  # a rollback renames this copy back
            while chunk := os.read(src, 1 << 20):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(out, view) :]
            os.fsync(out)
        finally:
            os.close(out)
    finally:
        os.close(src)


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


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def makedirs_nofollow(root: str, wire_dir: str) -> None:
    """mkdir -p below root through O_NOFOLLOW directory fds: an existing component that is
    not a real directory (a file, a link) stops it with NotADirectoryError."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in wire_dir.split("/"):
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise NotADirectoryError(errno.ENOTDIR, "not a directory", part) from None
                raise
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


def open_parent(root: str, wire: str) -> tuple[int, str]:
    """An fd of ``wire``'s parent reached one component at a time with O_NOFOLLOW, and the last name.

    The lstat checks of `resolve` give the refusal codes; this walk is what makes the following
    open/rename/unlink unable to leave the root even if a link is raced in after the check.
    Raises OSError (ELOOP/ENOTDIR for a link, ENOENT) — callers map it.
    """
    parts = wire.split("/")
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in parts[:-1]:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd, parts[-1]


def open_file_nofollow(root: str, wire: str) -> int:
    parent, name = open_parent(root, wire)
    try:
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    finally:
        os.close(parent)


def rename_into(src: str, root: str, wire: str) -> None:
    """Rename the file ``src`` over ``wire`` inside ``root`` without following a link on the way."""
    parent, name = open_parent(root, wire)
    try:
        try:
            os.rename(src, name, dst_dir_fd=parent)
            return
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
        sibling = f".{name}.pix3-tmp-{secrets.token_hex(6)}"
        try:
            with open(src, "rb") as reader:
                out = os.open(
                    sibling, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=parent
                )
                with os.fdopen(out, "wb") as writer:
                    shutil.copyfileobj(reader, writer)
                    os.fchmod(writer.fileno(), os.stat(src).st_mode & 0o7777)
            os.rename(sibling, name, src_dir_fd=parent, dst_dir_fd=parent)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(sibling, dir_fd=parent)
            raise
        os.unlink(src)
    finally:
        os.close(parent)


def move_within(root: str, src: str, dst: str) -> None:
    src_parent, src_name = open_parent(root, src)
    try:
        dst_parent, dst_name = open_parent(root, dst)
        try:
            os.rename(src_name, dst_name, src_dir_fd=src_parent, dst_dir_fd=dst_parent)
        finally:
            os.close(dst_parent)
    finally:
        os.close(src_parent)


def remove_within(root: str, wire: str, *, tree: bool) -> None:
    """unlink / rmdir / remove a whole tree (links inside are unlinked, never descended)."""
    parent, name = open_parent(root, wire)
    try:
        if tree:
            shutil.rmtree(name, dir_fd=parent)
        else:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                os.rmdir(name, dir_fd=parent)
            else:
                os.unlink(name, dir_fd=parent)
    finally:
        os.close(parent)
