"""The proxy's HTTP/WebSocket pieces, pure: request heads, routes, handshake, frame gauge."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pix3net.cdp._http import (
    BadRequest,
    FrameGauge,
    body_length,
    handshake_accept,
    http_route_path,
    parse_head,
    text_frame_header,
    ws_route,
)


def test_parse_head_keeps_duplicates_and_strips_values() -> None:
    head = parse_head(b"GET /json/list?x=1 HTTP/1.1\r\nHost:  127.0.0.1:9333 \r\nHOST: evil\r\nX-A:")
    assert head.method == "GET" and head.target == "/json/list?x=1" and head.path == "/json/list"
    assert head.headers == [("host", "127.0.0.1:9333"), ("host", "evil"), ("x-a", "")]
    assert head.get("host") == "127.0.0.1:9333, evil" and head.get("nope") is None


@pytest.mark.parametrize(
    "raw",
    [
        b"GET /x\r\n",
        b"GET /x HTTP/2\r\n",
        b"GET  /x HTTP/1.1",
        b"G(T /x HTTP/1.1",
        b"GET /x HTTP/1.1\r\nNo colon",
        b"GET /x HTTP/1.1\r\n folded: x",
        b"GET /x HTTP/1.1\r\nBad Name: x",
        b"GET /x HTTP/1.1\r\nX: a\nb",
        b"GET /\x00 HTTP/1.1",
    ],
)
def test_bad_heads(raw: bytes) -> None:
    with pytest.raises(BadRequest):
        parse_head(raw)


def test_keep_alive_and_bodies() -> None:
    assert parse_head(b"GET / HTTP/1.1\r\nHost: x").keep_alive
    assert not parse_head(b"GET / HTTP/1.1\r\nConnection: close").keep_alive
    assert not parse_head(b"GET / HTTP/1.0").keep_alive
    assert parse_head(b"GET / HTTP/1.0\r\nConnection: keep-alive").keep_alive
    assert body_length(parse_head(b"GET / HTTP/1.1")) == 0
    assert body_length(parse_head(b"POST / HTTP/1.1\r\nContent-Length: 5")) == 5
    assert body_length(parse_head(b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6")) is None
    assert body_length(parse_head(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked")) is None
    assert body_length(parse_head(b"POST / HTTP/1.1\r\nContent-Length: -1")) is None
    assert body_length(parse_head(b"POST / HTTP/1.1\r\nContent-Length: 99999999")) is None


@pytest.mark.parametrize(
    ("target", "path"),
    [
        ("/json/list", "/json/list"),
        ("/json/list/", "/json/list"),
        ("/json//", "/json"),
        ("/?x", ""),
        ("/json/version?a=/", "/json/version"),
    ],
)
def test_http_route_path(target: str, path: str) -> None:
    assert http_route_path(target) == path


@pytest.mark.parametrize(
    ("target", "route"),
    [
        ("/pix3", ("browser", None)),
        ("/pix3?x=1", ("browser", None)),
        ("/pix3/page/T1", ("page", "T1")),
        ("/pix3/page/A%2FB", ("page", "A/B")),
        ("/pix3/page/%C3%A9", ("page", "é")),
        ("/pix3/", None),
        ("/pix3/page/", None),
        ("/pix3/page/%E0", None),
        ("/pix3/page/%zz", None),
        ("/pix3/page/%", None),
        ("/pix3/page/a%2", None),
        ("/devtools/browser/x", None),
        ("/json/version", None),
    ],
)
def test_ws_route(target: str, route: tuple[str, str | None] | None) -> None:
    assert ws_route(target) == route


def _upgrade(**overrides: str) -> bytes:
    headers = {
        "Host": "127.0.0.1",
        "Upgrade": "websocket",
        "Connection": "keep-alive, Upgrade",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        **overrides,
    }
    return ("GET /pix3 HTTP/1.1\r\n" + "\r\n".join(f"{k}: {v}" for k, v in headers.items() if v)).encode()


def test_handshake_accept_is_rfc6455() -> None:
    assert handshake_accept(parse_head(_upgrade())) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="  # RFC 6455 §1.3
    for bad in (
        {"Upgrade": "h2c"},
        {"Connection": "keep-alive"},
        {"Sec-WebSocket-Version": "8"},
        {"Sec-WebSocket-Key": "short"},
        {"Sec-WebSocket-Key": ""},
    ):
        assert handshake_accept(parse_head(_upgrade(**bad))) is None, bad


def test_text_frame_header_lengths() -> None:
    assert text_frame_header(5) == b"\x81\x05"
    assert text_frame_header(126) == b"\x81\x7e\x00\x7e"
    assert text_frame_header(70000) == b"\x81\x7f" + struct.pack("!Q", 70000)


def _frame(opcode: int, length: int, fin: bool = True, masked: bool = True) -> bytes:
    first = (0x80 if fin else 0) | opcode
    mask_bit = 0x80 if masked else 0
    if length < 126:
        head = bytes([first, mask_bit | length])
    elif length < 65536:
        head = bytes([first, mask_bit | 126]) + struct.pack("!H", length)
    else:
        head = bytes([first, mask_bit | 127]) + struct.pack("!Q", length)
    return head + (b"\1\2\3\4" if masked else b"")


@given(st.lists(st.integers(1, 200), min_size=1, max_size=8), st.data())
def test_frame_gauge_survives_any_split(sizes: list[int], data: st.DataObject) -> None:
    stream = b""
    for index, size in enumerate(sizes):
        opcode = 1 if index == 0 else 0
        stream += _frame(opcode, size, fin=index == len(sizes) - 1) + b"x" * size
        stream += _frame(9, 3) + b"png"  # a ping in between does not count
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    gauge = FrameGauge()
    last = 0
    for cut in [*cuts, len(stream)]:
        gauge.feed(stream[last:cut])
        last = cut
    assert gauge.message == sum(sizes)


def test_frame_gauge_sees_a_huge_declared_length_at_once() -> None:
    gauge = FrameGauge()
    assert gauge.feed(_frame(1, 300 * 1024 * 1024)) == 300 * 1024 * 1024
