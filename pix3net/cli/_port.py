"""Port values on the command line, read as the reference reads them (JS ``Number()``, spec/cdp.md §9)."""

from __future__ import annotations

import re

_RADIX = re.compile(r"^0[xXoObB][0-9a-fA-F]+$")
_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def parse_port(text: str) -> int | None:
    """An integer 1..65535 (``0x10``, ``1e3`` and surrounding spaces accepted), else None."""
    s = text.strip()
    if _RADIX.match(s):
        value = float(int(s, 0))
    elif _DECIMAL.match(s):
        value = float(s)
    else:
        return None
    if not value.is_integer() or not 1 <= value <= 65535:
        return None
    return int(value)
