"""Timestamps as JavaScript's ``Date.prototype.toISOString()`` writes them: UTC, milliseconds,
``Z`` (``2026-10-10T12:00:00.123Z``). The reference's records and logs use that form: dev.json's
``startedAt``, chrome.json, the owner's log, a new project's ``createdAt``, a gap's ``ts``.

Standard library only; ``datetime`` is imported only for a moment given as one (the owner's log
lines are written before it spawns Chrome, where every import counts).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime


def iso_time(moment: datetime | None = None) -> str:
    """``moment`` (default: now) as ``toISOString()`` writes it (milliseconds truncated, as JS's)."""
    if moment is not None:
        from datetime import UTC

        utc = moment.astimezone(UTC)
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    seconds, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{nanoseconds // 1_000_000:03d}Z"
