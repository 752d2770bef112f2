"""The WebSocket framing of pix3net/wscall.py (RFC 6455): what the client sends, what it reads —
whole, split at every byte, and the frames no server may send."""

from __future__ import annotations

import struct

import pytest

from pix3net.wscall import CLOSE, PING, TEXT, accept_key, encode_frame, parse_frame

MASK = b"\x01\x02\x03\x04"


def _server_frame(opcode: int, payload: bytes, final: bool = True) -> bytes:
    size = len(payload)
    first = (0x80 if final else 0) | opcode
    if size < 126:
        return struct.pack("!BB", first, size) + payload
    if size < 1 << 16:
        return struct.pack("!BBH", first, 126, size) + payload
    return struct.pack("!BBQ", first, 127, size) + payload


def test_rfc_examples() -> None:
    # RFC 6455, section 5.7: a masked "Hello" from a client, and section 1.3's accept key.
    assert encode_frame(TEXT, b"Hello", bytes([0x37, 0xFA, 0x21, 0x3D])) == bytes.fromhex("818537fa213d7f9f4d5158")
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536])
def test_lengths_round_trip(size: int) -> None:
    payload = bytes(i % 251 for i in range(size))
    frame = encode_frame(TEXT, payload, MASK)
    assert parse_frame(frame) == (True, TEXT, payload, len(frame))  # a masked frame is unmasked too
    server = _server_frame(TEXT, payload)
    assert parse_frame(server + b"next") == (True, TEXT, payload, len(server))


def test_split_at_every_byte() -> None:
    data = _server_frame(TEXT, b'{"id":1,"result":{}}') + _server_frame(PING, b"p")
    for cut in range(len(data)):
        first = parse_frame(data[:cut])
        whole = parse_frame(data)
        assert whole is not None
        assert first is None or first == whole  # never a wrong frame from half the bytes
        if first is None:
            assert cut < whole[3]


def test_frames_no_server_may_send() -> None:
    with pytest.raises(ValueError, match="reserved"):
        parse_frame(bytes([0xC1, 0x00]))  # RSV1: compression was never negotiated
    with pytest.raises(ValueError, match="bytes"):
        parse_frame(struct.pack("!BBQ", 0x81, 127, 1 << 40))  # over the bound, before any payload
    assert parse_frame(_server_frame(CLOSE, struct.pack("!H", 1000))) == (True, CLOSE, b"\x03\xe8", 4)
