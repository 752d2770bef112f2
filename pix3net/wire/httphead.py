"""HTTP/1.1 heads, sans-IO and standard library only: pix3's one parser of them (docs/architecture.md,
"Wire code"). Bytes in, a head out; nothing here reads a socket.

One grammar (a request line or a status line, then `name: value` field lines whose names are
tokens, then a blank line), three readers:

- the front door's splice (`parse_request`, `parse_response`, `common_request`,
  `common_answer_end`, `host_field`, `path_of`): just enough to frame a message. Only plain heads
  are accepted: a request line `METHOD target HTTP/1.x`, well-formed `name: value` lines, at most
  one numeric Content-Length. Anything else (obsolete line folding, a space before a colon, a
  request Transfer-Encoding, `Expect`) is not refused here but answered None, so the splice hands
  the connection to Hypercorn, whose h11 parser owns the refusals. That keeps the two parsers on
  one path from ever framing a message differently (no request smuggling between them).
- the CDP proxy (`request_head`: every field of a request head, the proxy's framing rules are
  its own, ``wire.httpwire``);
- the clients of our daemons (`answer_head`: an answer's status and fields, for the plain-socket
  probes and the CDP WebSocket client's handshake, ``pix3net.clients.probe``, ``pix3net.clients.cdp``).

C-level regular expressions instead of a Python loop over the lines: the splice is on the path
of every module fetch (docs/devserver.md "Shape"). The common request and the common answer are
one match each (`common_request`, `common_answer_end`); the rest is `parse_request` /
`parse_response`.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

MAX_HEAD = 64 * 1024  # a larger head goes to Hypercorn, which owns the limits (h11_max_incomplete_size)

_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_FIELDS = rb"(?:" + _TOKEN + rb":[^\r\n]*\r\n)*\r\n"
_REQUEST = rb"(" + _TOKEN + rb") ([^ \x00-\x1f\x7f]+) HTTP/1\.([01])\r\n" + _FIELDS
_RESPONSE = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: [^\r\n]*)?\r\n" + _FIELDS)
_FIELD = re.compile(rb"(" + _TOKEN + rb"):([^\r\n]*)\r\n")
_FRAMING = rb"(?i)\n(content-length|transfer-encoding|connection|expect|upgrade):([^\r\n]*)"
# The splice's common case, each in one match and no Python loop (docs/devserver.md "Shape": on
# its path every microsecond costs several): an HTTP/1.1 request for an origin-form target with
# no framing field (`Connection: keep-alive` aside), and an HTTP/1.1 answer whose only framing
# field is one Content-Length, with a body (not 1xx, 204 or 304). What they refuse goes to
# `parse_request` / `parse_response`; what they accept, those frame the same way.
_NOT_FRAMING = (
    rb"(?:(?!(?i:content-length|transfer-encoding|connection|expect|upgrade):)" + _TOKEN + rb":[^\r\n]*\r\n"
    rb"|(?i:connection):[ \t]*(?i:keep-alive)[ \t]*\r\n)*"
)
_COMMON_REQUEST = rb"(" + _TOKEN + rb") (/[^ \x00-\x1f\x7f]*) HTTP/1\.1\r\n" + _NOT_FRAMING + rb"\r\n"
_COMMON_ANSWER = (
    rb"HTTP/1\.1 (?!1|204|304)[0-9]{3}(?: [^\r\n]*)?\r\n"
    + _NOT_FRAMING
    + rb"(?i:content-length):[ \t]*([0-9]+)[ \t]*\r\n"
    + _NOT_FRAMING
    + rb"\r\n"
)


class _Patterns:
    """The request and splice patterns, each compiled on its first use. Compiling them all at
    import costs ~2 ms (measured), on the way of every `pix3 editor` and `--status`, which only
    read answers (``_RESPONSE``, ``_FIELD``); once compiled, one is an attribute of this object
    (a dictionary hit)."""

    @functools.cached_property
    def request(self) -> re.Pattern[bytes]:
        return re.compile(_REQUEST)

    @functools.cached_property
    def framing(self) -> re.Pattern[bytes]:
        return re.compile(_FRAMING)

    @functools.cached_property
    def common_request(self) -> re.Pattern[bytes]:
        return re.compile(_COMMON_REQUEST)

    @functools.cached_property
    def common_answer(self) -> re.Pattern[bytes]:
        return re.compile(_COMMON_ANSWER)


_LAZY = _Patterns()


class Head(NamedTuple):
    """What framing needs from one head. ``status`` is 0 for a request, ``method`` empty for a
    response. A tuple, not a dataclass: one is made per message on the splice's path."""

    method: bytes
    target: bytes
    status: int
    length: int | None  # Content-Length
    chunked: bool  # Transfer-Encoding: chunked (responses only: a chunked request is not plain)
    close: bool  # Connection: close, or HTTP/1.0 without keep-alive
    upgrade: bool  # Connection: upgrade, or an Upgrade field (Vite's HMR WebSocket)


