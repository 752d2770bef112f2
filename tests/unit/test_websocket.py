"""RFC 6455's shared pieces (pix3net/wire/websocket.py): the opening handshake as both ends check it,
and a frame's header; the proxy's server and the CDP client (clients.cdp) both use these, so one table
holds for both."""

from __future__ import annotations

import base64
import struct

import pytest

from pix3net.wire.websocket import (
    VERSION,
    accept_value,
    answer_problem,
    client_headers,
    frame_header,
    new_key,
    request_accept,
)

RFC_KEY = "dGhlIHNhbXBsZSBub25jZQ=="  # RFC 6455 §1.3's example
RFC_ACCEPT = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


def _request(**overrides: str | None) -> dict[str, str | None]:
    headers: dict[str, str | None] = {k.lower(): v for k, v in client_headers(RFC_KEY).items()}
    headers["connection"] = "keep-alive, Upgrade"  # a token list, as browsers send it
    headers.update(overrides)
    return headers


def test_the_rfc_example() -> None:
    assert accept_value(RFC_KEY) == RFC_ACCEPT
    assert request_accept("GET", "HTTP/1.1", _request().get) == RFC_ACCEPT


@pytest.mark.parametrize(
    ("method", "version", "overrides"),
    [
        ("POST", "HTTP/1.1", {}),
        ("GET", "HTTP/1.0", {}),
        ("GET", "HTTP/1.1", {"upgrade": "h2c"}),
        ("GET", "HTTP/1.1", {"upgrade": None}),
        ("GET", "HTTP/1.1", {"connection": "keep-alive"}),
        ("GET", "HTTP/1.1", {"connection": "upgraded"}),
        ("GET", "HTTP/1.1", {"sec-websocket-version": "8"}),
        ("GET", "HTTP/1.1", {"sec-websocket-version": None}),
        ("GET", "HTTP/1.1", {"sec-websocket-key": "short"}),
        ("GET", "HTTP/1.1", {"sec-websocket-key": base64.b64encode(b"x" * 15).decode()}),
        ("GET", "HTTP/1.1", {"sec-websocket-key": "not base64!"}),
        ("GET", "HTTP/1.1", {"sec-websocket-key": None}),
    ],
)
def test_the_server_refuses_what_is_not_an_upgrade(method: str, version: str, overrides: dict[str, str | None]) -> None:
    assert request_accept(method, version, _request(**overrides).get) is None


def test_the_server_reads_names_case_blind_values() -> None:
    assert request_accept("GET", "HTTP/1.1", _request(upgrade="WebSocket", connection="UPGRADE").get) == RFC_ACCEPT


def test_what_the_client_sends_is_what_the_server_accepts() -> None:
    key = new_key()
    assert len(base64.b64decode(key, validate=True)) == 16 and key != new_key()
    headers = {k.lower(): v for k, v in client_headers(key).items()}
    assert headers["sec-websocket-version"] == VERSION == "13"
    accept = request_accept("GET", "HTTP/1.1", headers.get)
    assert accept == accept_value(key)


def test_the_client_checks_the_answer() -> None:
    good = {"upgrade": "websocket", "connection": "Upgrade", "sec-websocket-accept": RFC_ACCEPT}
    assert answer_problem(good, RFC_KEY) is None
    assert (
        answer_problem({**good, "sec-websocket-accept": accept_value(new_key())}, RFC_KEY) == "does not answer our key"
    )
    for missing in ("upgrade", "connection"):
        rest = {k: v for k, v in good.items() if k != missing}
        assert answer_problem(rest, RFC_KEY) == "does not upgrade to a WebSocket"
    assert answer_problem({**good, "upgrade": "h2c"}, RFC_KEY) == "does not upgrade to a WebSocket"


def test_frame_header_lengths() -> None:
    # RFC 6455 §5.2: 7-bit lengths up to 125, then 126 + 16 bits, then 127 + 64 bits.
    assert frame_header(5, opcode=0x0, fin=False) == b"\x00\x05"
    assert frame_header(3, opcode=0x8) == b"\x88\x03"
    assert frame_header(5) == b"\x81\x05"
    assert frame_header(125) == b"\x81\x7d"
    assert frame_header(126) == b"\x81\x7e\x00\x7e"
    assert frame_header(65535) == b"\x81\x7e\xff\xff"
    assert frame_header(65536) == b"\x81\x7f" + struct.pack("!Q", 65536)
    assert frame_header(70000) == b"\x81\x7f" + struct.pack("!Q", 70000)
