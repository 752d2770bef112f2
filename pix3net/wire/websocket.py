"""What pix3's two hand-written WebSocket ends share of RFC 6455, sans-IO and standard library only:
the opening handshake (the key, the accept value, the header checks of both sides), the opcodes,
a frame's header and the masking of its payload.

The two ends are the proxy's server side (``wire.httpwire`` reads the upgrade, ``wire.frames`` and
``owner.proxy.outbound`` the frames) and the CDP client (``pix3net.clients.cdp``, over a plain socket or
trio). Each keeps its own frame reader (one reads masked client frames on the proxy's hot path,
the other the server's unmasked ones); what the RFC fixes is written here once.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import struct
from collections.abc import Callable, Mapping

__all__ = [
    "GUID",
    "OP_BINARY",
    "OP_CLOSE",
    "OP_CONTINUATION",
    "OP_PING",
    "OP_PONG",
    "OP_TEXT",
    "VERSION",
    "accept_value",
    "answer_problem",
    "client_headers",
    "frame_header",
    "new_key",
    "request_accept",
    "unmask",
]

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 §1.3
VERSION = "13"  # RFC 6455 §4.1: the only version a client sends and a server accepts
KEY_BYTES = 16  # RFC 6455 §4.1: the key is 16 random bytes, base64-encoded
_ZERO_MASK = b"\0\0\0\0"  # XOR with it changes nothing
# RFC 6455 §5.2 (opcodes; registry in section 11.8)
OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


def new_key() -> str:
    """A fresh ``Sec-WebSocket-Key``."""
    return base64.b64encode(os.urandom(KEY_BYTES)).decode("ascii")


def accept_value(key: str) -> str:
    """The ``Sec-WebSocket-Accept`` that answers ``key`` (RFC 6455 §4.2.2)."""
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + GUID).digest()).decode("ascii")


def client_headers(key: str) -> dict[str, str]:
    """The headers that make a GET an upgrade (RFC 6455 §4.1); no extension, no subprotocol."""
    return {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": VERSION}


def _has_token(value: str | None, token: str) -> bool:
    return token in [t.strip().lower() for t in (value or "").split(",")]


def request_accept(method: str, version: str, header: Callable[[str], str | None]) -> str | None:
    """The server's side: the ``Sec-WebSocket-Accept`` for a valid upgrade request, else None.
    ``header`` gives a header's value by its lowercase name (None when absent)."""
    if method != "GET" or version != "HTTP/1.1":
        return None
    if (header("upgrade") or "").lower() != "websocket" or not _has_token(header("connection"), "upgrade"):
        return None
    if header("sec-websocket-version") != VERSION:
        return None
    key = header("sec-websocket-key")
    try:
        if key is None or len(base64.b64decode(key, validate=True)) != KEY_BYTES:
            return None
    except (binascii.Error, ValueError):
        return None
    return accept_value(key)


def answer_problem(headers: Mapping[str, str], key: str) -> str | None:
    """The client's side: what is wrong with a 101 answer's ``headers`` (lowercase names) to our
    ``key`` (RFC 6455 §4.1, the client's checks), said after "the handshake"; None when it is
    a WebSocket."""
    if (headers.get("upgrade") or "").lower() != "websocket" or not _has_token(headers.get("connection"), "upgrade"):
        return "does not upgrade to a WebSocket"
    if headers.get("sec-websocket-accept") != accept_value(key):
        return "does not answer our key"
    return None


def frame_header(length: int, *, opcode: int = OP_TEXT, fin: bool = True) -> bytes:
    """Header of one unmasked frame of ``length`` payload bytes (RFC 6455 §5.2); text, final by
    default (a fragment: ``fin=False``, continuations ``opcode=OP_CONTINUATION``). A client's
    frame sets the mask bit in the second byte and adds its 4-byte key."""
    first = (0x80 if fin else 0) | opcode
    if length < 126:
        return struct.pack("!BB", first, length)
    if length < 65536:
        return struct.pack("!BBH", first, 126, length)
    return struct.pack("!BBQ", first, 127, length)


def unmask(data: bytes | bytearray | memoryview, mask: bytes, offset: int = 0) -> bytes:
    """``data`` XOR the 4-byte ``mask`` starting at mask byte ``offset`` (RFC 6455 §5.3): unmasks
    what a client sent, and masks what a client sends (the same operation). One big-integer XOR:
    a 256 MiB message in a fraction of a second, where a loop over its bytes takes minutes."""
    size = len(data)
    if mask == _ZERO_MASK or not size:
        return bytes(data)
    if offset:
        mask = mask[offset:] + mask[:offset]
    key = (mask * (size // 4 + 1))[:size]
    return (int.from_bytes(data, "little") ^ int.from_bytes(key, "little")).to_bytes(size, "little")
