"""pix3's one client of the CDP proxy's WebSocket, sans-IO: the opening handshake (the token as a
``Bearer``, the client's name in the URL), the frames both ways, a call and its reply by id
(docs/cdp-proxy.md, "Client side"). Bytes in, bytes and events out; no socket here.

Two transports drive it and differ only in the socket:

- ``cdpsocket``: a plain blocking socket, for `pix3 editor` (open or navigate its tab, check that
  it answers). Its reuse path must not import trio or wsproto: their import costs more than the
  whole exchange (trio + httpx ≈ 6× Python's start; docs/editor.md, "Cold start and reuse", and
  the bench row `pix3 editor, everything reused vs python -c pass`).
- ``cdptrio``: a trio stream, for what already runs trio (`pix3 smoke` on a reused owner,
  `clients.port`'s one call, the tests and benches): calls by id, events by session.

The RFC's fixed parts (the key and its accept value, opcodes, a frame's header, masking) are
``pix3net.wire.websocket``'s, shared with the proxy; an answer's head is read by ``pix3net.wire.httphead``.
Like every pix3 client it sends no ``Origin`` (the proxy refuses any) and asks no extension.
Standard library only and no dataclass, for the same import cost.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from pix3net.wire.httphead import answer_head
from pix3net.wire.websocket import (
    OP_BINARY,
    OP_CLOSE,
    OP_CONTINUATION,
    OP_PING,
    OP_PONG,
    OP_TEXT,
    answer_problem,
    client_headers,
    frame_header,
    new_key,
    unmask,
)

__all__ = [
    "CALL_SECONDS",
    "CallError",
    "Closed",
    "FrameReader",
    "Handshake",
    "NotWebSocket",
    "Rejected",
    "bearer",
    "call_message",
    "call_text",
    "encode_frame",
    "is_reply",
    "parse_frame",
    "proxy_path",
    "result_of",
]

CALL_SECONDS = 5.0  # the reference's proxyCall limit
MAX_MESSAGE = 16 * 1024 * 1024  # a call's reply is a few hundred bytes; a bound for hostile peers
MAX_HEAD = 64 * 1024  # the proxy's answer head is a few hundred bytes
MAX_REFUSAL = 64 * 1024  # the body of a refused upgrade is one sentence
NO_STATUS = 1005  # RFC 6455 §7.4.1: a close frame without a code
ABNORMAL = 1006  # RFC 6455 §7.4.1: the connection ended without a close frame


class CallError(Exception):
    """``<method>: <why>`` — refused, closed, timed out or answered with an error."""


class Rejected(Exception):
    """The proxy answered the upgrade with something else than 101: its status and body."""

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.body = body

    def text(self) -> str:
        """``HTTP <status> <body>``, as a user reads it."""
        return f"HTTP {self.status} {self.body.decode('utf-8', 'replace')}".rstrip()


class Closed(Exception):
    """The connection ended: the close frame's code and reason (1006: it ended without one)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"closed {code} {reason}".strip())
        self.code = code
        self.reason = reason

    def text(self) -> str:
        return "the proxy closed the connection (1006)" if self.code == ABNORMAL else str(self)


class NotWebSocket(Exception):
    """What answered the upgrade is not a WebSocket (or not HTTP); the sentence says which."""


def bearer(token: str) -> tuple[str, str]:
    return ("Authorization", f"Bearer {token}")


def proxy_path(page: str | None = None, *, client: str | None = None, keep: bool = False) -> str:
    """The proxy's URL path: ``/pix3`` (the browser) or ``/pix3/page/<id>``; ``client`` names this
    client in the proxy's views, ``keep`` keeps what it opens after it leaves (docs/cdp-proxy.md,
    "Ownership and protection")."""
    path = "/pix3" if page is None else f"/pix3/page/{quote(page, safe='')}"
    query = [*(["keep=1"] if keep else []), *([f"client={quote(client, safe='')}"] if client else [])]
    return path + ("?" + "&".join(query) if query else "")


class Handshake:
    """The client's side of the opening handshake: send :attr:`request`, then :meth:`feed` what
    comes back until it returns the bytes that followed the 101 (the first frames)."""

    def __init__(self, port: int, path: str, headers: Iterable[tuple[str, str]]) -> None:
        self.key = new_key()
        lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
        lines += [f"{name}: {value}" for name, value in (*client_headers(self.key).items(), *headers)]
        self.request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        self._data = bytearray()
        self._status: int | None = None
        self._length: int | None = None

    def feed(self, data: bytes) -> bytes | None:
        """Bytes from the server (``b""``: it ended). The bytes after the 101's head once the
        upgrade is accepted; None while more is needed. Raises :class:`Rejected` (another
        answer, once its body is read), :class:`Closed` 1006 (the end before an answer) or
        :class:`NotWebSocket`."""
        self._data += data
        if self._status is None:
            end = self._data.find(b"\r\n\r\n")
            if end < 0:
                if not data:
                    raise Closed(ABNORMAL, "")
                if len(self._data) > MAX_HEAD:
                    raise NotWebSocket("the proxy's answer head is too large")
                return None
            parsed = answer_head(bytes(self._data), end + 4)
            if parsed is None:
                raise NotWebSocket("the proxy's answer is not HTTP")
            status, _version, fields = parsed
            del self._data[: end + 4]
            if status == 101:
                problem = answer_problem(fields, self.key)
                if problem is not None:
                    raise NotWebSocket(f"the proxy's handshake {problem}")
                return bytes(self._data)
            self._status = status
            length = fields.get("content-length", "")
            no_body = status in (204, 304) or 100 <= status < 200 or "chunked" in fields.get("transfer-encoding", "")
            self._length = 0 if no_body else int(length) if length.isdigit() else None
        limit = MAX_REFUSAL if self._length is None else min(self._length, MAX_REFUSAL)
        if not data or len(self._data) >= limit:
            raise Rejected(self._status, bytes(self._data[:limit]))
        return None


