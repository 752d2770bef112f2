"""Text helpers for the outline: short quotes and property values."""

from __future__ import annotations

import re
from typing import Any

from pix3tools._js import is_number, js_number, js_round, js_string, json_text, plain_number

__all__ = ["is_number", "js_number", "js_round", "json_text", "quote_short", "tidy_number", "value_text"]

_WHITESPACE = re.compile(r"\s+")
_PLAIN = re.compile(r"^[\w#./:-]+$")


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


def tidy_number(value: float | None) -> float | None:
    """A coordinate as shown: 4 decimals, integral values as ints; NaN / ±Infinity (YAML's .nan,
    .inf) pass through (the text prints them as JS does, JSON as null)."""
    return None if value is None else plain_number(js_round(value))


def value_text(value: Any) -> str:
    """One property value on a ``--props`` line (docs/tree.md, "Properties")."""
    if value is None or isinstance(value, bool | int | float):
        return js_string(value)
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
