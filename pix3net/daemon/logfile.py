"""The daemons' log files (`chrome-owner.log`, `.pix3/dev.log`): bounded on disk, never written
through a link, and repeated lines summarised (docs/reliability.md, "Logs").

:class:`LogFile` writes one file relative to its folder's descriptor. Its name is opened with
``O_NOFOLLOW`` and checked: a link, a FIFO or a file with another name elsewhere (a hard link) is
removed (the entry, never what it points to) and a fresh file made in its place; a project folder
is untrusted input and can hold any of them. At :data:`LOG_BYTES` the file is renamed to
``<name>.1`` (replacing the previous one: one old file is kept) and a new one opened; its
descriptor is put in place of the old one on every descriptor that wrote the old file (its own,
and the process's stdout and stderr when they are that file), so tracebacks and ``faulthandler``
follow. A child process (Vite) writes to a pipe the log drains (:meth:`LogFile.child_output`):
a child's own descriptor cannot be moved to the new file, and copying then truncating the file
instead loses what is written in between (docs/reliability.md, "Logs").

:class:`Repeats` (pure) turns a flood of the same refusal into two lines per interval;
:func:`tail_lines` is what a failed start shows of a log (`pix3 editor`, `pix3 smoke`).
Standard library only: the Chrome owner opens its log before it imports trio.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from pix3tools.core import private

# Where a log is renamed to `<name>.1`: a day of a busy dev server writes well under 1 MiB (the
# 10-minute soaks wrote less than 200 KiB each), so 8 MiB keeps days of history; with the one old
# file a log never holds more than 16 MiB of disk.
LOG_BYTES = 8 * 1024 * 1024
OLD_SUFFIX = ".1"
# A refusal's full line is logged once per cause and interval; the rest are counted.
REPEAT_SECONDS = 10.0
# A logged line quotes what a client sent (a request target, a Host): at most this much of it.
LINE_CHARS = 500
# What a failed start shows of a log is read from its last 64 KiB: a log grows to LOG_BYTES.
TAIL_BYTES = 64 * 1024
_DRAIN_BYTES = 65536
_FILE_MODE = 0o644
_OPEN_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def clip(text: str, limit: int = LINE_CHARS) -> str:
    """``text`` cut to ``limit`` characters (marked with ``…``)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Repeats:
    """Summarises repeated lines (pure; the caller passes the clock).

    The first line of each cause in an interval is logged whole; later ones of the same cause are
    counted, and when the interval is over each count is one line (``<cause>: <n> more in the last
    10 s``). An interval starts with the first line after the previous one ended, so a steady flood
    writes two lines per cause every 10 s and a lone refusal one line.
    """

    def __init__(self, seconds: float = REPEAT_SECONDS) -> None:
        self.seconds = seconds
        self.counts: dict[str, int] = {}
        self.since: float | None = None

    def note(self, cause: str, line: str, now: float) -> list[str]:
        """The lines to log for one more ``line`` of ``cause`` at ``now``."""
        out = self.due(now)
        if cause in self.counts:
            self.counts[cause] += 1
            return out
        self.counts[cause] = 0
        if self.since is None:
            self.since = now
        out.append(line)
        return out

    def due(self, now: float) -> list[str]:
        """The count lines of an interval that is over at ``now`` (none otherwise)."""
        if self.since is None or now - self.since < self.seconds:
            return []
        return self.flush(now)

    def flush(self, now: float) -> list[str]:
        """The count lines of the interval so far, whatever its age; a new interval starts."""
        since = self.since if self.since is not None else now
        lines = [f"{cause}: {n} more in the last {now - since:.0f} s" for cause, n in self.counts.items() if n]
        self.counts = {}
        self.since = None
        return lines


def open_folder(parent: Path, name: str) -> int:
    """A descriptor of the folder ``parent/name`` (made 0755 when missing), reached without
    following a link (`pix3tools.core.private`: a link there is refused, never entered)."""
    with private.open_folder(parent, [name], create=True, mode=0o755) as folder:
        return os.dup(folder.fd)  # non-inheritable, as every descriptor Python makes


def _ours(fd: int) -> bool:
    """A regular file with this one name: not a FIFO, a device, or a hard link to a file elsewhere."""
    info = os.fstat(fd)
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1


def open_file(dir_fd: int, name: str, *, truncate: bool = False) -> int:
    """``name`` in the folder ``dir_fd`` opened for appending (created 0644), never through a link;
    whatever else stands there is replaced by a new file. ``truncate``: emptied (after the check,
    so a hard link's other file is never emptied)."""
    try:
        fd = os.open(name, _OPEN_FLAGS, _FILE_MODE, dir_fd=dir_fd)
    except OSError as error:  # a link (ELOOP), a FIFO nobody reads (ENXIO), a folder (EISDIR)
        if error.errno not in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.EMLINK):
            raise
        fd = -1
    if fd >= 0 and not _ours(fd):
        os.close(fd)
        fd = -1
    if fd < 0:
        os.unlink(name, dir_fd=dir_fd)  # the entry itself; a folder there fails here (IsADirectoryError)
        fd = os.open(name, _OPEN_FLAGS | os.O_EXCL, _FILE_MODE, dir_fd=dir_fd)
    os.set_blocking(fd, True)
    if truncate:
        os.ftruncate(fd, 0)
    return fd


class _Text:
    """What ``print``-style writers and ``logging.StreamHandler`` need: ``write(str)``, ``flush()``."""

    def __init__(self, log: LogFile) -> None:
        self._log = log

    def write(self, text: str) -> int:
        self._log.write(text.encode("utf-8", "replace"))
        return len(text)

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        return self._log.fileno()


