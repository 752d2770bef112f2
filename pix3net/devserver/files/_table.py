"""The file table: scanning the project, the hash cache, `revision`, and diffing to events.

docs/devserver-files.md, "The file table and its events". Pure of HTTP and of the clock; the core owns one `Scanner` and one
table and calls these helpers under its lock.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from pix3tools.core.walk import FILE_TABLE, code_unit_key, sort_paths, walk_fd

from ._fsutil import open_file_nofollow
from ._paths import TEMP_NAME

# Directories skipped at any depth (a FILE with such a name is kept) and the root's `.pix3`: the
# table's rules for the project walk every file tool shares.
EXCLUDED_DIRS = FILE_TABLE.anywhere
READ_WHOLE = 1024 * 1024  # files up to this size are hashed with one read


class Entry(NamedTuple):
    """A NamedTuple: built 10 000 times per cold scan, where a frozen dataclass costs measurably more."""

    kind: str  # "file" | "dir"
    size: int
    mtime: int  # epoch ms, floor(ns / 1e6)
    sha256: str | None = None


def under(path: str, prefix: str) -> bool:
    return prefix == "" or path == prefix or path.startswith(prefix + "/")


def outermost(prefixes: Iterable[str]) -> list[str]:
    """Drop every prefix that lies inside another one."""
    result: list[str] = []
    for prefix in sorted(set(prefixes), key=len):
        if not any(under(prefix, kept) for kept in result):
            result.append(prefix)
    return sorted(result)


def revision_of(table: Mapping[str, Entry]) -> str:
    lines = sort_paths(f"{p}:{e.sha256}" for p, e in table.items() if e.kind == "file")
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()


def hash_fd(fd: int, size_hint: int) -> str:
    if size_hint <= READ_WHOLE:
        chunk = os.read(fd, size_hint + 1)
        if len(chunk) <= size_hint:  # short read of a regular file: end of file, one syscall
            return hashlib.sha256(chunk).hexdigest()
        digest = hashlib.sha256(chunk)
        while chunk := os.read(fd, READ_WHOLE):
            digest.update(chunk)
        return digest.hexdigest()
    digest = hashlib.sha256()
    while chunk := os.read(fd, READ_WHOLE):
        digest.update(chunk)
    return digest.hexdigest()


def open_nofollow(path: str) -> int:
    return os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)


_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Scanner:
    """Walks the project through directory fds opened with O_NOFOLLOW, so a link raced in
    mid-walk is never entered; caches hashes by path + stat key."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._cache: dict[str, tuple[tuple[int, int, int], str]] = {}

    def hash_of(self, wire: str, st: os.stat_result, dir_fd: int | None = None, name: str | None = None) -> str | None:
        """The sha256 of a regular file, from the cache when its stat key still matches.

        With ``dir_fd``/``name`` the file is opened relative to its folder; otherwise through
        the fd walk from the root.
        """
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        cached = self._cache.get(wire)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            if dir_fd is not None and name is not None:
                fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
            else:
                fd = open_file_nofollow(self.root, wire)
        except OSError:
            return None
        try:
            sha = hash_fd(fd, st.st_size)
        finally:
            os.close(fd)
        self._cache[wire] = (key, sha)
        return sha

    def remember(self, wire: str, st: os.stat_result, sha: str) -> None:
        """Prime the cache after our own write so the next scan does not read the bytes again."""
        self._cache[wire] = ((st.st_ino, st.st_size, st.st_mtime_ns), sha)

    def scan(self, prefix: str) -> dict[str, Entry]:
        """Every table entry at or under ``prefix`` ("" = the whole project)."""
        out: dict[str, Entry] = {}
        try:
            fd = os.open(self.root, _DIR_FLAGS)
        except OSError:
            return out
        try:
            if prefix == "":
                self._walk("", fd, out)
                return out
            parts = prefix.split("/")
            for index, part in enumerate(parts):
                try:
                    st = os.stat(part, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    return out
                last = index == len(parts) - 1
                if stat.S_ISDIR(st.st_mode):
                    if FILE_TABLE.skips(part, index == 0):
                        return out
                    try:
                        child = os.open(part, _DIR_FLAGS, dir_fd=fd)
                    except OSError:
                        return out
                    os.close(fd)
                    fd = child
                    if last:
                        out[prefix] = Entry("dir", st.st_size, st.st_mtime_ns // 1_000_000)
                        self._walk(prefix, fd, out)
                elif stat.S_ISREG(st.st_mode) and last and not TEMP_NAME.match(part):
                    self._file(prefix, st, out, fd, part)
                    return out
                else:
                    return out
            return out
        finally:
            os.close(fd)

    def _file(self, wire: str, st: os.stat_result, out: dict[str, Entry], dir_fd: int, name: str) -> None:
        sha = self.hash_of(wire, st, dir_fd, name)
        if sha is not None:
            out[wire] = Entry("file", st.st_size, st.st_mtime_ns // 1_000_000, sha)

    def _walk(self, wire: str, dir_fd: int, out: dict[str, Entry]) -> None:
        for found in walk_fd(dir_fd, wire, FILE_TABLE, top=wire == "", order=str):
            try:
                st = found.entry.stat(follow_symlinks=False)
            except OSError:
                continue
            mode = st.st_mode
            name = found.entry.name
            if stat.S_ISDIR(mode):
                out[found.path] = Entry("dir", st.st_size, st.st_mtime_ns // 1_000_000)
            elif stat.S_ISREG(mode) and not (name[0] == "." and TEMP_NAME.match(name)):
                self._file(found.path, st, out, found.dir_fd, name)

    def forget(self, prefix: str) -> None:
        for wire in [w for w in self._cache if under(w, prefix)]:
            del self._cache[wire]


def diff(old: Mapping[str, Entry], new: Mapping[str, Entry]) -> list[dict[str, Any]]:
    """Events (without author) turning ``old`` into ``new``, sorted by path."""
    deleted: list[tuple[str, Entry]] = []
    created: list[tuple[str, Entry]] = []
    modified: list[tuple[str, Entry]] = []
    for path, before in old.items():
        after = new.get(path)
        if after is None:
            deleted.append((path, before))
        elif after.kind != before.kind:
            deleted.append((path, before))
            created.append((path, after))
        elif after.kind == "file" and after.sha256 != before.sha256:
            modified.append((path, after))
    created.extend((p, e) for p, e in new.items() if p not in old)
    events: list[dict[str, Any]] = []
    by_sha_del: dict[str, list[str]] = {}
    by_sha_new: dict[str, list[str]] = {}
    for path, entry in deleted:
        if entry.kind == "file" and entry.sha256:
            by_sha_del.setdefault(entry.sha256, []).append(path)
    for path, entry in created:
        if entry.kind == "file" and entry.sha256:
            by_sha_new.setdefault(entry.sha256, []).append(path)
    renamed_from: set[str] = set()
    renamed_to: set[str] = set()
    for sha, froms in by_sha_del.items():
        tos = by_sha_new.get(sha, [])
        if len(froms) == 1 and len(tos) == 1:
            renamed_from.add(froms[0])
            renamed_to.add(tos[0])
            events.append({"op": "rename", "path": tos[0], "kind": "file", "sha256": sha, "from": froms[0]})
    for path, entry in deleted:
        if path not in renamed_from or entry.kind != "file":
            events.append({"op": "delete", "path": path, "kind": entry.kind})
    for path, entry in created:
        if path in renamed_to and entry.kind == "file":
            continue
        event: dict[str, Any] = {"op": "create", "path": path, "kind": entry.kind}
        if entry.kind == "file":
            event["sha256"] = entry.sha256
        events.append(event)
    for path, entry in modified:
        events.append({"op": "modify", "path": path, "kind": "file", "sha256": entry.sha256})
    if all(e["path"].isascii() for e in events):
        events.sort(key=lambda e: str(e["path"]))
    else:
        events.sort(key=lambda e: code_unit_key(e["path"]))
    return events


def changed_map(events: Iterable[Mapping[str, Any]]) -> dict[str, str | None]:
    """The sync barrier's `changed`: files only, None for deletes and rename sources."""
    changed: dict[str, str | None] = {}
    for event in events:
        if event["kind"] != "file":
            continue
        if event["op"] == "delete":
            changed[event["path"]] = None
        else:
            changed[event["path"]] = event["sha256"]
            if event["op"] == "rename":
                changed[event["from"]] = None
    return changed
