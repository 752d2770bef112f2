"""The proxy's frame reader as traces: client bytes in (split at every byte), events out."""

from __future__ import annotations

import os
import struct
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st
from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import BytesMessage, CloseConnection, TextMessage
from wsproto.events import Ping as WsPing

from pix3net.wire.frames import (
    MAX_FRAMES_PER_MESSAGE,
    Event,
    Fail,
    FrameReader,
    Message,
    PeerClosed,
    Ping,
    close_frame,
    pong_frame,
    unmask,
)

LIMIT = 1 << 20


def client_frame(payload: bytes, opcode: int = 0x1, *, fin: bool = True, mask: bytes = b"\x12\x34\x56\x78") -> bytes:
    """A masked client frame, as a browser or Node's ws writes it."""
    first = (0x80 if fin else 0) | opcode
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", first, 0x80 | size)
    elif size < 65536:
        head = struct.pack("!BBH", first, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, size)
    return head + mask + unmask(payload, mask)


def read_all(data: bytes, step: int | None = None, limit: int = LIMIT) -> list[Event]:
    reader = FrameReader(limit)
    if step is None:
        return reader.feed(data)
    events: list[Event] = []
    for index in range(0, len(data), step):
        events += reader.feed(data[index : index + step])
    return events


def test_a_request_in_one_read() -> None:
    text = '{"id":1,"method":"Runtime.evaluate","params":{"expression":"1"}}'
    assert read_all(client_frame(text.encode())) == [Message(text)]


def test_split_at_every_byte_gives_the_same_events() -> None:
    stream = (
        client_frame(b'{"id":1}')
        + client_frame(b"pi", 0x9)
        + client_frame(b'{"id":', fin=False)
        + client_frame(b"x" * 300, 0x0, fin=False)
        + client_frame(b"ng", 0x9)
        + client_frame(b"2}", 0x0)
        + client_frame("é€".encode() * 40000, 0x2)
        + client_frame(struct.pack("!H", 1000) + b"bye", 0x8)
        + client_frame(b"after the close: ignored")
    )
    expected = [
        Message('{"id":1}'),
        Ping(b"pi"),
        Ping(b"ng"),
        Message('{"id":' + "x" * 300 + "2}"),
        Message("é€" * 40000),
        PeerClosed(1000, "bye"),
    ]
    assert read_all(stream) == expected
    for step in (1, 2, 3, 7, 125, 4096):
        assert read_all(stream, step) == expected


@given(st.binary(max_size=3000), st.lists(st.integers(1, 500), max_size=30))
def test_any_chunking_of_any_payload(payload: bytes, cuts: list[int]) -> None:
    stream = client_frame(payload, 0x2, mask=os.urandom(4))
    reader = FrameReader(LIMIT)
    events: list[Event] = []
    position = 0
    for cut in [*cuts, len(stream)]:
        events += reader.feed(stream[position : position + cut])
        position += cut
    events += reader.feed(stream[position:])
    assert events == [Message(payload.decode("utf-8", "replace"))]


def test_what_wsproto_writes_reads_back() -> None:
    client = Connection(ConnectionType.CLIENT)
    data = client.send(TextMessage('{"id":7}')) + client.send(BytesMessage(b"\xff"))
    data += client.send(WsPing(b"p")) + client.send(CloseConnection(1001, "going"))
    assert read_all(data) == [Message('{"id":7}'), Message("\ufffd"), Ping(b"p"), PeerClosed(1001, "going")]