class LogFile:
    """One daemon log (see the module doc). Thread-safe: the dev server logs from worker threads
    and drains Vite's output on a thread of its own."""

    def __init__(self, dir_fd: int, name: str, *, bound: int = LOG_BYTES, truncate: bool = False) -> None:
        self.dir_fd = dir_fd  # owned: closed with the log
        self.name = name
        self.bound = bound
        self.fd = open_file(dir_fd, name, truncate=truncate)
        self.size = os.fstat(self.fd).st_size
        self.rotations = 0
        self._others: list[int] = []  # stdout, stderr when they write this file
        self._lock = threading.Lock()
        self._child: IO[bytes] | None = None

    @classmethod
    def in_folder(cls, parent: Path, folder: str, name: str, *, bound: int = LOG_BYTES) -> LogFile:
        """The log ``parent/folder/name``; the folder is made when missing and never a link."""
        dir_fd = open_folder(parent, folder)
        try:
            return cls(dir_fd, name, bound=bound)
        except BaseException:
            os.close(dir_fd)
            raise

    def take_over(self, fds: Iterable[int]) -> list[int]:
        """Of ``fds`` (stdout, stderr), those that write this same file now write through the log's
        own descriptor (appending) and follow it to each new file. Returns them."""
        mine = os.fstat(self.fd)
        for fd in fds:
            try:
                info = os.fstat(fd)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) == (mine.st_dev, mine.st_ino):
                os.dup2(self.fd, fd)
                self._others.append(fd)
        return list(self._others)

    def fileno(self) -> int:
        """Stays the same across rotations (``faulthandler`` may hold it)."""
        return self.fd

    def text(self) -> _Text:
        return _Text(self)

    def write(self, data: bytes) -> None:
        """Append ``data`` (rotating first when it would pass the bound). A log that cannot be
        written (disk full) drops the line: the daemon goes on."""
        with self._lock:
            if self.size and self.size + len(data) > self.bound:
                self._rotate()
            with contextlib.suppress(OSError):
                os.write(self.fd, data)
                self.size += len(data)

    def _rotate(self) -> None:
        name, dir_fd = self.name, self.dir_fd
        try:
            # rename(2) replaces the old file's entry, whatever it is, and follows no link
            os.rename(name, name + OLD_SUFFIX, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            fresh = open_file(dir_fd, name)
        except OSError:  # no rename here (a folder named `<name>.1`, the file removed): start over in place
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, 0)
            self.size = 0
            return
        os.dup2(fresh, self.fd, inheritable=False)
        for fd in self._others:
            os.dup2(fresh, fd)
        os.close(fresh)
        self.size = 0
        self.rotations += 1

    def child_output(self) -> IO[bytes]:
        """A pipe for child processes' stdout and stderr, drained into this log by a thread.
        The same pipe for every child (Vite is restarted with it); closed with the log."""
        if self._child is None:
            read_fd, write_fd = os.pipe()  # both close-on-exec; Popen puts the write end on 1 and 2
            threading.Thread(target=self._drain, args=(read_fd,), name="log: child output", daemon=True).start()
            self._child = os.fdopen(write_fd, "wb", buffering=0)
        return self._child

    def _drain(self, fd: int) -> None:
        try:
            while chunk := os.read(fd, _DRAIN_BYTES):
                self.write(chunk)
        except OSError:
            pass
        finally:
            os.close(fd)

    def close(self) -> None:
        if self._child is not None:
            self._child.close()
            self._child = None
        for fd in (self.fd, self.dir_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


def open_fresh(root: Path, relative: Path) -> IO[bytes]:
    """``root/<folder>/<name>`` emptied and opened for appending, never through a link: what a
    daemon's parent hands it as stdout and stderr (`pix3 editor` for the dev server)."""
    dir_fd = open_folder(root, relative.parent.name)
    try:
        return open_in(dir_fd, relative.name)
    finally:
        os.close(dir_fd)


def open_in(dir_fd: int, name: str) -> IO[bytes]:
    """``name`` in the folder ``dir_fd``, emptied and opened for appending (see :func:`open_file`)."""
    return os.fdopen(open_file(dir_fd, name, truncate=True), "ab")


def follow_stdout(home: Path, name: str, *, bound: int = LOG_BYTES) -> LogFile | None:
    """The log ``home/name`` when this process's stdout is that file (the Chrome owner as `pix3
    editor` starts it); None when stdout is anything else (a test's pipe, a service manager's
    journal), which is then left to its owner."""
    try:
        out = os.fstat(1)
        dir_fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        there = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if not stat.S_ISREG(out.st_mode) or (there.st_dev, there.st_ino) != (out.st_dev, out.st_ino):
            os.close(dir_fd)
            return None
        log = LogFile(dir_fd, name, bound=bound)
    except OSError:
        os.close(dir_fd)
        return None
    log.take_over((1, 2))
    return log


def tail_lines(fd: int) -> list[str]:
    """The lines of the last :data:`TAIL_BYTES` of the log open on ``fd`` (closed here), blank
    ends removed; [] when it cannot be read."""
    try:
        size = os.fstat(fd).st_size
        raw = os.pread(fd, TAIL_BYTES, max(0, size - TAIL_BYTES))
    except OSError:
        return []
    finally:
        os.close(fd)
    return raw.decode("utf-8", errors="replace").strip().splitlines()
