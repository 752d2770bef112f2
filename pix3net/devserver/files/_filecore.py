"""The file service core: table, reads, conditional writes, mkdir/delete/move, history.

Synchronous and HTTP-free (docs/devserver-files.md). Every method runs under one re-entrant
lock, so the async facade may call it from worker threads; frames go out through ``emit`` in
seq order. The changeset transaction lives in `_changeset.py` and shares this lock.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pix3net.daemon.pids import pid_alive
from pix3net.devserver.http import content_type
from pix3tools.core.private import Folder, Refused, private_folder

from ._changeset import recover
from ._conditions import check_preconditions
from ._errors import FileConflict, FileError, FileForbidden, FileInvalid, FileMissing, not_found
from ._fsutil import (
    fsync_parent,
    makedirs_nofollow,
    move_within,
    open_file_nofollow,
    permission_bits,
    private_or_skip,
    remove_within,
    rename_into,
)
from ._journal import History
from ._paths import is_journaled, missing_ancestors, parse_wire_path, resolve
from ._table import Entry, Scanner, hash_fd, revision_of
from ._tablecore import TableCore

WHOLE_READ_LIMIT = 8 * 1024 * 1024  # files up to 8 MiB are read whole
WRITER_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-")
TMP_MAX_AGE_S = 600  # a temp of another live process older than this is a leftover all the same
# `put-<pid>-<hex>`, `restore-<pid>-<hex>`; a pid is below 2^22 (Linux's PID_MAX_LIMIT): 7 digits at
# most, so a planted name can never hand `kill` a number it cannot take.
_TEMP_OWNER = re.compile(r"^[a-z]+-(\d{1,7})-[0-9a-f]+\Z")
TEMP_NAME = re.compile(r"^(put|restore)-\d{1,7}-[0-9a-f]{16}\Z")  # what `new_temp` makes

Emit = Callable[[dict[str, Any]], None]
Fault = Callable[[str], None]


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # ours, from before a restart that kept the pid (a container's pid 1)
    return pid_alive(pid)


def symlink_error(wire: str) -> FileForbidden:
    return FileForbidden("symlink", f"{wire} goes through a symbolic link; the file API does not follow them.")


def valid_token(value: object) -> bool:
    """`[A-Za-z0-9_.:-]{1,128}`: writer ids and mutation ids."""
    return isinstance(value, str) and 1 <= len(value) <= 128 and set(value) <= WRITER_ID_CHARS


@dataclass
class FileRead:
    """A file opened for reading: whole bytes (≤ 8 MiB) or an fd to stream (caller closes)."""

    path: str
    size: int
    sha256: str
    content_type: str
    data: bytes | None
    fd: int | None

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class FileCore(TableCore):
    """The project's file table and every file operation of the file API, without HTTP."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        emit: Emit,
        log: Callable[[str], None] = lambda _line: None,
        clock_ms: Callable[[], int] = lambda: time.time_ns() // 1_000_000,
        fault: Fault | None = None,
    ) -> None:
        self.root = os.path.realpath(os.fspath(root))
        self.seq = 0
        self.writer_id: str | None = None
        self.lock = threading.RLock()
        self.scanner = Scanner(self.root)
        self.table: dict[str, Entry] = {}
        self.log = log
        self.clock_ms = clock_ms
        self.fault: Fault = fault or (lambda _point: None)
        self.history = History(self.root, clock_ms=clock_ms, log=log)
        self._emit = emit
        self._own: dict[str, str] = {}
        self._revision = revision_of({})

    # -- start-up -------------------------------------------------------------------------------
    def start(self) -> None:
        """Recover interrupted changesets, scan the project, snapshot journaled files."""
        with self.lock:
            self._clean_tmp()
            recover(self)
            self.table = self.scanner.scan("")
            self._revision = revision_of(self.table)
            try:
                private_folder(self.root, "history").close()
            except FileNotFoundError:
                pass
            except Refused as exc:
                self.log(f"history: {exc} (no version is recorded until then)")
                return
            for wire, entry in self.table.items():
                if entry.kind != "file" or not is_journaled(wire):
                    continue
                try:
                    newest = self.history.newest_sha(wire)
                except OSError as exc:
                    self.log(f"history: could not read the versions of {wire}: {exc}")
                    continue
                if newest != entry.sha256:
                    self.journal(wire, "external")

    def _clean_tmp(self) -> None:
        """Temps of writes cut short (a SIGKILL mid-upload) go at once; a temp whose name carries
        the pid of a live process (another dev server on this project) is left to it for a while.
        A `.pix3` or `.pix3/tmp` that is a link is left alone (logged), never swept."""
        folder = private_or_skip(self.root, "tmp", self.log, "start-up sweep of .pix3/tmp")
        if folder is None:
            return
        now = time.time()
        with folder:
            for name, st in folder.entries():
                if stat.S_ISDIR(st.st_mode):
                    continue
                owner = _TEMP_OWNER.match(name)
                young = now - st.st_mtime <= TMP_MAX_AGE_S
                if owner is not None and young and _alive(int(owner.group(1))):
                    continue
                with contextlib.suppress(OSError):
                    folder.unlink(name)

    # -- writer ----------------------------------------------------------------------------------
    def check_writer(self, writer: str | None) -> None:
        current = self.writer_id
        if current is not None and writer != current:
            raise FileConflict(
                "writer_superseded",
                "Another editor tab took over writing to this project; this tab is read-only now.",
                writerId=current,
            )

    def claim(self, writer: object) -> dict[str, Any]:
        if not valid_token(writer):
            raise FileInvalid("bad_writer", "`writerId` must be 1–128 chars of [A-Za-z0-9_.:-].")
        assert isinstance(writer, str)
        with self.lock:
            self.writer_id = writer
            hashes = {p: e.sha256 for p, e in self.table.items() if e.kind == "file"}
            return {"writerId": writer, "seq": self.seq, "revision": self.revision, "hashes": hashes}

    # -- reads -----------------------------------------------------------------------------------
    def current_hash(self, wire: str) -> str | None:
        """The sha on disk of a regular file (None when missing)."""
        try:
            st = os.lstat(self.abspath(wire))
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        return self.scanner.hash_of(wire, st)

    def read(self, wire: str) -> FileRead:
        kind, _st = resolve(self.root, wire)
        if kind != "file":
            raise FileInvalid("not_a_file", f"{wire} is not a file.")
        try:
            fd = open_file_nofollow(self.root, wire)
        except FileNotFoundError:
            raise not_found(wire) from None
        except OSError:
            raise symlink_error(wire) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise FileInvalid("not_a_file", f"{wire} is not a file.")
            if st.st_size <= WHOLE_READ_LIMIT:
                chunks = []
                while chunk := os.read(fd, WHOLE_READ_LIMIT + 1):
                    chunks.append(chunk)
                data = b"".join(chunks)
                os.close(fd)
                sha = hashlib.sha256(data).hexdigest()
                return FileRead(wire, len(data), sha, content_type(wire), data, None)
            sha = self.scanner.hash_of(wire, st) or hash_fd(fd, st.st_size)
            os.lseek(fd, 0, os.SEEK_SET)
            return FileRead(wire, st.st_size, sha, content_type(wire), None, fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise

    def hashes(self, paths: list[str]) -> dict[str, Any]:
        out: dict[str, str | None] = {}
        for wire in paths:
            try:
                kind, st = resolve(self.root, wire, allow_missing=True)
            except FileError as exc:
                if exc.code == "not_a_directory":
                    out[wire] = None
                    continue
                raise
            out[wire] = self.scanner.hash_of(wire, st) if kind == "file" and st is not None else None
        return {"hashes": out, "seq": self.seq}

    # -- writes ----------------------------------------------------------------------------------
    def private(self, *sub: str, create: bool = True) -> Folder:
        """`.pix3/<sub…>` reached without following a link; a link there is a conflict (`link_refused`)."""
        try:
            return private_folder(self.root, *sub, create=create, mode=0o700)
        except Refused as exc:
            self.log(f"refused: {exc}")
            raise FileConflict("link_refused", exc.message, path=exc.path) from None

    def new_temp(self, prefix: str) -> tuple[str, int]:
        """An exclusive temp file in `.pix3/tmp` (`put-<pid>-<16 hex>`, `restore-<pid>-<16 hex>`):
        its name and a descriptor open for writing."""
        name = f"{prefix}-{os.getpid()}-{secrets.token_hex(8)}"
        with self.private("tmp") as tmp:
            return name, tmp.create(name)

    def drop_temp(self, name: str) -> None:
        """Remove the temp ``name`` of `.pix3/tmp` if it is still there (nothing for ``""``)."""
        if not TEMP_NAME.match(name):
            return
        with contextlib.suppress(OSError, FileError), self.private("tmp", create=False) as tmp:
            tmp.unlink(name)

    def put_precheck(self, wire: str, writer: str | None) -> None:
        """Writer and path checks done before the body is read."""
        self.check_writer(writer)
        resolve(self.root, wire, allow_missing=True)

    def put_commit(
        self,
        wire: str,
        temp: str,
        sha: str,
        size: int,
        *,
        if_match: list[str] | None,
        create_only: bool,
        writer: str | None,
    ) -> dict[str, Any]:
        """Rename an uploaded temp over ``wire`` under the lock; the temp is gone afterwards."""
        try:
            with self.lock:
                self.check_writer(writer)
                kind, _st = resolve(self.root, wire, allow_missing=True)
                if kind in ("dir", "other"):
                    raise FileConflict("not_a_file", f"{wire} exists and is not a file.")
                check_preconditions(wire, self.current_hash(wire) if kind == "file" else None, if_match, create_only)
                target = self.abspath(wire)
                new_dirs = missing_ancestors(self.root, wire)
                if new_dirs:
                    makedirs_nofollow(self.root, new_dirs[-1])
                mode = permission_bits(self.root, wire)
                with self.private("tmp", create=False) as tmp:
                    if mode is not None:
                        fd = tmp.open_read(temp)
                        try:
                            os.fchmod(fd, mode)
                        finally:
                            os.close(fd)
                    try:
                        rename_into(tmp, temp, self.root, wire)
                    except OSError as exc:
                        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                            raise symlink_error(wire) from None
                        raise
                    temp = ""  # renamed: nothing left to remove
                st = os.lstat(target)
                self.remember_own(wire, st, sha)
                self.apply([new_dirs[0] if new_dirs else wire], mode="own", writer=writer)
                if is_journaled(wire):
                    self.journal(wire, "editor")
                return {
                    "path": wire,
                    "sha256": sha,
                    "size": size,
                    "mtime": st.st_mtime_ns // 1_000_000,
                    "seq": self.seq,
                }
        finally:
            self.drop_temp(temp)

    def put_bytes(
        self,
        wire: str,
        data: bytes,
        *,
        if_match: list[str] | None = None,
        create_only: bool = False,
        writer: str | None = None,
    ) -> dict[str, Any]:
        """PUT for callers holding the whole body (tests, small writes)."""
        self.put_precheck(wire, writer)
        temp, fd = self.new_temp("put")
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        sha = hashlib.sha256(data).hexdigest()
        return self.put_commit(wire, temp, sha, len(data), if_match=if_match, create_only=create_only, writer=writer)

    def mkdir(self, wire: str, writer: str | None) -> dict[str, Any]:
        with self.lock:
            self.check_writer(writer)
            kind, _st = resolve(self.root, wire, allow_missing=True)
            if kind == "dir":
                return {"path": wire, "created": False, "seq": self.seq}
            if kind != "none":
                raise FileConflict("exists", f"{wire} exists and is not a directory.")
            top = ([*missing_ancestors(self.root, wire), wire])[0]
            try:
                makedirs_nofollow(self.root, wire)
            except NotADirectoryError:
                raise FileConflict("not_a_directory", f"A parent of {wire} is not a directory.") from None
            self.apply([top], mode="own", writer=writer)
            return {"path": wire, "created": True, "seq": self.seq}

    def delete(self, wire: str, recursive: bool, writer: str | None) -> dict[str, Any]:
        with self.lock:
            self.check_writer(writer)
            kind, _st = resolve(self.root, wire)
            try:
                remove_within(self.root, wire, tree=kind == "dir" and recursive)
            except OSError as exc:
                if exc.errno == errno.ENOTEMPTY:
                    raise FileConflict("not_empty", f"{wire} is not empty; pass recursive: true.") from None
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise symlink_error(wire) from None
                raise
            self.scanner.forget(wire)
            self.apply([wire], mode="own", writer=writer)
            return {"path": wire, "kind": "dir" if kind == "dir" else "file", "seq": self.seq}

    def move(self, src: str, dst: str, overwrite: bool, writer: str | None) -> dict[str, Any]:
        if dst == src or dst.startswith(src + "/"):
            raise FileInvalid("bad_move", "`to` must not be `from` or inside it.")
        with self.lock:
            self.check_writer(writer)
            kind, _st = resolve(self.root, src)
            dst_kind, _dst_st = resolve(self.root, dst, allow_missing=True)
            if dst_kind != "none":
                if not overwrite:
                    raise FileConflict("exists", f"{dst} already exists.")
                if kind == "dir" or dst_kind == "dir":
                    raise FileConflict("exists", f"{dst} exists; only a file may overwrite a file.")
            new_dirs = missing_ancestors(self.root, dst)
            if new_dirs:
                makedirs_nofollow(self.root, new_dirs[-1])
            sha = self.current_hash(src) if kind == "file" else None
            try:
                move_within(self.root, src, dst)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise symlink_error(dst) from None
                raise
            if sha is not None:
                self._own[dst] = sha
            self.scanner.forget(src)
            self.apply([src, new_dirs[0] if new_dirs else dst], mode="own", writer=writer)
            reply: dict[str, Any] = {"from": src, "to": dst, "kind": "dir" if kind == "dir" else "file"}
            if sha is not None:
                reply["sha256"] = sha
            reply["seq"] = self.seq
            return reply

    # -- history ---------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _refusals(self) -> Iterator[None]:
        """A link in the journal's folders is a conflict, `link_refused` (and is logged)."""
        try:
            yield
        except Refused as exc:
            self.log(f"refused: {exc}")
            raise FileConflict("link_refused", exc.message, path=exc.path) from None

    def history_entries(self, wire: str) -> dict[str, Any]:
        with self._refusals():
            return {"entries": self.history.entries(wire) if is_journaled(wire) else []}

    def history_version(self, wire: str, version_id: str) -> tuple[bytes, str]:
        with self._refusals():
            found = self.history.version(wire, version_id) if is_journaled(wire) else None
        if found is None:
            raise FileMissing("not_found", f"No version {version_id} of {wire}.")
        data, _entry = found
        return data, hashlib.sha256(data).hexdigest()

    def record(self, wire: str, text: object, author: object, note: object) -> dict[str, Any]:
        if not is_journaled(wire):
            raise FileInvalid("not_journaled", f"{wire} is not a scene, prefab, locale table or project file.")
        if not isinstance(text, str):
            raise FileInvalid("bad_request", "`text` must be a string.")
        if author != "rejected-draft":
            raise FileInvalid("bad_author", "Only `author: 'rejected-draft'` can be recorded.")
        if note is not None and (not isinstance(note, str) or len(note) > 2000):
            raise FileInvalid("bad_request", "`note` must be a string of at most 2000 characters.")
        with self.lock, self._refusals():
            return self.history.record(wire, text.encode("utf-8", "surrogatepass"), "rejected-draft", note or None)

    def restore(self, wire: str, version_id: object, if_match: list[str] | None, writer: str | None) -> dict[str, Any]:
        if not isinstance(version_id, str):
            raise FileInvalid("bad_request", "`id` must be a string.")
        with self.lock:
            self.check_writer(writer)
            data, sha = self.history_version(wire, version_id)
            kind, _st = resolve(self.root, wire, allow_missing=True)
            if kind in ("dir", "other"):
                raise FileConflict("not_a_file", f"{wire} exists and is not a file.")
            check_preconditions(wire, self.current_hash(wire) if kind == "file" else None, if_match, False)
            temp = f"restore-{os.getpid()}-{secrets.token_hex(8)}"
            with self.private("tmp") as tmp:
                tmp.write_new(temp, data, mode=permission_bits(self.root, wire))
                try:
                    new_dirs = missing_ancestors(self.root, wire)
                    if new_dirs:
                        makedirs_nofollow(self.root, new_dirs[-1])
                    rename_into(tmp, temp, self.root, wire)
                finally:
                    with contextlib.suppress(OSError):
                        tmp.unlink(temp)
            fsync_parent(self.root, wire)
            self.apply([new_dirs[0] if new_dirs else wire], mode="restore")
            try:
                self.history.record(wire, data, "restore", f"version {version_id}")
            except OSError as exc:
                self.log(f"history: could not record {wire}: {exc}")
            return {"path": wire, "sha256": sha, "size": len(data), "seq": self.seq}


__all__ = ["FileCore", "FileRead", "parse_wire_path", "valid_token"]
