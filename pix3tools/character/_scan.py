"""Numbered frame files grouped into sequences (docs/character-compile.md, "Sequences")."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

__all__ = ["Group", "Scan", "locale_key", "scan_frames", "sequence_key"]

# Shortest prefix, an optional run of separators, the trailing digits.
_NUMBERED = re.compile(r"^(.*?)[ _.\-]*([0-9]+)$")
_TRAILING_SEPARATORS = re.compile(r"[ _.\-]+$")


@dataclass
class Group:
    key: str
    frames: list[tuple[int, str]] = field(default_factory=list)  # (number, path), numeric order

    @property
    def numbers(self) -> list[int]:
        return [number for number, _ in self.frames]

    @property
    def paths(self) -> list[str]:
        return [path for _, path in self.frames]

    @property
    def duplicates(self) -> list[int]:
        seen: set[int] = set()
        repeated: list[int] = []
        for number in self.numbers:
            if number in seen and number not in repeated:
                repeated.append(number)
            seen.add(number)
        return repeated

    @property
    def gaps(self) -> list[int]:
        numbers = set(self.numbers)
        if not numbers:
            return []
        return [n for n in range(min(numbers), max(numbers) + 1) if n not in numbers]


@dataclass
class Scan:
    groups: list[Group]
    unnumbered: list[str]

    def group(self, key: str) -> Group | None:
        return next((g for g in self.groups if g.key == key), None)


# JavaScript's localeCompare (ICU root collation) for the ASCII-ish names of frame files:
# whitespace and punctuation first, then digits, then letters case-insensitively (lowercase
# first on a tie).
_PUNCT = "\t\n\v\f\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_PRIMARY = {ch: i for i, ch in enumerate(_PUNCT)}


def _primary(ch: str) -> int:
    weight = _PRIMARY.get(ch)
    if weight is not None:
        return weight
    if "0" <= ch <= "9":
        return len(_PUNCT) + ord(ch) - 48
    base = unicodedata.normalize("NFD", ch)[0].lower()
    if "a" <= base <= "z":
        return len(_PUNCT) + 10 + ord(base) - 97
    return len(_PUNCT) + 36 + ord(base)


def locale_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    return (tuple(_primary(ch) for ch in text), tuple(1 if ch.isupper() else 0 for ch in text), text)


def sequence_key(sequence: str) -> str:
    """``sword/attack``, ``sword/attack_`` and ``sword\\attack-`` name the same sequence."""
    key = sequence.replace("\\", "/").rstrip("/")
    return _TRAILING_SEPARATORS.sub("", key)


def _stem(name: str) -> str:
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def scan_frames(paths: list[str]) -> Scan:
    """Group ``dir/name<n>.png`` paths by ``dir/name``; paths use ``/`` (``\\`` is converted)."""
    groups: dict[str, Group] = {}
    unnumbered: list[str] = []
    for raw in paths:
        path = raw.replace("\\", "/")
        folder, _, name = path.rpartition("/")
        match = _NUMBERED.match(_stem(name))
        if match is None or not match.group(1):
            unnumbered.append(path)
            continue
        key = f"{folder}/{match.group(1)}" if folder else match.group(1)
        groups.setdefault(key, Group(key)).frames.append((int(match.group(2)), path))
    ordered = sorted(groups.values(), key=lambda g: locale_key(g.key))
    for group in ordered:
        group.frames.sort(key=lambda item: (item[0], locale_key(item[1])))
    return Scan(ordered, unnumbered)