def encode_frame(opcode: int, payload: bytes, mask: bytes | None = None) -> bytes:
    """A final client frame, masked with the 4-byte ``mask`` (fresh random bytes by default)."""
    key = os.urandom(4) if mask is None else mask
    head = bytearray(frame_header(len(payload), opcode=opcode))
    head[1] |= 0x80  # the mask bit: every client frame is masked (RFC 6455 §5.3)
    return bytes(head) + key + unmask(payload, key)


def close_payload(code: int, reason: str) -> bytes:
    return b"" if code == NO_STATUS else struct.pack("!H", code) + reason.encode()


def parse_frame(
    data: bytes | bytearray, bound: int | None = MAX_MESSAGE, start: int = 0
) -> tuple[bool, int, bytes, int] | None:
    """``(final, opcode, payload, end)`` of the first whole frame in ``data[start:]`` (``end``:
    where it ends in ``data``), or None when more bytes are needed. Raises ``ValueError`` on a
    frame no server may send or over ``bound``."""
    if len(data) < start + 2:
        return None
    first, second = data[start], data[start + 1]
    if first & 0x70:
        raise ValueError("reserved bits set (no extension was negotiated)")
    size, at = second & 0x7F, start + 2
    if size == 126:
        if len(data) < at + 2:
            return None
        size, at = struct.unpack_from("!H", data, at)[0], at + 2
    elif size == 127:
        if len(data) < at + 8:
            return None
        size, at = struct.unpack_from("!Q", data, at)[0], at + 8
    if bound is not None and size > bound:
        raise ValueError(f"a frame of {size} bytes")
    mask = b""
    if second & 0x80:
        if len(data) < at + 4:
            return None
        mask, at = bytes(data[at : at + 4]), at + 4
    if len(data) < at + size:
        return None
    payload = bytes(data[at : at + size])
    if mask:
        payload = unmask(payload, mask)
    return bool(first & 0x80), first & 0x0F, payload, at + size


class FrameReader:
    """The server's frames, sans-IO. :meth:`feed` takes bytes and returns the messages they
    complete (text; a binary message is read as UTF-8, as the reference reads one); a ping is
    answered and a close frame echoed through :attr:`replies` (bytes for the transport to send),
    and the close is kept in :attr:`closed`, after which nothing more is read."""

    def __init__(self, bound: int | None = MAX_MESSAGE) -> None:
        self._bound = bound
        self._data = bytearray()
        self._parts: list[bytes] = []
        self._size = 0
        self.replies = bytearray()
        self.closed: Closed | None = None

    def feed(self, data: bytes) -> list[str]:
        """The messages ``data`` completes; ``b""`` means the connection ended (1006 unless a
        close frame came first). Raises ``ValueError`` on a frame no server may send."""
        if self.closed is not None:
            return []
        if not data:
            self.closed = Closed(ABNORMAL, "")
            return []
        self._data += data
        messages: list[str] = []
        at = 0
        while self.closed is None:
            frame = parse_frame(self._data, self._bound, at)
            if frame is None:
                break
            final, opcode, payload, at = frame
            if opcode == OP_PING:
                self.replies += encode_frame(OP_PONG, payload)
            elif opcode == OP_CLOSE:
                code = struct.unpack_from("!H", payload)[0] if len(payload) >= 2 else NO_STATUS
                reason = payload[2:].decode("utf-8", "replace")
                self.closed = Closed(code, reason)
                self.replies += encode_frame(OP_CLOSE, close_payload(code, reason))
            elif opcode in (OP_TEXT, OP_BINARY, OP_CONTINUATION):
                self._parts.append(payload)
                self._size += len(payload)
                if self._bound is not None and self._size > self._bound:
                    raise ValueError("a message over the bound")
                if final:
                    messages.append(b"".join(self._parts).decode("utf-8", "replace"))
                    self._parts, self._size = [], 0
        del self._data[:at]
        return messages


def call_message(ident: int, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> str:
    """A CDP call as its text."""
    message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
    if session is not None:
        message["sessionId"] = session
    return json.dumps(message)


def is_reply(message: Any, ident: int) -> bool:
    """Is ``message`` (parsed) the reply to call ``ident`` (not an event that carries an id)?"""
    return isinstance(message, dict) and message.get("id") == ident and "method" not in message


def result_of(method: str, reply: dict[str, Any]) -> Any:
    """The reply's ``result``; raises :class:`CallError` ``<method>: <error.message>``."""
    if "error" in reply:
        raise CallError(call_text(method, reply["error"]))
    return reply.get("result")


def call_text(method: str, error: Any) -> str:
    """``<method>: <error.message>`` (the whole error as JSON when it has no message)."""
    text = error.get("message") if isinstance(error, dict) else None
    return f"{method}: {text if isinstance(text, str) else json.dumps(error)}"
