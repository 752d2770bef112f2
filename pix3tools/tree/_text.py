"""Text helpers for the outline: numbers printed the way JavaScript prints them, short quotes."""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeGuard

__all__ = ["is_number", "js_number", "js_round", "json_text", "quote_short", "value_text"]

_WHITESPACE = re.compile(r"\s+")
_PLAIN = re.compile(r"^[\w#./:-]+$")


def is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def js_round(value: float, decimals: int = 4) -> float:
    """``Math.round(v · 10^d) / 10^d``: halves round toward +∞, unlike Python's ``round``."""
    if not math.isfinite(value):
        return value
    scale = 10**decimals
    return float(math.floor(value * scale + 0.5) / scale)


def js_number(value: float) -> str:
    """``String(n)`` in JavaScript: integral values without ``.0``, exponents past 1e21 / 1e-7."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    text = repr(value)
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        head = digits[0] + ("." + digits[1:] if k > 1 else "")
        out = f"{head}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + out


def json_text(value: Any) -> str:
    """``JSON.stringify(value)`` (compact, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def quote_short(text: str, limit: int) -> str:
    """Whitespace runs folded to one space, cut to ``limit - 1`` chars + ``…``, JSON-quoted."""
    text = _WHITESPACE.sub(" ", text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return json_text(text)


def _vector(value: Any) -> list[Any] | None:
    if isinstance(value, list) and value and all(is_number(v) for v in value):
        return value
    if isinstance(value, dict) and value and set(value) <= {"x", "y", "z", "w"} and "x" in value:
        parts = [value[k] for k in ("x", "y", "z", "w") if k in value]
        if all(is_number(v) for v in parts):
            return parts
    return None


def value_text(value: Any) -> str:
    """One property value on a ``--props`` line (spec/validate.md §4.5)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return js_number(value)
    if isinstance(value, str):
        return value if _PLAIN.match(value) else quote_short(value, 60)
    vector = _vector(value)
    if vector is not None:
        return "(" + ",".join(js_number(v) for v in vector) + ")"
    if isinstance(value, dict) and isinstance(value.get("url"), str):
        return str(value["url"])
    text = json_text(_plain(value))
    return text if len(text) <= 80 else text[:79] + "…"


def _plain(value: Any) -> Any:
    """Data a YAML file can hold, made JSON-able (dates and other scalars as strings)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