def _fields(
    data: bytes, start: int, end: int, http10: bool, request: bool
) -> tuple[int | None, bool, bool, bool] | None:
    """(length, chunked, close, upgrade) from the fields in ``data[start:end]``, or None when the
    head is not plain."""
    length: int | None = None
    chunked = close = upgrade = keep_alive = False
    for match in _LAZY.framing.finditer(data, start, end):
        name, value = match.groups()
        name = name.lower()
        value = value.strip(b" \t")
        if name == b"content-length":
            if length is not None or not value.isdigit():
                return None
            length = int(value)
        elif name == b"connection":
            value = value.lower()
            if value == b"keep-alive":
                keep_alive = True
                continue
            tokens = [t.strip(b" \t") for t in value.split(b",")]
            close = close or b"close" in tokens
            keep_alive = keep_alive or b"keep-alive" in tokens
            upgrade = upgrade or b"upgrade" in tokens
        elif name == b"transfer-encoding":
            if request or value.lower() != b"chunked":
                return None
            chunked = True
        elif name == b"expect":
            return None
        elif name == b"upgrade":  # with or without `Connection: upgrade`: never spliced blind
            upgrade = True
    if chunked and length is not None:
        return None
    if http10 and not keep_alive:
        close = True
    return length, chunked, close, upgrade


def parse_request(data: bytes, end: int | None = None) -> Head | None:
    """The request head in ``data[:end]`` (ending in CRLF CRLF; ``end`` defaults to the whole),
    or None when it is not plain."""
    end = len(data) if end is None else end
    match = _LAZY.request.fullmatch(data, 0, end)
    if match is None:
        return None
    fields = _fields(data, match.end(3), end, match.group(3) == b"0", True)
    if fields is None:
        return None
    return Head(match.group(1), match.group(2), 0, *fields)


def parse_response(data: bytes, end: int | None = None) -> Head | None:
    """The response head in ``data[:end]``, or None when it cannot be framed."""
    end = len(data) if end is None else end
    match = _RESPONSE.fullmatch(data, 0, end)
    if match is None:
        return None
    fields = _fields(data, match.end(2), end, match.group(1) == b"0", False)
    if fields is None:
        return None
    return Head(b"", b"", int(match.group(2)), *fields)


def common_request(data: bytes, end: int) -> tuple[bytes, bytes] | None:
    """(method, target) when ``data[:end]`` is a common request head (see `_COMMON_REQUEST`):
    no body, the connection kept. None says only "not common": ask `parse_request`."""
    match = _LAZY.common_request.fullmatch(data, 0, end)
    return None if match is None else (match[1], match[2])


def common_answer_end(data: bytes) -> int:
    """Where the common answer at the start of ``data`` ends (head and Content-Length body; see
    `_COMMON_ANSWER`), or -1 when it is not one: ask `parse_response`. Not for a HEAD request."""
    match = _LAZY.common_answer.match(data)
    return -1 if match is None else match.end() + int(match.group(1))


def host_field(data: bytes, end: int) -> bytes | None:
    """The value of the one `Host` field of the head ``data[:end]``, blanks around it removed;
    None when there is none or more than one (docs/devserver.md, "The Host rule"). Every field
    line follows a CRLF, the request line does not. Two `find`s over the lowered head: half the
    cost of one regular expression, on the path of every module fetch (measured)."""
    lowered = data[:end].lower()
    at = lowered.find(b"\r\nhost:")
    if at < 0 or lowered.find(b"\r\nhost:", at + 7) >= 0:
        return None
    return data[at + 7 : data.find(b"\r\n", at + 7, end)].strip(b" \t")


def path_of(target: bytes) -> bytes | None:
    """The path of an origin-form target (`/a/b?x` → `/a/b`); None for `*` or absolute forms."""
    if not target.startswith(b"/"):
        return None
    return target.split(b"?", 1)[0]


def field_list(data: bytes, start: int, end: int) -> list[tuple[str, str]]:
    """Every field line of ``data[start:end]`` (a head already matched by the grammar), in order:
    names lowercased, values without the blanks around them, latin-1."""
    return [
        (name.decode("latin-1").lower(), value.strip(b" \t").decode("latin-1"))
        for name, value in _FIELD.findall(data, start, end)
    ]


def request_head(data: bytes, end: int | None = None) -> tuple[str, str, str, list[tuple[str, str]]] | None:
    """``(method, target, version, fields)`` of the request head in ``data[:end]`` (ending in
    CRLF CRLF), every field kept (duplicates too); None when it breaks the grammar. What the
    fields say about framing is the caller's to judge."""
    end = len(data) if end is None else end
    match = _LAZY.request.fullmatch(data, 0, end)
    if match is None:
        return None
    method, target = match.group(1).decode("latin-1"), match.group(2).decode("latin-1")
    return method, target, f"HTTP/1.{match.group(3).decode()}", field_list(data, match.end(3) + 2, end)


def answer_head(data: bytes, end: int | None = None) -> tuple[int, str, dict[str, str]] | None:
    """``(status, version, fields)`` of the answer head in ``data[:end]`` (ending in CRLF CRLF);
    a field named twice keeps its last value. None when it breaks the grammar."""
    end = len(data) if end is None else end
    match = _RESPONSE.fullmatch(data, 0, end)
    if match is None:
        return None
    start = data.index(b"\r\n") + 2
    return int(match.group(2)), f"HTTP/1.{match.group(1).decode()}", dict(field_list(data, start, end))
