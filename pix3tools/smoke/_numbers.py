"""`pix3 smoke`'s numeric arguments, read as the reference reads them (docs/smoke.md, "Arguments")."""

from __future__ import annotations

import math

from pix3tools._js import to_number


def positive_number(text: str) -> float | None:
    """``Number(text)`` as JavaScript reads it (blanks around, ``0x10``, ``1e3``), when it is finite
    and above 0; else None."""
    value = to_number(text)
    return value if math.isfinite(value) and value > 0 else None


def frame_count(value: float) -> int:
    """Frames are rounded down, as the reference does: ``--frames 0.5`` runs 0 frames (the load only)."""
    return math.floor(value)
