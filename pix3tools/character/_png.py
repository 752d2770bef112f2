"""A PNG's pixel size from its header: no image library needed.

A PNG has at least 24 bytes: the 8-byte signature, then ``IHDR`` at bytes 12–15 and the width and
height as big-endian u32 at 16 and 20, both above 0. Anything else is not a PNG."""

from __future__ import annotations

from pathlib import Path

__all__ = ["png_size", "png_size_of_file"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_HEADER_BYTES = 24  # 8 signature + 4 length + 4 "IHDR" + 4 width + 4 height


def png_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) when ``head`` starts a PNG with an IHDR chunk and both sides > 0."""
    if len(head) < _HEADER_BYTES or head[:8] != _SIGNATURE or head[12:16] != b"IHDR":
        return None
    width = int.from_bytes(head[16:20], "big")
    height = int.from_bytes(head[20:24], "big")
    return (width, height) if width > 0 and height > 0 else None


def png_size_of_file(path: Path) -> tuple[int, int] | None:
    with path.open("rb") as handle:
        return png_size(handle.read(_HEADER_BYTES))
