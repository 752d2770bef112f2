"""The splice's head parser: heads in, framing out; anything not plain is None (→ Hypercorn)."""

from __future__ import annotations

import pytest

from pix3net.wire.httphead import (
    Head,
    common_answer_end,
    common_request,
    host_field,
    parse_request,
    parse_response,
    path_of,
)


def test_plain_requests() -> None:
    head = parse_request(b"GET /a?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n")
    assert head == Head(b"GET", b"/a?x=1", 0, 3, False, False, False)
    assert parse_request(b"GET / HTTP/1.1\r\n\r\n") == Head(b"GET", b"/", 0, None, False, False, False)
    old = parse_request(b"GET /a HTTP/1.0\r\nHost: x\r\n\r\n")
    assert old is not None and old.close
    kept = parse_request(b"GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
    assert kept is not None and not kept.close
    closing = parse_request(b"GET /a HTTP/1.1\r\nconnection:  close \r\n\r\n")
    assert closing is not None and closing.close
    upgrade = parse_request(b"GET / HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n")
    assert upgrade is not None and upgrade.upgrade and not upgrade.close
    bare_upgrade = parse_request(b"GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n")  # never spliced blind
    assert bare_upgrade is not None and bare_upgrade.upgrade
    spaced = parse_request(b"GET / HTTP/1.1\r\nCONTENT-LENGTH:\t7 \r\nX-Empty:\r\n\r\n")
    assert spaced is not None and spaced.length == 7


@pytest.mark.parametrize(
    "head",
    [
        b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",  # duplicate length
        b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        b"GET / HTTP/1.1\r\nContent-Length: 1, 1\r\n\r\n",
        b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",  # request bodies: Content-Length only
        b"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"PUT / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
        b"GET / HTTP/1.1\r\nbroken\r\n\r\n",
        b"GET / HTTP/1.1\r\nContent-Length : 3\r\n\r\n",  # space before the colon
        b"GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n",  # obsolete line folding
        b"GET / HTTP/1.1\nHost: x\n\n",  # bare LF
        b"GET / HTTP/2.0\r\n\r\n",
        b"GET  / HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\n",  # not complete
        b"GET /a\x00b HTTP/1.1\r\n\r\n",
    ],
)
def test_heads_that_are_not_plain_go_to_hypercorn(head: bytes) -> None:
    assert parse_request(head) is None


def test_responses() -> None:
    ok = parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Type: text/javascript\r\n\r\n")
    assert ok == Head(b"", b"", 200, 12, False, False, False)
    chunked = parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    assert chunked is not None and (chunked.status, chunked.chunked, chunked.close) == (200, True, True)
    assert parse_response(b"HTTP/1.1 304\r\n\r\n") == Head(b"", b"", 304, None, False, False, False)
    switching = parse_response(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n\r\n")
    assert switching is not None and switching.status == 101
    assert parse_response(b"HTTP/1.0 200 OK\r\n\r\n") == Head(b"", b"", 200, None, False, True, False)
    assert parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n") is None
    assert parse_response(b"HTTP/1.1 2000 OK\r\n\r\n") is None
    assert parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n") is None


def test_paths() -> None:
    assert path_of(b"/src/a.js?v=1") == b"/src/a.js"
    assert path_of(b"/") == b"/"
    assert path_of(b"*") is None
    assert path_of(b"http://example.com/") is None


CHROME_MODULE_REQUEST = (
    b"GET /src/main.ts HTTP/1.1\r\nHost: 127.0.0.1:5173\r\nConnection: keep-alive\r\n"
    b'sec-ch-ua: "Chromium";v="131"\r\nAccept: */*\r\nSec-Fetch-Dest: script\r\nReferer: http://127.0.0.1:5173/\r\n'
    b'Accept-Encoding: gzip, deflate, br, zstd\r\nIf-None-Match: W/"4d-abc"\r\n\r\n'
)
VITE_MODULE_ANSWER = (
    b"HTTP/1.1 200 OK\r\nVary: Origin\r\nContent-Type: text/javascript\r\nCache-Control: no-cache\r\n"
    b'Etag: W/"4d-abc"\r\nDate: Tue, 01 Dec 2026 17:47:23 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n'
    b"Content-Length: 560\r\n\r\n"
)


def test_a_browser_module_request_and_vite_answer() -> None:
    """`Connection: keep-alive` alone changes nothing in HTTP/1.1; any other framing field counts."""
    assert parse_request(CHROME_MODULE_REQUEST) == Head(b"GET", b"/src/main.ts", 0, None, False, False, False)
    assert parse_response(VITE_MODULE_ANSWER) == Head(b"", b"", 200, 560, False, False, False)
    for keep in (b"Keep-Alive", b"  keep-alive\t", b"KEEP-ALIVE"):
        head = parse_request(b"GET / HTTP/1.1\r\nConnection: " + keep + b"\r\n\r\n")
        assert head == Head(b"GET", b"/", 0, None, False, False, False)
        answer = parse_response(b"HTTP/1.1 304 Not Modified\r\nConnection: " + keep + b"\r\nContent-Length: 0\r\n\r\n")
        assert answer == Head(b"", b"", 304, 0, False, False, False)
    upgrade = parse_request(b"GET / HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\n\r\n")
    assert upgrade is not None and upgrade.upgrade
    # HTTP/1.0 keeps the connection only when asked, and a lone Content-Length does not say so
    assert parse_request(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") == Head(
        b"GET", b"/", 0, None, False, False, False
    )
    old = parse_response(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n")
    assert old == Head(b"", b"", 200, 2, False, True, False)
    closing = parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n")
    assert closing == Head(b"", b"", 200, 2, False, True, False)
    assert parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n") is None
    assert parse_response(b"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: +2\r\n\r\n") is None
    assert parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n") is None
    assert parse_request(b"GET / HTTP/1.1\r\nConnection: keep-alive\r\nExpect: 100-continue\r\n\r\n") is None


REQUESTS = [
    (CHROME_MODULE_REQUEST, True),
    (b"GET / HTTP/1.1\r\n\r\n", True),
    (b"HEAD /a?b=1 HTTP/1.1\r\nConnection: Keep-Alive \r\nX-Empty:\r\n\r\n", True),
    (b"GET /a HTTP/1.1\r\nContent-Length-X: 1\r\nX-Connection: close\r\n\r\n", True),
    (b"GET / HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n", False),
    (b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", False),
    (b"GET / HTTP/1.1\r\nconnection: keep-alive\r\nConnection: keep-alive\r\n\r\n", True),
    (b"GET / HTTP/1.0\r\n\r\n", False),
    (b"POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\n", False),
    (b"POST /a HTTP/1.1\r\nContent-Length: 0\r\n\r\n", False),
    (b"GET * HTTP/1.1\r\n\r\n", False),
    (b"GET http://x/ HTTP/1.1\r\n\r\n", False),
    (b"GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", False),
    (b"GET / HTTP/1.1\r\nContent-Length : 3\r\n\r\n", False),
    (b"GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n", False),
    (b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", False),
    (b"GET /a\x00b HTTP/1.1\r\n\r\n", False),
]


@pytest.mark.parametrize(("head", "common"), REQUESTS)
def test_a_common_request_is_one_the_general_parser_frames_alike(head: bytes, common: bool) -> None:
    """`common_request` takes only heads `parse_request` reads as: no body, the connection kept."""
    found = common_request(head, len(head))
    assert (found is not None) == common
    if found is not None:
        assert parse_request(head) == Head(found[0], found[1], 0, None, False, False, False)


BODY = b"export 1;\n"
ANSWERS = [
    (VITE_MODULE_ANSWER.replace(b"560", b"10") + BODY, True),
    (b"HTTP/1.1 404 Not Found\r\ncontent-length:\t10 \r\n\r\n" + BODY, True),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", True),
    (b"HTTP/1.1 200\r\nContent-Length: 10\r\n\r\n" + BODY, True),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n" + BODY[:4], False),  # the rest comes later
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n" + BODY + b"HTTP/1.1", False),  # more than one answer
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n" + BODY, False),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 10\r\n\r\n" + BODY, False),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", False),
    (b"HTTP/1.1 200 OK\r\nContent-Length: +10\r\n\r\n" + BODY, False),
    (b"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", False),
    (b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n", False),
    (b"HTTP/1.1 101 Switching Protocols\r\nContent-Length: 0\r\n\r\n", False),
    (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", False),
    (b"HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\n" + BODY, False),
    (b"HTTP/1.1 200 OK\r\nX: a\r\n folded\r\nContent-Length: 10\r\n\r\n" + BODY, False),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n" + BODY, False),  # no end of head
]


@pytest.mark.parametrize(("data", "common"), ANSWERS)
def test_a_common_answer_ends_where_the_general_parser_says(data: bytes, common: bool) -> None:
    """`common_answer_end` takes only whole answers that `parse_response` frames with a
    Content-Length body, on a connection kept open; it says where they end."""
    end = common_answer_end(data)
    assert (end == len(data)) == common
    if end != -1:
        head_end = data.index(b"\r\n\r\n") + 4
        head = parse_response(data, head_end)
        assert head is not None and head.length is not None
        assert (head.status >= 200, head.status in (204, 304), head.chunked, head.close) == (True, False, False, False)
        assert end == head_end + head.length


@pytest.mark.parametrize(
    ("head", "value"),
    [
        (b"GET / HTTP/1.1\r\nHost: 127.0.0.1:5173\r\n\r\n", b"127.0.0.1:5173"),
        (b"GET / HTTP/1.1\r\nhOsT:\t localhost \t\r\nX: y\r\n\r\n", b"localhost"),
        (b"GET / HTTP/1.1\r\nHost:\r\n\r\n", b""),
        (b"GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", None),  # duplicated
        (b"GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\nhost: b\r\n\r\n", None),
        (b"GET / HTTP/1.1\r\nX-Forwarded-Host: a\r\nXHost: b\r\n\r\n", None),  # missing
        (b"GET / HTTP/1.1\r\n\r\n", None),
    ],
)
def test_host_field(head: bytes, value: bytes | None) -> None:
    """The splice's Host rule reads the one `Host` line (none or two: None)."""
    assert host_field(head, len(head)) == value
    assert host_field(head + b"Host: later\r\n\r\n", len(head)) == value  # bytes past the head are not read
