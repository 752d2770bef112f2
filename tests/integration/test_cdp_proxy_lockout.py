"""Connections without the token never keep a token holder out (docs/cdp-proxy.md, "Limits"), and
their refusals do not flood the log (docs/reliability.md). The proxy runs in a process of its own
with the real limits (256 connections); the hostile sockets press on it from a thread."""

from __future__ import annotations

import contextlib
import time

import httpx
import trio

from pix3net.cdp._listener import MAX_CONNECTIONS
from pix3net.cdp.port import proxy_call
from tests.support.cdp_attack import pipeliners_process, tiny_window_socket
from tests.support.cdp_proxy import TOKEN
from tests.support.cdp_proxy_process import proxy_process

BEARER = {"Authorization": f"Bearer {TOKEN}"}
HOSTILE = MAX_CONNECTIONS + 4  # 260: every place, and more


def timed_round_trips(port: int) -> tuple[float, float]:
    """Seconds for a token holder's `/json/version` and for a call over a WebSocket of its own."""
    started = time.monotonic()
    answer = httpx.get(f"http://127.0.0.1:{port}/json/version", headers=BEARER, timeout=5, trust_env=False)
    http_seconds = time.monotonic() - started
    assert answer.status_code == 200, answer.text
    started = time.monotonic()
    version = trio.run(proxy_call, port, TOKEN, "Browser.getVersion", None, 5.0)
    assert version["product"] == "FakeChrome/1.0"
    return http_seconds, time.monotonic() - started


def test_tokenless_pipeliners_never_keep_a_token_holder_out() -> None:
    """260 sockets with a tiny receive window pipeline `GET /json/version` without the token and
    never read; replaced as soon as the proxy closes one. A client with the token gets in within
    2 s (before: 503 `too many connections` for as long as they were held)."""
    stats: list[int] = []
    with proxy_process() as proxy:
        with pipeliners_process(proxy.port, HOSTILE, stats):
            time.sleep(1.5)  # every place taken (before the change, for good)
            http_seconds, ws_seconds = timed_round_trips(proxy.port)
        sent, replaced = stats
    assert http_seconds < 2 and ws_seconds < 2, (http_seconds, ws_seconds)
    assert sent > 1_000_000 and replaced > HOSTILE  # they kept pressing
    # thousands of refusals: the first one, then a count per 10 s
    assert len(proxy.lines) < 10, proxy.lines


def test_an_answer_nobody_takes_ends_its_connection() -> None:
    """With a cap of 4, four token holders pipeline requests and never read: every place is busy
    answering, so a newcomer is refused; once an answer has waited `--answer-seconds` (1 s) its
    connection is closed and the newcomer gets in (before: refused for as long as they were held)."""
    request = f"GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\r\n".encode()
    with proxy_process("--max-connections", "4", "--answer-seconds", "1") as proxy:
        held = [tiny_window_socket(proxy.port) for _ in range(4)]
        try:
            for sock in held:
                with contextlib.suppress(BlockingIOError):
                    while True:
                        sock.send(request * 100)
            time.sleep(0.3)
            refused = httpx.get(f"http://127.0.0.1:{proxy.port}/json/version", headers=BEARER, trust_env=False)
            assert refused.status_code == 503 and "too many connections" in refused.text
            time.sleep(1.2)
            assert timed_round_trips(proxy.port)[0] < 2
        finally:
            for sock in held:
                sock.close()
