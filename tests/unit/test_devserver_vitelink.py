"""The front door's rules for its Vite connections, as tables: when a kept-alive connection is
reused, and when a failed request is sent to Vite a second time."""

from __future__ import annotations

import pytest

from pix3net.devserver.front import vite, vitelink
from pix3net.devserver.front.vitelink import IDLE_REUSE_S, NODE_KEEP_ALIVE_S, may_retry, reusable


@pytest.mark.parametrize(
    ("method", "reused", "heard", "again"),
    [
        (b"GET", True, False, True),  # Node closed it idle as the request came: Vite never saw it
        (b"HEAD", True, False, True),
        (b"GET", True, True, False),  # a byte of the answer came back: Vite saw it
        (b"HEAD", True, True, False),
        (b"GET", False, False, False),  # a fresh connection closed unanswered: Vite crashed on it
        (b"GET", False, True, False),
        (b"POST", True, False, False),  # Vite may have acted on it
        (b"PUT", True, False, False),
        (b"PATCH", True, False, False),
        (b"DELETE", True, False, False),
        (b"OPTIONS", True, False, False),
        (b"get", True, False, False),  # methods are case-sensitive (RFC 9110 §9.1)
        (b"", True, False, False),
    ],
)
def test_may_retry(method: bytes, reused: bool, heard: bool, again: bool) -> None:
    assert may_retry(method, reused, heard) is again


@pytest.mark.parametrize(
    ("idle_s", "reuse"),
    [(0.0, True), (0.5, True), (IDLE_REUSE_S - 0.001, True), (IDLE_REUSE_S, False), (NODE_KEEP_ALIVE_S, False)],
)
def test_reusable(idle_s: float, reuse: bool) -> None:
    assert reusable(idle_s) is reuse


def test_the_bounds_agree() -> None:
    """Reuse stops well before Node closes (room for a loaded machine's delay), and a request
    waits for Vite at least as long as Vite is given to start listening."""
    assert IDLE_REUSE_S <= NODE_KEEP_ALIVE_S / 2
    assert vitelink.WAIT_FOR_VITE_S >= vite.START_TIMEOUT_S
