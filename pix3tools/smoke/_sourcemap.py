"""Source maps (version 3), read just enough to turn a position in served code into a position in
the project's source: base64 VLQ mappings, one lookup (docs/smoke.md, "Stacks").

Pure: the map's JSON text in, positions out. Index maps (``sections``) are not read: Vite and
esbuild write plain maps for modules.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

_B64 = {ch: i for i, ch in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
# The last `//# sourceMappingURL=` (or the old `//@`) comment of a script.
_MAP_COMMENT = re.compile(r"[#@]\s*sourceMappingURL=([^\s'\"]+)\s*(?:\*/)?\s*$")
_TAIL_BYTES = 4096  # the comment sits at the very end; an inline map can be long, so it is searched for separately


class SourceMapError(ValueError):
    pass


def decode_vlq(segment: str) -> list[int]:
    """The signed integers of one mapping segment (``AAgBC`` → ``[0, 0, 16, 1]``)."""
    values: list[int] = []
    value = shift = 0
    for ch in segment:
        digit = _B64.get(ch)
        if digit is None:
            raise SourceMapError(f"bad base64 VLQ digit {ch!r}")
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            continue
        values.append(-(value >> 1) if value & 1 else value >> 1)
        value = shift = 0
    if shift:
        raise SourceMapError("truncated VLQ segment")
    return values


@dataclass(frozen=True)
class Position:
    source: str  # as the map names it, joined with its sourceRoot
    line: int  # 0-based
    column: int  # 0-based
    name: str | None = None


class SourceMap:
    """One decoded map. ``lookup(line, column)`` (0-based, generated) → the original position of
    the closest mapping at or left of the column on that line, or None."""

    def __init__(self, text: str) -> None:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SourceMapError(f"not JSON: {exc}") from exc
        if not isinstance(data, dict) or not isinstance(data.get("mappings"), str):
            raise SourceMapError("no mappings")
        given_root, sources, names = data.get("sourceRoot"), data.get("sources"), data.get("names")
        root = given_root if isinstance(given_root, str) else ""
        if root and not root.endswith("/"):
            root += "/"
        self.sources = [root + s if isinstance(s, str) else "" for s in (sources if isinstance(sources, list) else [])]
        self.names = [n if isinstance(n, str) else "" for n in (names if isinstance(names, list) else [])]
        self._lines = self._decode(data["mappings"])

    @staticmethod
    def _decode(mappings: str) -> list[list[tuple[int, int, int, int, int]]]:
        lines: list[list[tuple[int, int, int, int, int]]] = []
        source = src_line = src_col = name = 0
        for text in mappings.split(";"):
            column = 0
            segments: list[tuple[int, int, int, int, int]] = []
            for piece in text.split(","):
                if not piece:
                    continue
                fields = decode_vlq(piece)
                column += fields[0]
                if len(fields) >= 4:
                    source += fields[1]
                    src_line += fields[2]
                    src_col += fields[3]
                    if len(fields) >= 5:
                        name += fields[4]
                    segments.append((column, source, src_line, src_col, name if len(fields) >= 5 else -1))
                else:  # a column with no source: code the map says nothing about
                    segments.append((column, -1, 0, 0, -1))
            segments.sort()
            lines.append(segments)
        return lines

    def lookup(self, line: int, column: int) -> Position | None:
        if not 0 <= line < len(self._lines):
            return None
        segments = self._lines[line]
        index = bisect.bisect_right(segments, (column, 1 << 62)) - 1
        if index < 0:
            return None
        _, source, src_line, src_col, name = segments[index]
        if not 0 <= source < len(self.sources):
            return None
        label = self.names[name] if 0 <= name < len(self.names) else None
        return Position(self.sources[source], src_line, src_col, label or None)


def map_url_of(script: str) -> str | None:
    """The ``sourceMappingURL`` a script's last comment names (a ``data:`` URL or a relative one)."""
    tail = script[-_TAIL_BYTES:]
    match = _MAP_COMMENT.search(tail)
    if match is None:
        start = script.rfind("sourceMappingURL=data:")  # an inline map longer than the tail
        if start < 0:
            return None
        match = _MAP_COMMENT.search(script[start - 4 :] if start >= 4 else script)
    return match.group(1) if match else None


def decode_data_url(url: str) -> str | None:
    """The text of a ``data:`` URL (base64 or percent-encoded), or None."""
    if not url.startswith("data:"):
        return None
    header, _, payload = url[5:].partition(",")
    try:
        raw = base64.b64decode(payload) if header.endswith(";base64") else unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "replace")
