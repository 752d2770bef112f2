"""One CDP call through the proxy on a plain socket: the WebSocket client `pix3 editor` needs to
open or navigate its tab, without trio or wsproto (their import costs more than the call).

The framing is RFC 6455's, kept to what one call needs: the client's frames are masked text;
the server's text (and continuation) frames are read, pings answered, a close ends the call.
The parts that touch bytes are pure (:func:`encode_frame`, :func:`parse_frame`; the handshake,
the opcodes and a frame's header are ``pix3net.websocket``'s, shared with the proxy), the
transport is :func:`call`. Like every pix3 client it sends no ``Origin`` and no extensions.
"""

from __future__ import annotations

import json
import os
import struct
import time
from typing import Any

from pix3net.probe import Connection, ProbeError
from pix3net.websocket import (
    OP_CLOSE,
    OP_CONTINUATION,
    OP_PING,
    OP_PONG,
    OP_TEXT,
    answer_problem,
    client_headers,
    frame_header,
    new_key,
)

CALL_SECONDS = 5.0  # the reference's proxyCall limit
MAX_MESSAGE = 16 * 1024 * 1024  # our replies are a few hundred bytes; a bound for hostile peers


class CallError(Exception):
    """``<method>: <why>`` — refused, closed, timed out or answered with an error."""


def encode_frame(opcode: int, payload: bytes, mask: bytes) -> bytes:
    """A final client frame (masked with the 4-byte ``mask``)."""
    head = bytearray(frame_header(len(payload), opcode=opcode))
    head[1] |= 0x80  # the mask bit: every client frame is masked (RFC 6455 §5.3)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes(head) + mask + masked


def parse_frame(data: bytes) -> tuple[bool, int, bytes, int] | None:
    """``(final, opcode, payload, length used)`` of the first whole frame in ``data``, or None when
    more bytes are needed. Raises ``ValueError`` on a frame no server may send or over the bound."""
    if len(data) < 2:
        return None
    first, second = data[0], data[1]
    if first & 0x70:
        raise ValueError("reserved bits set (no extension was negotiated)")
    size, at = second & 0x7F, 2
    if size == 126:
        if len(data) < 4:
            return None
        size, at = struct.unpack_from("!H", data, 2)[0], 4
    elif size == 127:
        if len(data) < 10:
            return None
        size, at = struct.unpack_from("!Q", data, 2)[0], 10
    if size > MAX_MESSAGE:
        raise ValueError(f"a frame of {size} bytes")
    mask = b""
    if second & 0x80:
        if len(data) < at + 4:
            return None
        mask, at = data[at : at + 4], at + 4
    if len(data) < at + size:
        return None
    payload = data[at : at + size]
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bool(first & 0x80), first & 0x0F, payload, at + size


class Session:
    """One WebSocket client of the proxy on ``path`` (``/pix3`` the browser, ``/pix3/page/<id>`` a
    page): several calls on one connection, so a page is attached once however often it is asked."""

    def __init__(self, port: int, token: str, path: str = "/pix3", *, timeout: float = CALL_SECONDS) -> None:
        self.timeout = timeout
        self._next = 0
        self._data = b""
        key = new_key()
        headers = {**client_headers(key), "Authorization": f"Bearer {token}"}
        conn = Connection("127.0.0.1", port, timeout)
        try:
            answer = conn.get(path, headers)
            if answer.status != 101:
                raise CallError(f"HTTP {answer.status} {answer.body.decode('utf-8', 'replace')}".rstrip())
            problem = answer_problem(answer.headers, key)
            if problem is not None:
                raise CallError(f"the proxy's handshake {problem}")
            self._sock, self._data = conn.detach()
        finally:
            conn.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """``method``'s ``result``; raises :class:`CallError` ``<method>: <why>``."""
        self._next += 1
        deadline = time.monotonic() + self.timeout
        try:
            message = json.dumps({"id": self._next, "method": method, "params": params or {}}).encode()
            self._sock.settimeout(self.timeout)
            self._sock.sendall(encode_frame(OP_TEXT, message, os.urandom(4)))
            reply = self._reply(deadline, method)
        except TimeoutError:
            raise CallError(f"{method}: no answer within {int(self.timeout * 1000)} ms") from None
        except (OSError, ValueError) as exc:
            raise CallError(f"{method}: {exc}") from None
        if "error" in reply:
            error = reply["error"]
            text = error.get("message") if isinstance(error, dict) else None
            raise CallError(f"{method}: {text if isinstance(text, str) else json.dumps(error)}")
        return reply.get("result")

    def _reply(self, deadline: float, method: str) -> dict[str, Any]:
        """Read messages until the reply to our id (events and other traffic are skipped)."""
        parts: list[bytes] = []
        while True:
            frame = parse_frame(self._data)
            if frame is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                self._sock.settimeout(left)
                chunk = self._sock.recv(65536)
                if not chunk:
                    raise CallError(f"{method}: the proxy closed the connection (1006)")
                self._data += chunk
                continue
            final, opcode, payload, used = frame
            self._data = self._data[used:]
            if opcode == OP_PING:
                self._sock.sendall(encode_frame(OP_PONG, payload, os.urandom(4)))
            elif opcode == OP_CLOSE:
                code = struct.unpack_from("!H", payload)[0] if len(payload) >= 2 else 1005
                raise CallError(f"{method}: closed {code} {payload[2:].decode('utf-8', 'replace')}".rstrip())
            elif opcode in (OP_TEXT, OP_CONTINUATION):
                parts.append(payload)
                if sum(map(len, parts)) > MAX_MESSAGE:
                    raise ValueError("a message over the bound")
                if final:
                    reply = json.loads(b"".join(parts))
                    parts = []
                    if isinstance(reply, dict) and reply.get("id") == self._next and "method" not in reply:
                        return reply


def open_session(port: int, token: str, path: str = "/pix3", *, timeout: float = CALL_SECONDS) -> Session:
    """A :class:`Session`; refusals and failures to connect are :class:`CallError` like a call's."""
    try:
        return Session(port, token, path, timeout=timeout)
    except (OSError, ProbeError) as exc:
        if isinstance(exc, TimeoutError):
            raise CallError(f"no answer within {int(timeout * 1000)} ms") from None
        raise CallError(str(exc)) from None


def call(
    port: int,
    token: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    path: str = "/pix3",
    timeout: float = CALL_SECONDS,
) -> Any:
    """One call on a connection of its own: ``method``'s ``result``. Raises :class:`CallError`
    ``<method>: <error.message>`` (or why it got none)."""
    try:
        session = open_session(port, token, path, timeout=timeout)
    except CallError as exc:
        raise CallError(f"{method}: {exc}") from None
    with session:
        return session.call(method, params)
