"""`pix3 gap`: record what an agent had to work around, in ``.pix3/gaps.jsonl`` (docs/gap.md).

Public surface: the record helpers (``_record``); the command is ``pix3tools.gap.command``
(its ``main`` takes the clock, environment and streams for tests).
"""

from __future__ import annotations

from pix3tools.gap._record import GAPS_FILE, KINDS, GapError, append_record, build_record, detect_agent, read_records

__all__ = [
    "GAPS_FILE",
    "KINDS",
    "GapError",
    "append_record",
    "build_record",
    "detect_agent",
    "read_records",
]
