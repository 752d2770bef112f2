"""The proxy's HTTP/WebSocket pieces, pure: request heads, routes, handshake, frame gauge."""

from __future__ import annotations

import pytest

from pix3net.wire.httpwire import (
    BadRequest,
    body_length,
    handshake_accept,
    http_route_path,
    parse_head,
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
