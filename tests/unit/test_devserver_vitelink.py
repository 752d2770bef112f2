"""The front door's rules for its Vite connections, as tables: when a kept-alive connection is
reused, when a failed request is sent to Vite a second time, and when Vite listens."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from pix3net.devserver.front import vite, vitelink
from pix3net.devserver.front.vitelink import IDLE_REUSE_S, NODE_KEEP_ALIVE_S, listening, may_retry, reusable


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


HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"


def _row(local: str, state: str) -> str:
    return f"   0: {local} 00000000:0000 {state} 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0\n"


@pytest.mark.skipif(sys.byteorder != "little", reason="the rows are written as a little-endian kernel writes them")
@pytest.mark.parametrize(
    ("rows", "ready"),
    [
        ([_row("0100007F:1F90", "0A")], True),  # 127.0.0.1:8080, listening: Vite's own server
        ([_row("00000000:1F90", "0A")], False),  # 0.0.0.0:8080: Vite checking that its port is free
        ([_row("0100007F:1F90", "01")], False),  # a connection from that address, not a listener
        ([_row("0100007F:1F91", "0A")], False),  # another port
        ([_row("0200007F:1F90", "0A")], False),  # 127.0.0.2
        ([_row("00000000:1F90", "0A"), _row("0100007F:1F90", "0A")], True),
        ([], False),
    ],
)
def test_listening_rows(rows: list[str], ready: bool) -> None:
    assert listening(HEADER + "".join(rows), "127.0.0.1", 8080) is ready


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="Linux's socket table")
def test_listening_in_the_kernels_table() -> None:
    """Real sockets: a listener on the address is seen, a wildcard one and a closed one are not."""
    exact = socket.create_server(("127.0.0.1", 0))
    port = exact.getsockname()[1]
    assert listening(Path("/proc/net/tcp").read_text(), "127.0.0.1", port)
    exact.close()
    assert not listening(Path("/proc/net/tcp").read_text(), "127.0.0.1", port)
    with socket.create_server(("0.0.0.0", 0)) as wildcard:
        assert not listening(Path("/proc/net/tcp").read_text(), "127.0.0.1", wildcard.getsockname()[1])
