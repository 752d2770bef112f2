"""Seeing changes made outside the file API (docs/devserver-files.md, "The file table and its events").

inotify marks paths dirty; a batch waits until 300 ms pass without a new event (at most 1 s
after the first), scans, waits 300 ms, scans again under the write mutex and applies what
did not change in between (unstable paths are retried). A periodic full rescan is the safety
net for everything inotify misses (watch limits, queue overflow, other platforms).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

import trio

from ._filecore import FileCore
from ._inotify import IN_IGNORED, IN_Q_OVERFLOW, Inotify
from ._paths import TEMP_NAME
from ._table import EXCLUDED_DIRS, Entry, outermost

STABLE_S = 0.3  # stability wait and re-arm delay
BATCH_MAX_S = 1.0  # a batch starts at most 1 s after its first dirty path
RESCAN_WITH_INOTIFY_S = 10.0  # safety net; inotify sees nearly everything
RESCAN_WITHOUT_INOTIFY_S = 2.0  # rescan-only mode


class WatchedStore(Protocol):
    """What the watcher uses of the file store (`_store.FileStore`, which starts it): named here
    so this module does not import the one that imports it."""

    @property
    def core(self) -> FileCore: ...
    @property
    def closed(self) -> bool: ...
    async def under_mutex(self, fn: Callable[[], None]) -> None: ...


class Watcher:
    def __init__(self, store: WatchedStore) -> None:
        self.store = store
        self.core = store.core
        self.inotify: Inotify | None = None
        self.wd_dirs: dict[int, str] = {}
        self.watched: dict[str, int] = {}
        self.dirty: set[str] = set()
        self.first_dirty = math.inf
        self.last_event = -math.inf
        self.wakeup = trio.Event()

    def mark(self, wire: str) -> None:
        now = trio.current_time()
        if not self.dirty:
            self.first_dirty = now
        self.dirty.add(wire)
        self.last_event = now
        self.wakeup.set()

    def _excluded(self, wire: str) -> bool:
        parts = wire.split("/")
        if parts[0] == ".pix3" or TEMP_NAME.match(parts[-1]):
            return True
        return any(part in EXCLUDED_DIRS for part in parts[:-1])

    def _sync_watches(self) -> None:
        """Watch every folder of the table (and the root); drop watches of folders gone or moved."""
        if self.inotify is None:
            return
        dirs = {""} | {p for p, e in self.core.table.items() if e.kind == "dir"}
        for wire in [w for w in self.watched if w not in dirs]:
            wd = self.watched.pop(wire)
            if self.wd_dirs.get(wd) == wire:
                del self.wd_dirs[wd]
                self.inotify.remove(wd)
        for wire in dirs - self.watched.keys():
            wd = self.inotify.add(self.core.abspath(wire) if wire else self.core.root)
            if wd < 0:
                continue
            previous = self.wd_dirs.get(wd)
            if previous is not None and previous != wire:
                self.watched.pop(previous, None)  # same inode under a new name: a moved folder
            self.watched[wire] = wd
            self.wd_dirs[wd] = wire

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        self.inotify = Inotify.create()
        try:
            await trio.to_thread.run_sync(self._sync_watches)
            async with trio.open_nursery() as nursery:
                if self.inotify is not None:
                    nursery.start_soon(self._read_loop)
                nursery.start_soon(self._batch_loop)
                nursery.start_soon(self._rescan_loop)
                task_status.started()
        finally:
            if self.inotify is not None:
                self.inotify.close()

    async def _read_loop(self) -> None:
        assert self.inotify is not None
        while True:
            await trio.lowlevel.wait_readable(self.inotify.fd)
            for wd, mask, name in self.inotify.read():
                if mask & IN_Q_OVERFLOW:
                    self.mark("")
                    continue
                folder = self.wd_dirs.get(wd)
                if mask & IN_IGNORED:
                    if folder is not None:
                        self.wd_dirs.pop(wd, None)
                        if self.watched.get(folder) == wd:
                            del self.watched[folder]
                    continue
                if folder is None:
                    continue
                wire = f"{folder}/{name}" if folder and name else (name or folder)
                if wire and self._excluded(wire):
                    continue
                self.mark(wire)

    async def _batch_loop(self) -> None:
        while True:
            await self.wakeup.wait()
            self.wakeup = trio.Event()
            while self.dirty:
                deadline = min(self.last_event + STABLE_S, self.first_dirty + BATCH_MAX_S)
                if trio.current_time() < deadline:
                    await trio.sleep_until(deadline)
                    continue
                prefixes = outermost(self.dirty)
                self.dirty.clear()
                self.first_dirty = math.inf
                await self._batch(prefixes)

    async def _batch(self, prefixes: list[str]) -> None:
        if self.store.closed:
            return
        first = await trio.to_thread.run_sync(self._scan, prefixes)
        await trio.sleep(STABLE_S)
        unstable: set[str] = set()

        def second() -> None:
            with self.core.lock:
                again = self._scan(prefixes)
                for path in first.keys() | again.keys():
                    a, b = first.get(path), again.get(path)
                    if (a and (a.kind, a.sha256)) != (b and (b.kind, b.sha256)):
                        unstable.add(path)
                self.core.apply(prefixes, mode="external", scanned=again, keep=frozenset(unstable))
                self._sync_watches()

        if self.store.closed:
            return
        await self.store.under_mutex(second)
        if unstable:
            await trio.sleep(STABLE_S)
            for path in unstable:
                self.mark(path)

    def _scan(self, prefixes: list[str]) -> dict[str, Entry]:
        with self.core.lock:
            out: dict[str, Entry] = {}
            for prefix in prefixes:
                out.update(self.core.scanner.scan(prefix))
            return out

    async def _rescan_loop(self) -> None:
        every = RESCAN_WITH_INOTIFY_S if self.inotify is not None else RESCAN_WITHOUT_INOTIFY_S
        while True:
            await trio.sleep(every)
            if self.store.closed:
                continue

            def full() -> None:
                with self.core.lock:
                    self.core.apply([""], mode="external")
                    self._sync_watches()

            await self.store.under_mutex(full)


__all__ = ["Watcher"]