@pytest.mark.parametrize(
    ("data", "code", "reason"),
    [
        (client_frame(b"x")[:1] + bytes([0x01]) + b"x", 1002, "client frames must be masked"),
        (bytes([0xC1]) + client_frame(b"x")[1:], 1002, "reserved bits set (no extension was agreed)"),
        (client_frame(b"x", 0x3), 1002, "unknown opcode 3"),
        (client_frame(b"x", 0xB), 1002, "unknown opcode 11"),
        (client_frame(b"x", 0x0), 1002, "a continuation frame without a message"),
        (client_frame(b"a", fin=False) + client_frame(b"b"), 1002, "a new message inside a fragmented one"),
        (client_frame(b"p", 0x9, fin=False), 1002, "control frames are final and at most 125 bytes"),
        (client_frame(b"p" * 126, 0x9), 1002, "control frames are final and at most 125 bytes"),
        (client_frame(b"\x03", 0x8), 1002, "a close frame with half a code"),
        (client_frame(struct.pack("!H", 1005), 0x8), 1002, "invalid close code 1005"),
        (client_frame(struct.pack("!H", 2000), 0x8), 1002, "invalid close code 2000"),
        (client_frame(struct.pack("!H", 1000) + b"\xff", 0x8), 1007, "a close reason that is not UTF-8"),
        (client_frame(b"\xed\xa0\x80"), 1007, "a text message that is not UTF-8"),
    ],
)
def test_broken_rules_fail_with_the_close_code(data: bytes, code: int, reason: str) -> None:
    events = read_all(data)
    assert events[-1] == Fail(code, reason)
    assert read_all(data, 1)[-1] == Fail(code, reason)


def test_too_big_is_refused_at_the_header() -> None:
    # 300 MB declared, none of it sent: refused from the 14 header bytes alone
    header = struct.pack("!BBQ", 0x81, 0x80 | 127, 300 * 1024 * 1024) + b"\0\0\0\0"
    assert read_all(header, limit=256 * 1024 * 1024) == [Fail(1009, "message too big")]
    # fragments whose running total passes the limit
    stream = client_frame(b"a" * 600, fin=False) + client_frame(b"a" * 600, 0x0)
    assert read_all(stream, limit=1000) == [Fail(1009, "message too big")]
    assert read_all(client_frame(b"a" * 1000), limit=1000) == [Message("a" * 1000)]


def test_close_without_code_and_nothing_after_it() -> None:
    reader = FrameReader(LIMIT)
    assert reader.feed(client_frame(b"", 0x8)) == [PeerClosed(None, "")]
    assert reader.feed(client_frame(b"late")) == []


def test_server_control_frames() -> None:
    assert close_frame(1008, "client too slow") == b"\x88\x11\x03\xf0client too slow"
    assert close_frame(None) == b"\x88\x00"
    assert pong_frame(b"p") == b"\x8a\x01p"
    assert len(close_frame(1000, "x" * 500)) == 2 + 125


def fragments(count: int, piece: bytes = b" ") -> bytes:
    """One text message in ``count`` frames: ``piece`` in each but the last, which holds ``1``."""
    return (
        client_frame(piece, 0x1, fin=False)
        + client_frame(piece, 0x0, fin=False) * (count - 2)
        + client_frame(b"1", 0x0)
    )


def test_a_message_has_at_most_so_many_frames_empty_ones_included() -> None:
    whole = fragments(MAX_FRAMES_PER_MESSAGE, b"")
    assert read_all(whole, 65536) == [Message("1")]
    over = fragments(MAX_FRAMES_PER_MESSAGE + 1, b"")
    assert read_all(over, 65536) == [Fail(1009, f"a message in more than {MAX_FRAMES_PER_MESSAGE} frames")]


def test_fragments_cost_their_payload_not_an_object_each() -> None:
    """30 000 one-byte fragments (210 KB on the wire) are held as the 30 KB they carry: before,
    each was a bytes object of its own (3.8 MB)."""
    count, read = 30_000, 64 * 1024
    wire = fragments(count)
    reader = FrameReader(LIMIT)
    tracemalloc.start()
    try:
        events: list[Event] = []
        for index in range(0, len(wire), read):
            events += reader.feed(wire[index : index + read])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert events == [Message(" " * (count - 1) + "1")]
    # the message (joined, then as text), a read and what was left of the one before, a little
    assert peak < 2 * count + 2 * read + 64 * 1024, peak
