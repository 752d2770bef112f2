"""`FileStore`: the async face of the file service for the trio dev server.

Mutations queue on one fair `trio.Lock` (the write mutex of docs/devserver-files.md, "Writers") and run in
a worker thread so big files never block the loop; frames the core produces are emitted on
the trio thread, in seq order, after each operation.
"""

from __future__ import annotations

import collections
import hashlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import trio

from pix3net.devserver.http import INTERNAL, api_error_of
from pix3tools.core.private import Refused

from ._changeset import ChangeEntry, fingerprint, run_changeset
from ._conditions import parse_etags
from ._diskwatch import Watcher
from ._errors import FileInvalid, FileTooLarge, closed_error
from ._filecore import Emit, Fault, FileCore, FileRead, valid_token
from ._mutations import MutationLog, Outcome

MAX_PUT_BYTES = 1024 * 1024 * 1024  # a PUT body ≤ 1 GiB
WRITE_BATCH = 1024 * 1024  # upload bytes handed to a worker thread at once

T = TypeVar("T")
_logger = logging.getLogger("pix3.devserver.files")


def too_large() -> FileTooLarge:
    return FileTooLarge("too_large", "File too large.")


class FileStore:
    """The project's file service. Construct, ``await start()``, run ``watch`` in a nursery,
    ``await aclose()`` on shutdown."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        emit: Emit,
        log: Callable[[str], None] | None = None,
        clock_ms: Callable[[], int] | None = None,
        fault: Fault | None = None,
    ) -> None:
        self._outbox: collections.deque[dict[str, Any]] = collections.deque()
        self._emit = emit
        self._log = log or _logger.info
        kwargs: dict[str, Any] = {"emit": self._outbox.append, "log": self._log, "fault": fault}
        if clock_ms is not None:
            kwargs["clock_ms"] = clock_ms
        self.core = FileCore(root, **kwargs)
        self.mutex = trio.Lock()
        self.mutations = MutationLog()
        self.closed = False

    # -- state other parts read (hello, welcome, sync) -------------------------------------------
    @property
    def root(self) -> str:
        return self.core.root

    @property
    def seq(self) -> int:
        return self.core.seq

    @property
    def revision(self) -> str:
        return self.core.revision

    @property
    def writer_id(self) -> str | None:
        return self.core.writer_id

    def table_sha(self, wire: str) -> str | None:
        return self.core.table_sha(wire)

    # -- life cycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Changeset recovery, the first scan and the journal snapshot (seq stays 0)."""
        await self._thread(self.core.start)

    async def watch(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Watch the project until cancelled (inotify + periodic full rescans)."""
        await Watcher(self).run(task_status=task_status)

    async def aclose(self) -> None:
        """Refuse new work with 503 `closed`; return when the queued work has finished."""
        self.closed = True
        async with self.mutex:
            pass

    # -- plumbing --------------------------------------------------------------------------------
    def _drain(self) -> None:
        while self._outbox:
            frame = self._outbox.popleft()
            try:
                self._emit(frame)
            except Exception:
                _logger.exception("emit failed for a pix3:fs frame")

    async def _thread(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            return await trio.to_thread.run_sync(fn, *args)
        finally:
            self._drain()

    def _check_open(self) -> None:
        if self.closed:
            raise closed_error()

    async def locked(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a core call in a thread, queued on the write mutex."""
        self._check_open()
        async with self.mutex:
            return await self._thread(fn, *args)

    async def under_mutex(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` in a thread on the write mutex, even once closed (the watcher checks)."""
        async with self.mutex:
            await self._thread(fn)

    async def unlocked(self, fn: Callable[..., T], *args: Any) -> T:
        self._check_open()
        return await self._thread(fn, *args)

    async def mutation(
        self, mutation_id: str | None, fp: str, op: Callable[[], Awaitable[dict[str, Any]]]
    ) -> tuple[int, dict[str, Any], bool]:
        """Run a mutation once per ``X-Mutation-Id``: (status, body, replayed)."""
        if mutation_id is not None and not valid_token(mutation_id):
            raise FileInvalid("bad_mutation_id", "X-Mutation-Id must be 1–128 chars of [A-Za-z0-9_.:-].")
        self._check_open()

        async def wrapped() -> Outcome:
            return 200, await op()

        def on_error(exc: BaseException) -> Outcome:
            # The app's one answer (`devserver.http.answer_errors`), kept here as the outcome a retry
            # with the same X-Mutation-Id replays.
            answer = api_error_of(exc, self.root)
            if answer is None:
                _logger.error("file API operation failed", exc_info=exc)
                return INTERNAL.status, INTERNAL.body()
            self._log(f"refused: {exc}" if isinstance(exc, Refused) else f"write refused: {answer.message}")
            return answer.status, answer.body()

        return await self.mutations.run(mutation_id, fp, wrapped, on_error)

    # -- operations ------------------------------------------------------------------------------
    async def claim(self, writer: object) -> dict[str, Any]:
        """Set the writer under the mutex (writes already queued finish first)."""
        return await self.locked(self.core.claim, writer)

    async def rescan(self) -> dict[str, str | None]:
        """Full immediate rescan for the sync barrier: `changed`."""
        return await self.locked(self.core.rescan)

    async def manifest(self) -> dict[str, Any]:
        return await self.locked(self.core.manifest)

    async def hashes(self, paths: list[str]) -> dict[str, Any]:
        return await self.unlocked(self.core.hashes, paths)

    async def read(self, wire: str) -> FileRead:
        return await self.unlocked(self.core.read, wire)

    async def put(
        self,
        wire: str,
        chunks: AsyncIterator[bytes],
        *,
        content_length: int | None,
        if_match: str | None,
        if_none_match: str | None,
        writer: str | None,
    ) -> dict[str, Any]:
        """Stream an upload into `.pix3/tmp` and rename it over ``wire`` (docs/devserver-files.md, "Writing a file")."""
        if content_length is not None and content_length > MAX_PUT_BYTES:
            raise too_large()
        self._check_open()
        await self._thread(self.core.put_precheck, wire, writer)
        temp, fd = await self._thread(self.core.new_temp, "put")
        digest = hashlib.sha256()
        size = 0
        try:
            try:
                pending: list[bytes] = []
                pending_size = 0
                async for chunk in chunks:
                    size += len(chunk)
                    if size > MAX_PUT_BYTES:
                        raise too_large()
                    pending.append(chunk)
                    pending_size += len(chunk)
                    if pending_size >= WRITE_BATCH:
                        await trio.to_thread.run_sync(_write_all, fd, digest, pending)
                        pending, pending_size = [], 0
                if pending:
                    await trio.to_thread.run_sync(_write_all, fd, digest, pending)
            finally:
                os.close(fd)
            tags = parse_etags(if_none_match)
            create_only = tags is not None and "*" in tags
            return await self.locked(
                lambda: self.core.put_commit(
                    wire,
                    temp,
                    digest.hexdigest(),
                    size,
                    if_match=parse_etags(if_match),
                    create_only=create_only,
                    writer=writer,
                )
            )
        finally:
            self.core.drop_temp(temp)  # a few system calls: done even when cancelled

    async def changeset(self, entries: list[ChangeEntry], writer: str | None) -> dict[str, Any]:
        self.core.check_writer(writer)
        return await self.locked(run_changeset, self.core, entries, writer)

    async def mkdir(self, wire: str, writer: str | None) -> dict[str, Any]:
        self.core.check_writer(writer)
        return await self.locked(self.core.mkdir, wire, writer)

    async def delete(self, wire: str, recursive: bool, writer: str | None) -> dict[str, Any]:
        self.core.check_writer(writer)
        return await self.locked(self.core.delete, wire, recursive, writer)

    async def move(self, src: str, dst: str, overwrite: bool, writer: str | None) -> dict[str, Any]:
        self.core.check_writer(writer)
        return await self.locked(self.core.move, src, dst, overwrite, writer)

    async def restore(self, wire: str, version_id: object, if_match: str | None, writer: str | None) -> dict[str, Any]:
        self.core.check_writer(writer)
        return await self.locked(self.core.restore, wire, version_id, parse_etags(if_match), writer)

    async def record(self, wire: str, text: object, author: object, note: object) -> dict[str, Any]:
        return await self.locked(self.core.record, wire, text, author, note)

    async def history(self, wire: str) -> dict[str, Any]:
        return await self.unlocked(self.core.history_entries, wire)

    async def history_version(self, wire: str, version_id: str) -> tuple[bytes, str]:
        return await self.unlocked(self.core.history_version, wire, version_id)


def _write_all(fd: int, digest: Any, chunks: list[bytes]) -> None:
    for chunk in chunks:
        digest.update(chunk)
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd, view) :]


__all__ = ["ChangeEntry", "FileStore", "fingerprint"]
