"""The CDP client's WebSocket framing, sans-IO (pix3net/clients/cdp.py, RFC 6455): what the client sends, what it reads —
whole, split at every byte, and the frames no server may send."""

from __future__ import annotations

import struct

import pytest

from pix3net.clients.cdp import encode_frame, parse_frame
from pix3net.websocket import OP_CLOSE, OP_PING, OP_TEXT, frame_header

MASK = b"\x01\x02\x03\x04"


def _server_frame(opcode: int, payload: bytes, final: bool = True) -> bytes:
    return frame_header(len(payload), opcode=opcode, fin=final) + payload


def test_rfc_examples() -> None:
    # RFC 6455, section 5.7: a masked "Hello" from a client.
    assert encode_frame(OP_TEXT, b"Hello", bytes([0x37, 0xFA, 0x21, 0x3D])) == bytes.fromhex("818537fa213d7f9f4d5158")


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536])
def test_lengths_round_trip(size: int) -> None:
    payload = bytes(i % 251 for i in range(size))
    frame = encode_frame(OP_TEXT, payload, MASK)
    assert parse_frame(frame) == (True, OP_TEXT, payload, len(frame))  # a masked frame is unmasked too
    server = _server_frame(OP_TEXT, payload)
    assert parse_frame(server + b"next") == (True, OP_TEXT, payload, len(server))


def test_split_at_every_byte() -> None:
    data = _server_frame(OP_TEXT, b'{"id":1,"result":{}}') + _server_frame(OP_PING, b"p")
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
    assert parse_frame(_server_frame(OP_CLOSE, struct.pack("!H", 1000))) == (True, OP_CLOSE, b"\x03\xe8", 4)
