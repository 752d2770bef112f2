"""WebSocket frames between a client and the proxy (RFC 6455 §5), sans-IO.

:class:`FrameReader` is fed what a client sent and returns events; the proxy's own frames are
built by :func:`close_frame` / :func:`pong_frame` (data frames: ``outbound``). It replaces a
general WebSocket library on the proxy's read path: the proxy needs only the server side, without
extensions, and a CDP request usually arrives as one whole frame in one read, which is parsed here
with a handful of slices (measured: wsproto's generic path was the largest cost of routing a
request). The rules a server must enforce are all here: client frames are masked, reserved bits
are zero, control frames are final and at most 125 bytes, fragments continue a message only
inside one, close codes are valid, text is UTF-8. A broken rule is a :class:`Fail` carrying the
close code to answer with (1002 protocol, 1007 bad UTF-8, 1009 too big).

A fragmented message is joined into one ``bytearray`` as its frames arrive, so what it holds is
its payload, whatever the number of frames; and a message may have at most
:data:`MAX_FRAMES_PER_MESSAGE` frames (docs/cdp-proxy.md, "Limits"). Measured before: 3 M one-byte
fragments kept as a list of 3 M ``bytes`` objects took the owner from 35 to 290 MiB at the peak,
and zero-length ones counted nothing against the message limit.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from pix3net.wire.websocket import OP_BINARY, OP_CLOSE, OP_CONTINUATION, OP_PING, OP_PONG, OP_TEXT, frame_header, unmask

__all__ = [
    "CLOSE_BAD_DATA",
    "CLOSE_PROTOCOL_ERROR",
    "CLOSE_TOO_BIG",
    "MAX_CONTROL_PAYLOAD",
    "MAX_FRAMES_PER_MESSAGE",
    "Event",
    "Fail",
    "FrameReader",
    "Message",
    "PeerClosed",
    "Ping",
    "close_frame",
    "pong_frame",
    "unmask",
]


MAX_CONTROL_PAYLOAD = 125  # RFC 6455 §5.5
CLOSE_PROTOCOL_ERROR = 1002
CLOSE_BAD_DATA = 1007
CLOSE_TOO_BIG = 1009
# Frames in one message. A client that fragments does so at its write buffer: gorilla/websocket
# flushes a frame per 4 KiB buffer, so a message at the 256 MiB limit is ~66 000 frames; twice that
# leaves room and still refuses a flood of tiny or empty fragments (each costs the reader a pass
# of its loop, and empty ones add nothing to the byte count).
MAX_FRAMES_PER_MESSAGE = 131_072


@dataclass(frozen=True)
class Message:
    """A whole data message. Binary frames are read as UTF-8 text, as the reference does
    (``data.toString()``): bytes that are not UTF-8 then fail the JSON check (-32700)."""

    text: str


@dataclass(frozen=True)
class Ping:
    payload: bytes


@dataclass(frozen=True)
class PeerClosed:
    """The client's close frame; ``code`` None when it carried none."""

    code: int | None
    reason: str


@dataclass(frozen=True)
class Fail:
    """The client broke the protocol (or sent too much): close with ``code``."""

    code: int
    reason: str


Event = Message | Ping | PeerClosed | Fail


def _valid_close_code(code: int) -> bool:
    # RFC 6455 §7.4: 1004–1006 and 1015 are never sent; 1000–2999 beyond the registered ones
    # are reserved; 3000–4999 are for libraries and applications.
    return code in (1000, 1001, 1002, 1003) or 1007 <= code <= 1014 or 3000 <= code <= 4999


def _control(opcode: int, payload: bytes) -> bytes:
    return frame_header(len(payload), opcode=opcode) + payload


def pong_frame(payload: bytes) -> bytes:
    return _control(OP_PONG, payload)


