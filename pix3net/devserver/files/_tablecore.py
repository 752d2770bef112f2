"""FileCore's table: the project's files as last scanned, kept current by :meth:`TableCore.apply`.

Every change, ours or the watcher's, goes through ``apply``: the prefixes rescanned, the table
swapped in whole (the trio thread reads it without the lock), the seq bumped, one ``pix3:fs`` frame
emitted and the journaled files recorded (docs/devserver-files.md, "The file table and its
events"). :class:`pix3net.devserver.files._filecore.FileCore` is a TableCore with the reads, the writes
and the history; it sets the state declared here.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import Any

from pix3tools.core.walk import sort_paths  # not pix3tools.project: its scene model is not needed here

from ._fsutil import open_file_nofollow
from ._journal import History
from ._paths import is_journaled
from ._table import Entry, Scanner, changed_map, diff, outermost, revision_of


class TableCore:
    """The table and the operations that keep it current (the state is FileCore's ``__init__``'s)."""

    root: str
    seq: int
    lock: threading.RLock
    scanner: Scanner
    table: dict[str, Entry]
    log: Callable[[str], None]
    history: History
    _emit: Callable[[dict[str, Any]], None]
    _own: dict[str, str]
    _revision: str

    @property
    def revision(self) -> str:
        """Kept current by every change, so the trio thread reads it without taking the lock."""
        return self._revision

    def abspath(self, wire: str) -> str:
        return os.path.join(self.root, *wire.split("/"))

    def remember_own(self, wire: str, st: os.stat_result, sha: str) -> None:
        """``wire`` was just written by us with ``sha``: the scanner need not hash it again, and
        the watcher's event for it is ours."""
        self.scanner.remember(wire, st, sha)
        self._own[wire] = sha

    def journal(self, wire: str, author: str, note: str | None = None) -> None:
        """Journal failures are logged, never fail the write."""
        try:
            fd = open_file_nofollow(self.root, wire)
            try:
                chunks = []
                while chunk := os.read(fd, 1 << 20):
                    chunks.append(chunk)
            finally:
                os.close(fd)
            self.history.record(wire, b"".join(chunks), author, note)
        except OSError as exc:
            self.log(f"history: could not record {wire}: {exc}")

    def apply(
        self,
        prefixes: Iterable[str],
        *,
        mode: str,
        writer: str | None = None,
        scanned: dict[str, Entry] | None = None,
        keep: frozenset[str] = frozenset(),
    ) -> list[dict[str, Any]]:
        """Rescan ``prefixes``, update the table, bump seq, emit one frame, journal
        (docs/devserver-files.md, "The file table and its events").

        ``mode``: ``own`` (API write: author editor, seq bumps even without events),
        ``restore`` (author external, seq bumps), ``external`` (watcher/rescan).
        ``scanned``/``keep``: the watcher's second scan and the unstable paths left as they were.
        """
        with self.lock:
            tops = outermost(prefixes)
            if "" in tops:
                old = dict(self.table)
            else:
                exact = set(tops)
                below = tuple(t + "/" for t in tops)
                old = {p: e for p, e in self.table.items() if p in exact or p.startswith(below)}
            if scanned is None:
                new: dict[str, Entry] = {}
                for top in tops:
                    new.update(self.scanner.scan(top))
            else:
                new = {p: e for p, e in scanned.items() if p not in keep}
                new.update({p: e for p, e in old.items() if p in keep})
            events = diff(old, new)
            # A new dict swapped in whole: the trio thread reads the table without the lock.
            table = {p: e for p, e in self.table.items() if p not in old} if old else dict(self.table)
            table.update(new)
            self.table = table
            if events:
                self._revision = revision_of(self.table)
            for event in events:
                if mode == "own":
                    event["author"] = "editor"
                elif mode == "restore":
                    event["author"] = "external"
                else:
                    own = self._own.get(event["path"])
                    is_own = event["kind"] == "file" and own is not None and own == event.get("sha256")
                    event["author"] = "editor" if is_own else "external"
            if mode != "external" or events:
                self.seq += 1
            if events:
                frame: dict[str, Any] = {"type": "pix3:fs", "seq": self.seq, "revision": self.revision}
                frame["events"] = events
                if mode == "own" and writer is not None:
                    frame["writerId"] = writer
                self._emit(frame)
                if mode != "restore":
                    for event in events:
                        if event["kind"] == "file" and event["op"] != "delete" and is_journaled(event["path"]):
                            self.journal(event["path"], "editor" if mode == "own" else "external")
            return events

    def rescan(self) -> dict[str, str | None]:
        """A full immediate rescan (manifest, sync): the barrier's `changed` map."""
        with self.lock:
            return changed_map(self.apply([""], mode="external"))

    def manifest(self) -> dict[str, Any]:
        with self.lock:
            self.apply([""], mode="external")
            files = []
            for path in sort_paths(self.table):
                entry = self.table[path]
                item: dict[str, Any] = {"path": path, "kind": entry.kind, "size": entry.size, "mtime": entry.mtime}
                if entry.kind == "file":
                    item["sha256"] = entry.sha256
                files.append(item)
            return {"revision": self.revision, "seq": self.seq, "files": files}

    def table_sha(self, wire: str) -> str | None:
        entry = self.table.get(wire)
        return entry.sha256 if entry is not None and entry.kind == "file" else None
