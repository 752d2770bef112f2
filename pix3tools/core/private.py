"""The project's private folder `.pix3`, and any folder below a project root, reached without ever
following a symbolic link (docs/reliability.md, "A hostile project folder").

A project folder is untrusted input: a cloned repository can commit links and planted `.pix3`
files. Every daemon and tool reaches `.pix3` through this module. A folder is opened one
component at a time, relative to the folder above, with ``O_NOFOLLOW | O_DIRECTORY``; a file is
read with ``O_NOFOLLOW`` (and ``O_NONBLOCK``, so a fifo planted where a file should be cannot hang
the open) and must be a regular file; a file is written as a temporary created ``O_EXCL`` in its
folder, then renamed over the name (a rename replaces a link, it never writes through one);
removal is relative to the folder's descriptor and never descends into a link (`shutil.rmtree`
with ``dir_fd`` walks by descriptors). So a link swapped in after a check is still not followed.

A link, or anything but a folder, where a folder should be raises :class:`Refused` naming the
path, what it points to and what to do; callers decide whether that skips a step (a start-up
sweep) or refuses the request, and never delete the link. Only the project root itself is opened
the ordinary way: the user chose it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat
from collections.abc import Iterable

__all__ = [
    "MAX_NAME_BYTES",
    "PRIVATE",
    "Folder",
    "Refused",
    "open_folder",
    "open_folder_making",
    "plain_name",
    "private_folder",
    "read_private",
    "remove_made",
    "write_private",
]

PRIVATE = ".pix3"
MAX_NAME_BYTES = 255  # NAME_MAX of Linux and macOS file systems: a longer name cannot exist

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


class Refused(OSError):
    """A path pix3 will not go through: a link, or not a folder where a folder should be, or not a
    regular file where a file should be read. ``errno`` is ``ELOOP`` for a link, ``ENOTDIR`` for a
    folder that is something else, ``EINVAL`` for the rest; the message is one sentence for the user."""

    def __init__(self, code: int, message: str, path: str) -> None:
        super().__init__(code, message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return self.message


def plain_name(name: str) -> bool:
    """One path component that names a file in its folder: not empty, not ``.`` or ``..``, no ``/``
    or NUL, at most ``MAX_NAME_BYTES`` bytes."""
    if name in ("", ".", "..") or "/" in name or "\0" in name:
        return False
    return len(os.fsencode(name)) <= MAX_NAME_BYTES


def _describe(dirfd: int, name: str, path: str, *, want: str) -> Refused:
    """Why ``name`` in ``dirfd`` could not be opened as a ``want`` ("folder" or "file")."""
    try:
        st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
    except OSError:
        return Refused(errno.ENOTDIR, f"{path} is not a {want} pix3 can open; pix3 left it alone.", path)
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(name, dir_fd=dirfd)
        except OSError:
            target = "?"
        return Refused(
            errno.ELOOP,
            f"{path} is a symbolic link to {target}; pix3 never follows links it finds in a project's "
            f"folders, so it left it alone: remove the link (rm {path}) and run again.",
            path,
        )
    if want == "folder":
        return Refused(
            errno.ENOTDIR,
            f"{path} is not a folder; pix3 needs a folder there: move it away and run again.",
            path,
        )
    return Refused(errno.EINVAL, f"{path} is not a regular file; pix3 left it alone: remove it and run again.", path)


def _bad_name(path: str, name: str) -> Refused:
    shown = repr(name if len(name) <= 60 else name[:60] + "…")
    return Refused(errno.EINVAL, f"{shown} in {path} is not a plain file name; pix3 refuses to use it.", path)


class Folder:
    """An open folder (a descriptor reached without following links) and its path, for messages.

    A context manager; every method acts relative to the descriptor and never follows a link.
    """

    def __init__(self, fd: int, path: str) -> None:
        self.fd = fd
        self.path = path

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def child_path(self, name: str) -> str:
        return f"{self.path}/{name}"

    def _name(self, name: str) -> str:
        if not plain_name(name):
            raise _bad_name(self.path, name)
        return name

    # -- folders -----------------------------------------------------------------------------------
    def sub(self, name: str, *, create: bool = False, mode: int = 0o777) -> Folder:
        """The folder ``name`` in this one; made when ``create`` (``mode`` for a new one).
        Missing → FileNotFoundError; a link or not a folder → :class:`Refused`."""
        self._name(name)
        try:
            try:
                fd = os.open(name, _DIR, dir_fd=self.fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, mode, dir_fd=self.fd)
                fd = os.open(name, _DIR, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise _describe(self.fd, name, self.child_path(name), want="folder") from None
            raise
        return Folder(fd, self.child_path(name))

    def descend(self, parts: Iterable[str], *, create: bool = False, mode: int = 0o777) -> Folder:
        """The folder ``parts`` below this one, each step as :meth:`sub` (a new Folder; this one
        stays open)."""
        return _step_down(Folder(os.dup(self.fd), self.path), ((part, mode) for part in parts), create)

    def mkdir(self, name: str, mode: int = 0o777) -> None:
        os.mkdir(self._name(name), mode, dir_fd=self.fd)

    def entries(self) -> list[tuple[str, os.stat_result]]:
        """Every entry (name, lstat); entries gone meanwhile are left out."""
        found: list[tuple[str, os.stat_result]] = []
        with os.scandir(self.fd) as listing:
            for entry in listing:
                with contextlib.suppress(FileNotFoundError):
                    found.append((entry.name, entry.stat(follow_symlinks=False)))
        return found

    def lstat(self, name: str) -> os.stat_result | None:
        try:
            return os.stat(self._name(name), dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def fsync(self) -> None:
        os.fsync(self.fd)

    # -- files -------------------------------------------------------------------------------------
    def _open_regular(self, name: str, flags: int, mode: int = 0o644) -> int:
        """``name`` opened with ``flags`` (which hold ``O_NOFOLLOW | O_NONBLOCK``), then made
        blocking; a link or anything but a regular file there → :class:`Refused`."""
        self._name(name)
        try:
            fd = os.open(name, flags, mode, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENXIO, errno.EISDIR):
                raise _describe(self.fd, name, self.child_path(name), want="file") from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise _describe(self.fd, name, self.child_path(name), want="file")
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def open_read(self, name: str) -> int:
        """A descriptor of the regular file ``name`` (blocking reads). Missing → FileNotFoundError."""
        return self._open_regular(name, _READ)

    def read(self, name: str, *, limit: int | None = None) -> bytes:
        """The bytes of the regular file ``name``; more than ``limit`` bytes → :class:`Refused`."""
        fd = self.open_read(name)
        try:
            chunks: list[bytes] = []
            size = 0
            step = min(max(os.fstat(fd).st_size + 1, 1 << 12), 1 << 20)  # a small file: one small read
            while chunk := os.read(fd, step):
                size += len(chunk)
                if limit is not None and size > limit:
                    path = self.child_path(name)
                    raise Refused(errno.EFBIG, f"{path} is larger than {limit} bytes; pix3 did not read it.", path)
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def read_if_any(self, name: str, *, limit: int | None = None) -> bytes | None:
        try:
            return self.read(name, limit=limit)
        except FileNotFoundError:
            return None

    def create(self, name: str, mode: int = 0o666) -> int:
        """A new file ``name`` (``O_EXCL``: never an existing file or link), open for writing."""
        return os.open(self._name(name), _NEW, mode, dir_fd=self.fd)

    def write_new(self, name: str, data: bytes, *, mode: int | None = None, durable: bool = True) -> None:
        """Create ``name`` exclusively and write ``data`` (``mode``: its permission bits)."""
        fd = self.create(name)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=self.fd)
            raise
        os.close(fd)

    def write(self, name: str, data: bytes, *, mode: int = 0o644, durable: bool = True) -> None:
        """Replace ``name`` with ``data``: a temporary in this folder, then a rename (readers see the
        old bytes or the new ones; a link at ``name`` is replaced, never written through)."""
        self._name(name)
        temp = f".{name[:200]}.{secrets.token_hex(6)}.tmp"
        self.write_new(temp, data, mode=mode, durable=durable)
        try:
            os.rename(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=self.fd)
            raise
        if durable:
            self.fsync()

    def open_append(self, name: str, *, truncate: bool = False, mode: int = 0o644) -> int:
        """A blocking ``O_APPEND`` descriptor of the regular file ``name`` (made when missing,
        emptied when ``truncate``); a link or anything but a regular file → :class:`Refused`."""
        return self._open_regular(name, _APPEND | (os.O_TRUNC if truncate else 0), mode)

    def append(self, name: str, data: bytes, *, mode: int = 0o644) -> None:
        """Append ``data`` with one ``write`` on an ``O_APPEND`` descriptor of the regular file ``name``
        (POSIX keeps each such write whole against other appenders)."""
        fd = self.open_append(name, mode=mode)
        try:
            written = os.write(fd, data)
        finally:
            os.close(fd)
        if written != len(data):
            raise OSError(errno.EIO, f"short write to {self.child_path(name)} ({written} of {len(data)} bytes)")

    # -- removal and renames -----------------------------------------------------------------------
    def unlink(self, name: str) -> None:
        """Remove the file or link ``name`` (a link itself, never what it points to)."""
        os.unlink(self._name(name), dir_fd=self.fd)

    def remove(self, name: str) -> bool:
        """Remove ``name`` whatever it is: a folder with everything in it (links inside are unlinked,
        never entered), else the file or link itself. False when it was not there."""
        st = self.lstat(name)
        if st is None:
            return False
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(name, dir_fd=self.fd)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=self.fd)
        return True

    def rename(self, name: str, to: Folder, to_name: str) -> None:
        os.rename(self._name(name), to._name(to_name), src_dir_fd=self.fd, dst_dir_fd=to.fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def open_folder(
    root: str | os.PathLike[str], parts: Iterable[str], *, create: bool = False, mode: int = 0o777
) -> Folder:
    """The folder ``root/<parts…>``: the root opened as given, each part below it without following a
    link (made when ``create``, with ``mode``). Missing → FileNotFoundError; a link or a
    non-folder on the way → :class:`Refused`."""
    return _walk(root, [(part, mode) for part in parts], create)


def private_folder(root: str | os.PathLike[str], *sub: str, create: bool = False, mode: int = 0o777) -> Folder:
    """``root/.pix3/<sub…>`` (see :func:`open_folder`); ``mode`` applies to the folders made below `.pix3`."""
    return _walk(root, [(PRIVATE, 0o777), *((part, mode) for part in sub)], create)


def _walk(root: str | os.PathLike[str], steps: list[tuple[str, int]], create: bool) -> Folder:
    base = os.fspath(root)
    return _step_down(
        Folder(os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), base.rstrip("/") or "/"), steps, create
    )


def _step_down(folder: Folder, steps: Iterable[tuple[str, int]], create: bool) -> Folder:
    """The folder ``steps`` below ``folder`` (which this closes), each step as :meth:`Folder.sub`
    with its mode; every folder opened on the way is closed, also on an error."""
    try:
        for part, mode in steps:
            child = folder.sub(part, create=create, mode=mode)
            folder.close()
            folder = child
    except BaseException:
        folder.close()
        raise
    return folder


def open_folder_making(root: str | os.PathLike[str], folders: list[str], made: list[list[str]]) -> Folder:
    """The folder ``root/<folders…>`` (see :func:`open_folder`), each missing one made and appended
    to ``made`` (its parts below ``root``), so that a caller that fails later can take them away
    again with :func:`remove_made`."""
    folder = open_folder(root, [])
    for index, part in enumerate(folders):
        try:
            if folder.lstat(part) is None:
                folder.mkdir(part)
                made.append(folders[: index + 1])
        except BaseException:
            folder.close()
            raise
        folder = _step_down(folder, [(part, 0o777)], create=False)
    return folder


def remove_made(root: str | os.PathLike[str], made: list[list[str]]) -> None:
    """Remove the empty folders :func:`open_folder_making` made, deepest first; one that is gone or
    no longer empty is left."""
    for parts in reversed(made):
        *folders, name = parts
        with contextlib.suppress(OSError), open_folder(root, folders) as folder:
            os.rmdir(name, dir_fd=folder.fd)


def read_private(root: str | os.PathLike[str], *parts: str, limit: int | None = None) -> bytes | None:
    """The bytes of ``root/.pix3/<parts…>``; None when it (or a folder on the way) is missing.
    A link or anything but a regular file on the way → :class:`Refused`."""
    *folders, name = parts
    try:
        with private_folder(root, *folders) as folder:
            return folder.read_if_any(name, limit=limit)
    except FileNotFoundError:
        return None


def write_private(
    root: str | os.PathLike[str], *parts: str, data: bytes, mode: int = 0o644, durable: bool = True
) -> None:
    """Replace ``root/.pix3/<parts…>`` with ``data`` (folders made as needed; see :meth:`Folder.write`)."""
    *folders, name = parts
    with private_folder(root, *folders, create=True) as folder:
        folder.write(name, data, mode=mode, durable=durable)