def close_frame(code: int | None, reason: str = "") -> bytes:
    """A server close frame; ``code`` None = an empty one (the answer to a close without code)."""
    if code is None:
        return _control(OP_CLOSE, b"")
    return _control(OP_CLOSE, struct.pack("!H", code) + reason.encode("utf-8")[: MAX_CONTROL_PAYLOAD - 2])


class _Streaming:
    """A data frame whose payload arrives over several reads."""

    def __init__(self, remaining: int, mask: bytes, fin: bool) -> None:
        self.remaining = remaining
        self.mask = mask
        self.offset = 0
        self.fin = fin


class FrameReader:
    """Client frames in, events out. After a :class:`PeerClosed` or :class:`Fail` it reads nothing more."""

    def __init__(self, max_message_bytes: int) -> None:
        self.max_message_bytes = max_message_bytes
        self._rest = b""  # bytes of a header or control frame not complete yet
        self._data: bytes | bytearray = b""  # the message in progress, unmasked (joined from its second piece)
        self._message_bytes = 0  # declared payload bytes of the message in progress
        self._frames = 0  # data frames of the message in progress
        self._opcode: int | None = None  # text or binary: a message is in progress
        self._streaming: _Streaming | None = None
        self.done = False

    def feed(self, data: bytes) -> list[Event]:
        if self.done:
            return []
        if not self._rest and self._streaming is None and self._opcode is None:
            whole = self._whole_text_frame(data)
            if whole is not None:
                return [whole]
        buffer = self._rest + data if self._rest else data
        self._rest = b""
        events: list[Event] = []
        position = 0
        end = len(buffer)
        while position < end and not self.done:
            streaming = self._streaming
            if streaming is not None:
                take = min(streaming.remaining, end - position)
                chunk = buffer[position : position + take]
                self._add(unmask(chunk, streaming.mask, streaming.offset))
                streaming.offset = (streaming.offset + take) % 4
                streaming.remaining -= take
                position += take
                if not streaming.remaining:
                    self._streaming = None
                    if streaming.fin:
                        events.append(self._message())
                continue
            parsed = self._frame(buffer, position, end, events)
            if parsed is None:  # an incomplete header or control frame: keep it for the next read
                self._rest = bytes(buffer[position:])
                break
            position = parsed
        return events

    def _whole_text_frame(self, data: bytes) -> Event | None:
        """The usual CDP request: exactly one final, masked text frame under 64 KiB, alone in
        ``data``. Parsed with a few slices (the general loop costs as much again); anything else,
        or a frame that breaks a rule, is None and goes through the general loop."""
        size = len(data)
        if size < 6 or data[0] != 0x81:  # FIN + text, no reserved bits
            return None
        second = data[1]
        length = second & 0x7F
        if length == 126:
            if size < 8:
                return None
            length = (data[2] << 8) | data[3]
            start = 8
        elif length < 126:
            start = 2
        else:
            return None
        if not second & 0x80 or size != start + 4 + length or length > self.max_message_bytes:
            return None
        payload = unmask(data[start + 4 :], data[start : start + 4])
        try:
            return Message(payload.decode("utf-8"))
        except UnicodeDecodeError:
            self.done = True
            return Fail(CLOSE_BAD_DATA, "a text message that is not UTF-8")

    def _add(self, piece: bytes) -> None:
        """Join ``piece`` to the message in progress (a message in one piece is never copied)."""
        data = self._data
        if not data:
            self._data = piece
        elif type(data) is bytearray:
            data += piece
        else:
            joined = bytearray(data)
            joined += piece
            self._data = joined

    def _fail(self, events: list[Event], code: int, reason: str) -> int:
        self.done = True
        self._data = b""
        events.append(Fail(code, reason))
        return 0

    def _frame(self, buffer: bytes, position: int, end: int, events: list[Event]) -> int | None:
        """Parse the frame at ``position``; the position after what was used, or None to wait."""
        if end - position < 2:
            return None
        first, second = buffer[position], buffer[position + 1]
        fin, opcode, length = bool(first & 0x80), first & 0x0F, second & 0x7F
        if first & 0x70:
            return self._fail(events, CLOSE_PROTOCOL_ERROR, "reserved bits set (no extension was agreed)")
        if not second & 0x80:
            return self._fail(events, CLOSE_PROTOCOL_ERROR, "client frames must be masked")
        start = position + 2
        if length == 126:
            start += 2
        elif length == 127:
            start += 8
        if end - start < 4:
            return None
        if length == 126:
            length = struct.unpack_from("!H", buffer, position + 2)[0]
        elif length == 127:
            length = struct.unpack_from("!Q", buffer, position + 2)[0]
            if length >> 63:
                return self._fail(events, CLOSE_PROTOCOL_ERROR, "frame length out of range")
        mask = bytes(buffer[start : start + 4])
        start += 4
        if opcode >= OP_CLOSE:
            return self._control_frame(buffer, start, end, events, fin, opcode, length, mask)
        if opcode in (OP_TEXT, OP_BINARY):
            if self._opcode is not None:
                return self._fail(events, CLOSE_PROTOCOL_ERROR, "a new message inside a fragmented one")
            self._opcode = opcode
            self._message_bytes = 0
            self._frames = 0
        elif opcode != OP_CONTINUATION:
            return self._fail(events, CLOSE_PROTOCOL_ERROR, f"unknown opcode {opcode}")
        elif self._opcode is None:
            return self._fail(events, CLOSE_PROTOCOL_ERROR, "a continuation frame without a message")
        self._message_bytes += length
        if self._message_bytes > self.max_message_bytes:  # refused at the header, before its payload
            return self._fail(events, CLOSE_TOO_BIG, "message too big")
        self._frames += 1
        if self._frames > MAX_FRAMES_PER_MESSAGE:
            return self._fail(events, CLOSE_TOO_BIG, f"a message in more than {MAX_FRAMES_PER_MESSAGE} frames")
        if end - start >= length:
            if length:
                self._add(unmask(buffer[start : start + length], mask))
            if fin:
                events.append(self._message())
            return start + length
        self._streaming = _Streaming(length, mask, fin)
        return start

    def _control_frame(
        self, buffer: bytes, start: int, end: int, events: list[Event], fin: bool, opcode: int, length: int, mask: bytes
    ) -> int | None:
        if not fin or length > MAX_CONTROL_PAYLOAD:
            return self._fail(events, CLOSE_PROTOCOL_ERROR, "control frames are final and at most 125 bytes")
        if opcode not in (OP_CLOSE, OP_PING, OP_PONG):
            return self._fail(events, CLOSE_PROTOCOL_ERROR, f"unknown opcode {opcode}")
        if end - start < length:
            return None
        payload = unmask(buffer[start : start + length], mask)
        if opcode == OP_PING:
            events.append(Ping(payload))
        elif opcode == OP_CLOSE:
            return self._close(payload, events, start + length)
        return start + length

    def _close(self, payload: bytes, events: list[Event], after: int) -> int:
        if len(payload) == 1:
            return self._fail(events, CLOSE_PROTOCOL_ERROR, "a close frame with half a code")
        code = struct.unpack_from("!H", payload)[0] if payload else None
        if code is not None and not _valid_close_code(code):
            return self._fail(events, CLOSE_PROTOCOL_ERROR, f"invalid close code {code}")
        try:
            reason = payload[2:].decode("utf-8")
        except UnicodeDecodeError:
            return self._fail(events, CLOSE_BAD_DATA, "a close reason that is not UTF-8")
        self.done = True
        events.append(PeerClosed(code, reason))
        return after

    def _message(self) -> Event:
        data = self._data
        opcode = self._opcode
        self._data = b""
        self._opcode = None
        if opcode == OP_BINARY:
            return Message(data.decode("utf-8", "replace"))
        try:
            return Message(data.decode("utf-8"))
        except UnicodeDecodeError:
            self.done = True
            return Fail(CLOSE_BAD_DATA, "a text message that is not UTF-8")
