"""pix3net/wire/httphead.py's readers for the proxy (request heads, every field) and the clients (answer
heads): the same grammar as the splice's framing (tests/unit/test_devserver_httphead.py)."""

from __future__ import annotations

import pytest

from pix3net.wire.httphead import answer_head, parse_request, request_head


def test_a_request_head_keeps_every_field_in_order() -> None:
    head = b"GET /json/list?x=1 HTTP/1.1\r\nHost:  127.0.0.1:9333 \r\nHOST: evil\r\nX-A:\r\n\r\n"
    assert request_head(head) == (
        "GET",
        "/json/list?x=1",
        "HTTP/1.1",
        [("host", "127.0.0.1:9333"), ("host", "evil"), ("x-a", "")],
    )


@pytest.mark.parametrize(
    "head",
    [
        b"GET /x HTTP/2\r\n\r\n",
        b"GET  /x HTTP/1.1\r\n\r\n",
        b"GET /x HTTP/1.1\r\n folded: x\r\n\r\n",
        b"GET /x HTTP/1.1\r\nBad Name: x\r\n\r\n",
        b"GET /x HTTP/1.1\r\nX: a\nb\r\n\r\n",
        b"GET /\x01 HTTP/1.1\r\n\r\n",
    ],
)
def test_what_breaks_the_grammar_breaks_it_for_every_reader(head: bytes) -> None:
    assert request_head(head) is None and parse_request(head) is None


def test_a_framing_field_is_the_caller_s_to_judge() -> None:
    head = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    assert parse_request(head) is None  # the splice: not plain, Hypercorn's
    assert request_head(head) == ("POST", "/", "HTTP/1.1", [("transfer-encoding", "chunked")])  # the proxy's rules


def test_answer_heads() -> None:
    assert answer_head(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nX:  y \r\nx: z\r\n\r\n") == (
        101,
        "HTTP/1.1",
        {"upgrade": "websocket", "x": "z"},
    )
    assert answer_head(b"HTTP/1.0 200\r\n\r\n") == (200, "HTTP/1.0", {})
    assert answer_head(b"SSH-2.0-OpenSSH_9.6\r\n\r\n") is None
    assert answer_head(b"HTTP/1.1 20 OK\r\n\r\n") is None
