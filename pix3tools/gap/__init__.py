"""`pix3 gap`: record what an agent had to work around, in ``.pix3/gaps.jsonl`` (spec/cli.md §3).

Public surface: :func:`main` (the command), :func:`run` (the same with the clock, environment and
streams passed in), and the record helpers in ``_record``.
"""

from __future__ import annotations

from pix3tools.gap._command import main, run
from pix3tools.gap._record import GAPS_FILE, KINDS, GapError, append_record, build_record, detect_agent, read_records

__all__ = [
    "GAPS_FILE",
    "KINDS",
    "GapError",
    "append_record",
    "build_record",
    "detect_agent",
    "main",
    "read_records",
    "run",
]
