"""Source maps written by hand for tests: a base64 VLQ encoder (the reverse of what
pix3tools/smoke/_sourcemap.py decodes) and inline ``data:`` maps."""

from __future__ import annotations

import base64
import json

_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def encode_vlq(values: list[int]) -> str:
    out = []
    for value in values:
        number = (-value << 1) | 1 if value < 0 else value << 1
        while True:
            digit, number = number & 31, number >> 5
            out.append(_DIGITS[digit | (32 if number else 0)])
            if not number:
                break
    return "".join(out)


def mappings(segments: list[tuple[int, int, int, int]]) -> str:
    """``(generated line, generated column, source line, source column)`` (0-based, one source,
    sorted) as a ``mappings`` string."""
    lines: list[list[str]] = []
    columns: dict[int, int] = {}  # the last generated column of each line (columns restart per line)
    src_line = src_col = 0  # source positions are relative across lines
    for line, column, to_line, to_col in segments:
        while len(lines) <= line:
            lines.append([])
        lines[line].append(encode_vlq([column - columns.get(line, 0), 0, to_line - src_line, to_col - src_col]))
        columns[line], src_line, src_col = column, to_line, to_col
    return ";".join(",".join(parts) for parts in lines)


def source_map(source: str, segments: list[tuple[int, int, int, int]]) -> str:
    return json.dumps({"version": 3, "sources": [source], "names": [], "mappings": mappings(segments)})


def inline_map(source: str, segments: list[tuple[int, int, int, int]]) -> str:
    """A ``data:`` URL holding the map (as Vite inlines its maps)."""
    return "data:application/json;base64," + base64.b64encode(source_map(source, segments).encode()).decode()
