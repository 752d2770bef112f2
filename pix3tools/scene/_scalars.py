"""The names both YAML readers share (``_yaml``'s and ``_fastyaml``'s line reader): the plain
scalars of the YAML 1.2 core schema, and how deep a document may nest. A module of their own so
neither reader imports the other for them.
"""

from __future__ import annotations

import math
import re
from typing import Any

# Deeper than this is no scene a person or a tool writes; Python's recursion would be next.
MAX_DEPTH = 500

_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_WORDS: dict[str, Any] = {
    "": None,
    "~": None,
    "null": None,
    "Null": None,
    "NULL": None,
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
    ".inf": math.inf,
    ".Inf": math.inf,
    ".INF": math.inf,
    "+.inf": math.inf,
    "+.Inf": math.inf,
    "+.INF": math.inf,
    "-.inf": -math.inf,
    "-.Inf": -math.inf,
    "-.INF": -math.inf,
    ".nan": math.nan,
    ".NaN": math.nan,
    ".NAN": math.nan,
}


def resolve_plain(value: str) -> Any:
    """A plain (unquoted, untagged) scalar under the YAML 1.2 core schema."""
    first = value[:1]
    if first in "0123456789-+." and first:
        if _INT.match(value):
            return int(value)
        if _FLOAT.match(value):
            return float(value)
        if _OCT.match(value):
            return int(value[2:], 8)
        if _HEX.match(value):
            return int(value[2:], 16)
    return _WORDS.get(value, value) if len(value) <= 6 else value
