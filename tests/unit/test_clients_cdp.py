"""The CDP client's WebSocket framing, sans-IO (pix3net/clients/cdp.py, RFC 6455): what the client sends, what it reads —
whole, split at every byte, and the frames no server may send."""

from __future__ import annotations

import json
import struct

import pytest

from pix3net.clients.cdp import (
    CallError,
    Closed,
    FrameReader,
    Handshake,
    NotWebSocket,
    Rejected,
    bearer,
    call_message,
    encode_frame,
    is_reply,
    parse_frame,
    proxy_path,
    result_of,
)
from pix3net.wire.websocket import OP_CLOSE, OP_PING, OP_PONG, OP_TEXT, accept_value, frame_header

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


# -- the handshake and the reader, as traces -----------------------------------------------------


def _accept(handshake: Handshake, extra: bytes = b"") -> bytes:
    return (
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: " + accept_value(handshake.key).encode() + b"\r\n\r\n" + extra
    )


def test_the_upgrade_carries_the_token_and_no_origin() -> None:
    handshake = Handshake(9333, proxy_path("A B", client="pix3-editor"), [bearer("t0k")])
    head = handshake.request.decode("latin-1")
    assert head.startswith("GET /pix3/page/A%20B?client=pix3-editor HTTP/1.1\r\nHost: 127.0.0.1:9333\r\n")
    assert "Authorization: Bearer t0k\r\n" in head and "Sec-WebSocket-Version: 13\r\n" in head
    assert "origin" not in head.lower() and "extensions" not in head.lower()
    assert proxy_path(keep=True, client="x") == "/pix3?keep=1&client=x" and proxy_path() == "/pix3"


def test_an_accepted_upgrade_hands_over_the_frames_that_came_with_it() -> None:
    size = len(_accept(Handshake(9333, "/pix3", []), _server_frame(OP_TEXT, b'{"id":1}')))
    for cut in range(1, size):  # split anywhere: the same outcome
        handshake = Handshake(9333, "/pix3", [])
        answer = _accept(handshake, _server_frame(OP_TEXT, b'{"id":1}'))
        first = handshake.feed(answer[:cut])
        rest = first + answer[cut:] if first is not None else handshake.feed(answer[cut:])
        assert rest is not None
        assert FrameReader().feed(rest) == ['{"id":1}']


def test_a_refused_upgrade_is_its_status_and_body() -> None:
    handshake = Handshake(9333, "/pix3", [])
    assert handshake.feed(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 11\r\n\r\nwrong") is None
    with pytest.raises(Rejected) as refused:
        handshake.feed(b" token")
    assert (refused.value.status, refused.value.text()) == (401, "HTTP 401 wrong token")
    closing = Handshake(9333, "/pix3", [])
    closing.feed(b"HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\nno")
    with pytest.raises(Rejected, match="HTTP 403"):
        closing.feed(b"")  # a body that runs to the end of the connection


def test_an_upgrade_that_is_not_a_websocket() -> None:
    with pytest.raises(Closed) as ended:
        Handshake(9333, "/pix3", []).feed(b"")
    assert ended.value.code == 1006
    handshake = Handshake(9333, "/pix3", [])
    with pytest.raises(NotWebSocket, match="does not answer our key"):
        handshake.feed(
            b"HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: x\r\n\r\n"
        )
    with pytest.raises(NotWebSocket, match="not HTTP"):
        Handshake(9333, "/pix3", []).feed(b"SSH-2.0-OpenSSH\r\n\r\n")


def test_the_reader_answers_pings_echoes_a_close_and_joins_fragments() -> None:
    reader = FrameReader()
    data = (
        _server_frame(OP_TEXT, b'{"a":', final=False)
        + _server_frame(OP_PING, b"p")
        + _server_frame(0x0, b"1}")
        + _server_frame(OP_CLOSE, struct.pack("!H", 1001) + b"bye")
        + _server_frame(OP_TEXT, b"after the close")
    )
    messages = [m for i in range(len(data)) for m in reader.feed(data[i : i + 1])]
    assert messages == ['{"a":1}']
    assert reader.closed is not None and (reader.closed.code, reader.closed.reason) == (1001, "bye")
    pong, rest = parse_frame(bytes(reader.replies)), None
    assert pong is not None and pong[1:3] == (OP_PONG, b"p")
    rest = parse_frame(bytes(reader.replies), start=pong[3])
    assert rest is not None and rest[1:3] == (OP_CLOSE, struct.pack("!H", 1001) + b"bye")
    ended = FrameReader()
    ended.feed(b"")
    assert ended.closed is not None and ended.closed.text() == "the proxy closed the connection (1006)"


def test_a_call_and_its_reply() -> None:
    assert json.loads(call_message(3, "Page.navigate", {"url": "x"}, "S")) == {
        "id": 3,
        "method": "Page.navigate",
        "params": {"url": "x"},
        "sessionId": "S",
    }
    assert is_reply({"id": 3, "result": {}}, 3) and not is_reply({"id": 3, "method": "E"}, 3)
    assert result_of("M", {"id": 3, "result": {"v": 1}}) == {"v": 1}
    with pytest.raises(CallError, match=r"^M: nope$"):
        result_of("M", {"id": 3, "error": {"code": -1, "message": "nope"}})
