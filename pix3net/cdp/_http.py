"""Just enough HTTP/1.1 and WebSocket framing for the proxy, sans-IO.

The proxy answers a handful of GETs and upgrades; parsing the request head ourselves (instead of
h11) lets a request without ``Host`` or with two of them reach the proxy's 403 rather than a
parser's 400, and lets WebSocket refusals be written as plain answers (docs/cdp-proxy.md,
"Wire protocol").
Outgoing data frames are built here too: a server frame is a 2–10 byte header plus the payload,
so a 30 MB message is sent from the buffer Chrome's bytes arrived in (docs/cdp-proxy.md, "Big messages").
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import struct
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

# Node's default header limit is 16 KiB; a CDP client's upgrade is a few hundred bytes.
MAX_HEAD_BYTES = 16 * 1024
# Bodies are never used by the proxy's routes; small ones are read and dropped.
MAX_DISCARDED_BODY = 64 * 1024
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 §1.3

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_MALFORMED_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


class BadRequest(ValueError):
    pass


@dataclass(frozen=True)
class RequestHead:
    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]  # names lowercased, values stripped, latin-1

    def get(self, name: str) -> str | None:
        values = [v for k, v in self.headers if k == name]
        return ", ".join(values) if values else None

    @property
    def keep_alive(self) -> bool:
        connection = (self.get("connection") or "").lower()
        if self.version == "HTTP/1.0":
            return "keep-alive" in connection
        return "close" not in connection

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]


def parse_head(data: bytes) -> RequestHead:
    """Parse a request head (everything before the blank line)."""
    try:
        text = data.decode("latin-1")
    except UnicodeDecodeError as error:  # pragma: no cover - latin-1 decodes every byte
        raise BadRequest(str(error)) from None
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]) or parts[2] not in ("HTTP/1.1", "HTTP/1.0"):
        raise BadRequest("bad request line")
    if not parts[1] or any(c in parts[1] for c in "\r\n\t\x00"):
        raise BadRequest("bad request target")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not _TOKEN.fullmatch(name) or "\n" in value or "\r" in value or "\x00" in value:
            raise BadRequest("bad header line")
        headers.append((name.lower(), value.strip(" \t")))
    return RequestHead(parts[0], parts[1], parts[2], headers)


def body_length(head: RequestHead) -> int | None:
    """Bytes of body to drop before the next request; None = cannot tell (answer, then close)."""
    if head.get("transfer-encoding") is not None:
        return None
    values = [v for k, v in head.headers if k == "content-length"]
    if not values:
        return 0
    if len(set(values)) != 1 or not values[0].isdigit():
        return None
    length = int(values[0])
    return length if length <= MAX_DISCARDED_BODY else None


def http_route_path(target: str) -> str:
    """The path the HTTP routes match: before ``?``, trailing slashes stripped."""
    return target.split("?", 1)[0].rstrip("/")


def ws_route(target: str) -> tuple[str, str | None] | None:
    """``("browser", None)``, ``("page", <target id>)`` or None (a 404) for an upgrade's URL.

    The page id is percent-decoded; a malformed escape or invalid UTF-8 is a 404, not a crash
    (the reference's proxy crashed on one).
    """
    path = target.split("?", 1)[0]
    if path == "/pix3":
        return ("browser", None)
    prefix = "/pix3/page/"
    if not path.startswith(prefix) or _MALFORMED_ESCAPE.search(path):
        return None
    try:
        page = unquote_to_bytes(path[len(prefix) :]).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return ("page", page) if page else None


def handshake_accept(head: RequestHead) -> str | None:
    """The ``Sec-WebSocket-Accept`` value for a valid RFC 6455 upgrade, else None."""
    if head.method != "GET" or head.version != "HTTP/1.1":
        return None
    if (head.get("upgrade") or "").lower() != "websocket":
        return None
    if "upgrade" not in [t.strip().lower() for t in (head.get("connection") or "").split(",")]:
        return None
    if head.get("sec-websocket-version") != "13":
        return None
    key = head.get("sec-websocket-key")
    try:
        if key is None or len(base64.b64decode(key, validate=True)) != 16:
            return None
    except (binascii.Error, ValueError):
        return None
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + WS_GUID).digest()).decode("ascii")


def switching_protocols(accept: str) -> bytes:
    # No Sec-WebSocket-Extensions: permessage-deflate stays off.
    return (
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Accept: {accept}\r\nX-Pix3-Cdp-Proxy: 1\r\n\r\n"
    ).encode("ascii")


def frame_header(length: int, *, opcode: int = 0x1, fin: bool = True) -> bytes:
    """Header of one unmasked server frame of ``length`` payload bytes (RFC 6455 §5.2); text,
    final by default (a fragment: ``fin=False``, continuations ``opcode=0``)."""
    first = (0x80 if fin else 0) | opcode
    if length < 126:
        return struct.pack("!BB", first, length)
    if length < 65536:
        return struct.pack("!BBH", first, 126, length)
    return struct.pack("!BBQ", first, 127, length)


def text_frame_header(length: int) -> bytes:
    """Header of one unmasked, final text frame of ``length`` payload bytes (RFC 6455 §5.2)."""
    return frame_header(length)
