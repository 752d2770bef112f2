"""Durable writes, renames and removals below the project root, never through a link.

Built on ``pix3tools.core.private``: a wire path's parent is reached one component at a time
with ``O_NOFOLLOW | O_DIRECTORY`` and every operation acts relative to it; files staged in
`.pix3` (temps, changeset copies) are named by their folder's descriptor and a plain name, never
by a path a link could redirect.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat
from collections.abc import Callable

from pix3tools.core.private import Folder, Refused, open_folder, private_folder


def _parts(wire: str) -> tuple[list[str], str]:
    *folders, name = wire.split("/")
    return folders, name


def open_parent(root: str, wire: str) -> tuple[Folder, str]:
    """``wire``'s parent folder reached without following a link, and the last name.

    The lstat checks of `resolve` give the refusal codes; this walk is what makes the following
    open/rename/unlink unable to leave the root even if a link is raced in after the check.
    Raises OSError (ELOOP/ENOTDIR for a link or a non-folder, ENOENT) — callers map it.
    """
    folders, name = _parts(wire)
    return open_folder(root, folders), name


def open_file_nofollow(root: str, wire: str) -> int:
    parent, name = open_parent(root, wire)
    with parent:
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent.fd)


def permission_bits(root: str, wire: str) -> int | None:
    """The permission bits of the file ``wire`` (None when it, or its folder, cannot be reached)."""
    try:
        parent, name = open_parent(root, wire)
    except OSError:
        return None
    with parent:
        st = parent.lstat(name)
    return None if st is None else st.st_mode & 0o7777


def copy_out(root: str, wire: str, into: Folder, name: str) -> None:
    """Copy the project file ``wire`` to a new file ``name`` in ``into`` with the same permission
    bits, fsync'ed."""
    src = open_file_nofollow(root, wire)
    try:
        out = into.create(name, 0o600)
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


def fsync_parent(root: str, wire: str) -> None:
    parent, _name = open_parent(root, wire)
    with parent:
        parent.fsync()


def makedirs_nofollow(root: str, wire_dir: str) -> None:
    """mkdir -p below root without following a link: an existing component that is not a real
    directory (a file, a link) stops it with NotADirectoryError."""
    try:
        open_folder(root, wire_dir.split("/"), create=True).close()
    except Refused as exc:
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", exc.path) from None


def rename_into(src: Folder, src_name: str, root: str, wire: str) -> None:
    """Rename the file ``src_name`` of ``src`` over ``wire`` inside ``root`` without following a link."""
    parent, name = open_parent(root, wire)
    with parent:
        try:
            src.rename(src_name, parent, name)
            return
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
        sibling = f".{name}.pix3-tmp-{secrets.token_hex(6)}"
        try:
            reader_fd = src.open_read(src_name)
            with open(reader_fd, "rb") as reader:
                out = parent.create(sibling, 0o600)
                with os.fdopen(out, "wb") as writer:
                    shutil.copyfileobj(reader, writer)
                    os.fchmod(writer.fileno(), os.fstat(reader.fileno()).st_mode & 0o7777)
            os.rename(sibling, name, src_dir_fd=parent.fd, dst_dir_fd=parent.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(sibling, dir_fd=parent.fd)
            raise
        src.unlink(src_name)


def move_within(root: str, src: str, dst: str) -> None:
    src_parent, src_name = open_parent(root, src)
    with src_parent:
        dst_parent, dst_name = open_parent(root, dst)
        with dst_parent:
            src_parent.rename(src_name, dst_parent, dst_name)


def remove_within(root: str, wire: str, *, tree: bool) -> None:
    """unlink / rmdir / remove a whole tree (links inside are unlinked, never descended)."""
    parent, name = open_parent(root, wire)
    with parent:
        if tree:
            shutil.rmtree(name, dir_fd=parent.fd)
        else:
            st = os.stat(name, dir_fd=parent.fd, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                os.rmdir(name, dir_fd=parent.fd)
            else:
                os.unlink(name, dir_fd=parent.fd)


def unlink_file_within(root: str, wire: str) -> bool:
    """Remove ``wire`` when it is a file or a link (never a folder); False when it was not there."""
    parent, name = open_parent(root, wire)
    with parent:
        st = parent.lstat(name)
        if st is None or stat.S_ISDIR(st.st_mode):
            return False
        parent.unlink(name)
        return True


def private_or_skip(root: str, name: str, log: Callable[[str], None], what: str) -> Folder | None:
    """``.pix3/<name>`` for a start-up chore, or None when there is nothing to do: the folder is
    missing, or it (or `.pix3`) is a link, which is left alone and logged as ``<what> skipped``."""
    try:
        return private_folder(root, name)
    except FileNotFoundError:
        return None
    except Refused as exc:
        log(f"{what} skipped: {exc}")
        return None
