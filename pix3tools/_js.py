"""Values printed the way JavaScript prints them (the reference's outputs are JS strings)."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any, TypeGuard

__all__ = [
    "is_number",
    "js_number",
    "js_round",
    "js_string",
    "json_text",
    "locale_key",
    "plain_number",
    "to_number",
]


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
    if value.is_integer() and abs(value) < 2**53:  # exact as an int; beyond, JS pads its digits
        return str(int(value))
    text = repr(value)
    if "e" not in text:  # both print the shortest round-trip digits; only exponent forms differ
        return text
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


def js_string(value: Any) -> str:
    """``String(v)`` for the values a YAML or JSON file holds (messages quote them this way)."""
    if value is None:
        return "null"
    if isinstance(value, bool | int | float):
        return js_number(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str)


def json_text(value: Any) -> str:
    """``JSON.stringify(value)`` (compact, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def plain_number(value: float) -> float:
    """An integral float as an int, so ``json.dumps`` prints ``12`` as ``JSON.stringify`` does."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


_DECIMAL = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_RADIX = re.compile(r"^0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)$")


def to_number(text: str) -> float:
    """``Number(text)`` in JavaScript: blanks around ignored, empty → 0, ``0x``/``0o``/``0b``
    integers, ``Infinity``; anything else NaN."""
    s = text.strip()
    if not s:
        return 0.0
    if s in ("Infinity", "+Infinity"):
        return math.inf
    if s == "-Infinity":
        return -math.inf
    if _DECIMAL.match(s):
        return float(s)
    if _RADIX.match(s):
        return float(int(s, 0))
    return math.nan


# -- JavaScript String.prototype.localeCompare (ICU root collation), for ASCII-ish text ----------
# Root collation puts whitespace, then punctuation and symbols in this order, then digits, then
# letters (case-insensitive at the primary level, lowercase first at the tertiary level).
_PUNCT = "\t\n\v\f\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_PRIMARY: dict[str, int] = {ch: i for i, ch in enumerate(_PUNCT)}
_DIGIT_BASE = len(_PUNCT)
_LETTER_BASE = _DIGIT_BASE + 10


def _primary(ch: str) -> tuple[int, int]:
    weight = _PRIMARY.get(ch)
    if weight is not None:
        return (weight, 0)
    if "0" <= ch <= "9":
        return (_DIGIT_BASE + ord(ch) - 48, 0)
    base = unicodedata.normalize("NFD", ch)[0].lower()
    if "a" <= base <= "z":
        return (_LETTER_BASE + ord(base) - 97, 0 if base == ch.lower() else 1)
    return (_LETTER_BASE + 26 + ord(base), 0)


def locale_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], str]:
    """A sort key approximating ``a.localeCompare(b)`` (primary letters, then accents, then case)."""
    prim = [_primary(ch) for ch in text]
    return (
        tuple(p[0] for p in prim),
        tuple(p[1] for p in prim),
        tuple(1 if ch.isupper() else 0 for ch in text),
        text,
    )
