"""`X-Mutation-Id` replay (docs/devserver-files.md, "Replays (X-Mutation-Id)"): one outcome per id, 2 000 ids kept."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from pix3net.devserver.http import INTERNAL, ApiError

MAX_IDS = 2000  # mutation-id memory

Outcome = tuple[int, dict[str, Any]]


@dataclass
class _Record:
    fingerprint: str
    done: trio.Event = field(default_factory=trio.Event)
    outcome: Outcome | None = None


class MutationLog:
    def __init__(self, limit: int = MAX_IDS) -> None:
        self._limit = limit
        self._records: OrderedDict[str, _Record] = OrderedDict()

    async def run(
        self,
        mutation_id: str | None,
        fingerprint: str,
        op: Callable[[], Awaitable[Outcome]],
        on_error: Callable[[BaseException], Outcome],
    ) -> tuple[int, dict[str, Any], bool]:
        """Run ``op`` once per id; a repeat (even in flight) gets the same answer, replayed."""
        if mutation_id is None:
            status, body = await _guarded(op, on_error)
            return status, body, False
        record = self._records.get(mutation_id)
        if record is not None:
            if record.fingerprint != fingerprint:
                raise ApiError(422, "mutation_id_reused", "That X-Mutation-Id was used for a different request.")
            await record.done.wait()
            if record.outcome is None:
                raise INTERNAL.error()
            return record.outcome[0], record.outcome[1], True
        record = _Record(fingerprint)
        self._records[mutation_id] = record
        while len(self._records) > self._limit:
            self._records.popitem(last=False)
        try:
            record.outcome = await _guarded(op, on_error)
        except BaseException:
            # Cancelled before an outcome: forget the id so a retry runs the operation.
            self._records.pop(mutation_id, None)
            raise
        finally:
            record.done.set()
        return record.outcome[0], record.outcome[1], False


async def _guarded(op: Callable[[], Awaitable[Outcome]], on_error: Callable[[BaseException], Outcome]) -> Outcome:
    try:
        return await op()
    except ApiError as exc:
        return exc.status, exc.body()
    except Exception as exc:
        return on_error(exc)
