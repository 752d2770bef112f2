"""Connections without the token never keep a token holder out (docs/cdp-proxy.md, "Limits"), and
their refusals do not flood the log (docs/reliability.md). The proxy runs in a process of its own
with the real limits (256 connections); the hostile sockets press on it from a thread."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import httpx
import trio

from pix3net.clients.cdptrio import call as proxy_call
from pix3net.owner.proxy.transport import MAX_CONNECTIONS
from tests.support.cdp_attack import pipeliners_process, tiny_window_socket
from tests.support.cdp_proxy import TOKEN, running_proxy
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


async def _answers(stream: trio.SocketStream, count: int) -> list[bytes]:
    """Read ``count`` answers (each ends with its JSON body's `}`), fewer when the proxy closes."""
    answers: list[bytes] = []
    data = b""
    with trio.fail_after(10):
        while len(answers) < count:
            head_end = data.find(b"\r\n\r\n")
            if head_end >= 0:
                length = int(data[:head_end].lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                if len(data) >= head_end + 4 + length:
                    answers.append(data[: head_end + 4 + length])
                    data = data[head_end + 4 + length :]
                    continue
            try:
                chunk = await stream.receive_some(65536)
            except trio.BrokenResourceError:  # closed (a reset: we wrote after its close)
                break
            if not chunk:
                break
            data += chunk
    return answers


async def test_tokenless_requests_on_one_connection_are_bounded(tmp_path: Path) -> None:
    """Without the token: 8 requests one at a time, the 8th answer closes; two pipelined, the first
    answer closes (the second is never answered). With the token after a tokenless one (how a port
    is proved): kept alive."""
    tokenless = b"GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with_token = f"GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\r\n".encode()
    async with running_proxy(tmp_path) as proxy:
        stream = await trio.open_tcp_stream("127.0.0.1", proxy.port)
        async with stream:
            got = []
            for _ in range(9):
                with contextlib.suppress(trio.BrokenResourceError):
                    await stream.send_all(tokenless)
                got += await _answers(stream, 1)
        assert len(got) == 8 and all(a.startswith(b"HTTP/1.1 401") for a in got)
        assert [b"Connection: close" in a for a in got] == [False] * 7 + [True]
        stream = await trio.open_tcp_stream("127.0.0.1", proxy.port)
        async with stream:
            await stream.send_all(tokenless * 2)
            got = await _answers(stream, 2)
        assert len(got) == 1 and b"Connection: close" in got[0]
        stream = await trio.open_tcp_stream("127.0.0.1", proxy.port)
        async with stream:
            await stream.send_all(tokenless)
            [first] = await _answers(stream, 1)
            await stream.send_all(with_token * 3)  # a token holder may pipeline
            rest = await _answers(stream, 3)
        assert b"Connection: keep-alive" in first
        assert [a.split(b" ")[1] for a in rest] == [b"200"] * 3
