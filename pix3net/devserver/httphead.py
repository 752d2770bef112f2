"""HTTP/1.1 heads as the splice reads them: just enough to frame a message, nothing more.

Pure (bytes in, a `Head` out). Only plain heads are accepted: a request line `METHOD target
HTTP/1.x`, well-formed `name: value` lines, at most one numeric Content-Length. Anything else
(obsolete line folding, a space before a colon, a request Transfer-Encoding, `Expect`) is not
refused here but answered None, so the splice hands the connection to Hypercorn, whose h11
parser owns the refusals. That keeps the two parsers on one path from ever framing a message
differently (no request smuggling between them).

Two C-level regular expressions per head instead of a Python loop over its lines: the splice
is on the path of every module fetch (docs/devserver.md "Shape").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_HEAD = 64 * 1024  # a larger head goes to Hypercorn, which owns the limits (h11_max_incomplete_size)

_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_FIELDS = rb"(?:" + _TOKEN + rb":[^\r\n]*\r\n)*\r\n"
_REQUEST = re.compile(rb"(" + _TOKEN + rb") ([^ \x00-\x1f\x7f]+) HTTP/1\.([01])\r\n" + _FIELDS)
_RESPONSE = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: [^\r\n]*)?\r\n" + _FIELDS)
_FRAMING = re.compile(rb"\n(content-length|transfer-encoding|connection|expect|upgrade):([^\r\n]*)", re.I)


@dataclass(frozen=True)
class Head:
    """What framing needs from one head. ``status`` is 0 for a request, ``method`` empty for a response."""

    method: bytes
    target: bytes
    status: int
    length: int | None  # Content-Length
    chunked: bool  # Transfer-Encoding: chunked (responses only: a chunked request is not plain)
    close: bool  # Connection: close, or HTTP/1.0 without keep-alive
    upgrade: bool  # Connection: upgrade (Vite's HMR WebSocket)


def _fields(block: bytes, http10: bool, request: bool) -> tuple[int | None, bool, bool, bool] | None:
    """(length, chunked, close, upgrade) or None when the head is not plain."""
    length: int | None = None
    chunked = close = upgrade = False
    keep_alive = False
    for match in _FRAMING.finditer(block):
        name = match.group(1).lower()
        value = match.group(2).strip(b" \t")
        if name == b"content-length":
            if length is not None or not value.isdigit():
                return None
            length = int(value)
        elif name == b"transfer-encoding":
            if request or value.lower() != b"chunked":
                return None
            chunked = True
        elif name == b"connection":
            tokens = [t.strip(b" \t") for t in value.lower().split(b",")]
            close = close or b"close" in tokens
            keep_alive = keep_alive or b"keep-alive" in tokens
            upgrade = upgrade or b"upgrade" in tokens
        elif name == b"expect":
            return None
    if chunked and length is not None:
        return None
    if http10 and not keep_alive:
        close = True
    return length, chunked, close, upgrade


def parse_request(head: bytes) -> Head | None:
    """A complete request head (ending in CRLF CRLF), or None when it is not plain."""
    match = _REQUEST.fullmatch(head)
    if match is None:
        return None
    fields = _fields(head[match.end(3) :], match.group(3) == b"0", request=True)
    if fields is None:
        return None
    length, _chunked, close, upgrade = fields
    return Head(match.group(1), match.group(2), 0, length, False, close, upgrade)


def parse_response(head: bytes) -> Head | None:
    """A complete response head, or None when it cannot be framed."""
    match = _RESPONSE.fullmatch(head)
    if match is None:
        return None
    fields = _fields(head[match.end(2) :], match.group(1) == b"0", request=False)
    if fields is None:
        return None
    length, chunked, close, upgrade = fields
    return Head(b"", b"", int(match.group(2)), length, chunked, close, upgrade)


def path_of(target: bytes) -> bytes | None:
    """The path of an origin-form target (`/a/b?x` → `/a/b`); None for `*` or absolute forms."""
    if not target.startswith(b"/"):
        return None
    return target.split(b"?", 1)[0]
