"""A sort key that orders strings the way JavaScript's ``localeCompare`` (ICU root) does for
file names and codes: case-insensitive first, punctuation before digits before letters, then
lower case before upper case as the tie-break."""

from __future__ import annotations


def _primary(ch: str) -> tuple[int, str]:
    low = ch.lower()
    if low.isalpha():
        return (3, low)
    if ch.isdigit():
        return (2, ch)
    if ch.isspace():
        return (0, ch)
    return (1, ch)


def locale_key(text: str) -> tuple[tuple[tuple[int, str], ...], tuple[int, ...]]:
    return (
        tuple(_primary(ch) for ch in text),
        tuple(1 if ch.isupper() else 0 for ch in text),
    )
