"""The splice's decisions as traces (docs/devserver.md, "Shape"): a head in, relay or hand off out;
a Vite failure in, retry, 502 or close out. The loop that acts on them is tested with real sockets
in tests/integration/test_devserver_splice.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from pix3net.devserver.front.door import Door
from pix3net.devserver.front.splicestep import ANSWER_502, CLOSE, HAND_OFF, RETRY, Relay, after_vite_failed, on_head

VITE = 5174


@pytest.fixture
def door(tmp_path: Path) -> Door:
    return Door.for_project(tmp_path, None, None)


def _head(*lines: str, target: str = "/src/main.ts", method: str = "GET", body: bytes = b"") -> bytes:
    return "\r\n".join([f"{method} {target} HTTP/1.1", "Host: localhost:5173", *lines, "", ""]).encode() + body


def _step(door: Door, data: bytes, port: int | None = VITE) -> Relay | object:
    return on_head(door, data, data.find(b"\r\n\r\n") + 4, port)


def test_a_plain_get_for_vite_is_relayed_as_it_came(door: Door) -> None:
    data = _head()
    assert _step(door, data) == Relay(b"GET", len(data), False)


def test_a_body_is_part_of_the_request_and_close_is_kept(door: Door) -> None:
    data = _head("Content-Length: 5", "Connection: close", method="POST", body=b"hello")
    assert _step(door, data) == Relay(b"POST", len(data), True)


@pytest.mark.parametrize(
    ("why", "data"),
    [
        ("the app's own routes", _head(target="/__pix3/api/hello")),
        ("a WebSocket upgrade", _head("Connection: Upgrade", "Upgrade: websocket")),
        ("a Host the rule refuses", _head().replace(b"localhost:5173", b"evil.example")),
        ("two Host fields", _head("Host: localhost:5173")),
        ("a target outside the project", _head(target="/@fs/etc/passwd")),
        ("a navigation another site asked for", _head("Sec-Fetch-Mode: navigate", "Sec-Fetch-Site: cross-site")),
    ],
)
def test_what_is_not_plain_is_handed_to_hypercorn(door: Door, why: str, data: bytes) -> None:
    assert _step(door, data) is HAND_OFF, why


def test_the_users_own_navigation_stays_spliced(door: Door) -> None:
    data = _head("Sec-Fetch-Mode: navigate", "Sec-Fetch-Site: none", target="/")
    assert _step(door, data) == Relay(b"GET", len(data), False)


def test_while_vite_is_down_or_the_head_too_large_hypercorn_answers(door: Door) -> None:
    assert _step(door, _head(), port=None) is HAND_OFF
    assert on_head(door, b"GET /" + b"a" * 100, -2, VITE) is HAND_OFF


def test_a_vite_failure_retries_once_only_a_safe_request_on_a_reused_connection_nothing_heard() -> None:
    assert after_vite_failed(b"GET", reused=True, answered=False, heard=False, retried=False) is RETRY
    assert after_vite_failed(b"HEAD", reused=True, answered=False, heard=False, retried=False) is RETRY
    # the second try failing too, a fresh connection failing, a byte heard, a POST: 502
    assert after_vite_failed(b"GET", reused=True, answered=False, heard=False, retried=True) is ANSWER_502
    assert after_vite_failed(b"GET", reused=False, answered=False, heard=False, retried=False) is ANSWER_502
    assert after_vite_failed(b"GET", reused=True, answered=False, heard=True, retried=False) is ANSWER_502
    assert after_vite_failed(b"POST", reused=True, answered=False, heard=False, retried=False) is ANSWER_502
    # part of the answer already reached the client: nothing more can be said
    assert after_vite_failed(b"GET", reused=True, answered=True, heard=True, retried=False) is CLOSE
