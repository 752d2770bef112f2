"""Suggestions for misspelt keys and ids (docs/validate.md, "Suggestions")."""

from __future__ import annotations

from collections.abc import Iterable

from pix3tools.scene import levenshtein

__all__ = ["nearest"]


def nearest(value: object, candidates: Iterable[str]) -> str | None:
    """A candidate equal ignoring case wins at once; else the lowest Levenshtein distance on
    lowercased text (first minimum), accepted when ≤ 2 (≤ 3 for inputs of 10+ characters)."""
    value = str(value)  # a YAML key may be a number; the reference sees it as text
    pool = list(candidates)
    lowered = value.lower()
    for cand in pool:
        if cand != value and cand.lower() == lowered:
            return cand
    best: tuple[int, str] | None = None
    for cand in pool:
        distance = levenshtein(lowered, cand.lower())
        if best is None or distance < best[0]:
            best = (distance, cand)
    if best is None:
        return None
    limit = 3 if len(value) >= 10 else 2
    return best[1] if best[0] <= limit else None
