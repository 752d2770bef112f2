"""Just enough HTTP/1.1 and WebSocket framing for the proxy, sans-IO.

The proxy answers a handful of GETs and upgrades; parsing the request head ourselves (instead of
h11, with ``pix3net.wire.httphead``, the one head parser) lets a request without ``Host`` or with two
of them reach the proxy's 403 rather than a parser's 400, and lets WebSocket refusals be written as plain answers (docs/cdp-proxy.md,
"Wire protocol").
The upgrade's checks and accept value, and a frame's header, are ``pix3net.wire.websocket``'s
(RFC 6455, shared with the CDP client, ``pix3net.clients.cdp``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from pix3net.wire.httphead import request_head
from pix3net.wire.websocket import request_accept

__all__ = [
    "MAX_DISCARDED_BODY",
    "MAX_HEAD_BYTES",
    "BadRequest",
    "RequestHead",
    "body_length",
    "handshake_accept",
    "http_route_path",
    "parse_head",
    "switching_protocols",
    "ws_route",
]


# Node's default header limit is 16 KiB; a CDP client's upgrade is a few hundred bytes.
MAX_HEAD_BYTES = 16 * 1024
# Bodies are never used by the proxy's routes; small ones are read and dropped.
MAX_DISCARDED_BODY = 64 * 1024

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
    """Parse a request head (everything before the blank line) with pix3's one head parser
    (``pix3net.wire.httphead``); a NUL in a field value is refused as well."""
    parsed = request_head(data + b"\r\n\r\n")
    if parsed is None or b"\0" in data:
        raise BadRequest("bad request head")
    method, target, version, headers = parsed
    return RequestHead(method, target, version, headers)


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
    return request_accept(head.method, head.version, head.get)


def switching_protocols(accept: str) -> bytes:
    # No Sec-WebSocket-Extensions: permessage-deflate stays off.
    return (
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Accept: {accept}\r\nX-Pix3-Cdp-Proxy: 1\r\n\r\n"
    ).encode("ascii")
