"""The proxy's edges at full size, against the real owner of `soak_proxy.py` (docs/reliability.md):
tokenless sockets that would lock a token holder out, junk that would flood the owner's log, and
fragmented messages that would cost more memory than they carry."""

from __future__ import annotations

import contextlib
import struct
import threading
import time
from typing import TYPE_CHECKING

import trio

from pix3net.owner.proxy.transport import MAX_CONNECTIONS
from pix3net.wire.frames import MAX_FRAMES_PER_MESSAGE
from tests.soak._report import Figure
from tests.support.cdp_attack import (
    junk_requests,
    one_byte_fragments,
    pipeliners_process,
    read_until_closed,
    send_all_until_closed,
    upgraded,
)

if TYPE_CHECKING:
    from tests.soak.soak_proxy import Owner

AREA = "proxy"
MiB = 1024 * 1024
HOSTILE = MAX_CONNECTIONS + 4


def _round_trip(owner: Owner) -> float:
    """A token holder's `/json/version` and a call on a WebSocket of its own, in seconds."""
    import httpx

    from pix3net.clients.cdptrio import call as proxy_call

    started = time.monotonic()
    headers = {"Authorization": f"Bearer {owner.token}"}
    answer = httpx.get(f"http://127.0.0.1:{owner.port}/json/version", headers=headers, timeout=10, trust_env=False)
    if answer.status_code != 200:
        raise RuntimeError(f"/json/version: HTTP {answer.status_code} {answer.text[:200]}")
    trio.run(proxy_call, owner.port, owner.token, "Browser.getVersion", None, 10.0)
    return time.monotonic() - started


def lockout(owner: Owner, seconds: float) -> list[Figure]:
    """260 sockets with a tiny receive window pipeline tokenless requests and never read, replaced as
    soon as the proxy closes one, while a token holder connects and round-trips once a second."""
    fds_before = owner.fds()
    stats: list[int] = []
    rounds: list[float] = []
    failures: list[str] = []
    with pipeliners_process(owner.port, HOSTILE, stats):
        time.sleep(1.5)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                rounds.append(_round_trip(owner))
            except Exception as error:
                failures.append(f"{type(error).__name__}: {error}")
            time.sleep(1)
    sent, replaced = stats
    time.sleep(1)
    return [
        Figure(
            AREA,
            f"{HOSTILE} tokenless pipeliners × {seconds:g} s: token holder's worst round trip",
            max(rounds, default=99.0) * 1000,
            "ms",
            bound=2000,
            note=f"{len(rounds)} round trips (HTTP + WebSocket), median {sorted(rounds)[len(rounds) // 2] * 1000:.0f} ms"
            if rounds
            else "none",
        ),
        Figure(AREA, "  token holder's failed round trips", len(failures), bound=0, note="; ".join(failures[:3])),
        Figure(AREA, "  hostile connections closed by the proxy", replaced, note=f"{sent / 1e6:.0f} MB sent to it"),
        Figure(AREA, "  owner descriptors left over", owner.fds() - fds_before, bound=0),
    ]


def junk(owner: Owner) -> list[Figure]:
    """32 MB of tokenless requests with 16 KB targets, each answered: the owner's log grows by a few
    lines, not by 32 MB."""
    log = owner.home / "chrome-owner.log"
    before = log.stat().st_size
    requests = junk_requests(owner.port, 32 * 1000 * 1000)
    time.sleep(11)  # the count line of the interval
    return [
        Figure(
            AREA,
            f"32 MB of junk requests ({requests} refused): owner log growth",
            (log.stat().st_size - before) / 1024,
            "KiB",
            bound=1024,
        ),
    ]


class _Rss:
    """The owner's RSS sampled every 50 ms on a thread."""

    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        self.peak = owner.rss_mib()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _Rss:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(Exception):
                self.peak = max(self.peak, self.owner.rss_mib())
            time.sleep(0.05)


def _closed_with(data: bytes) -> str:
    """``<code> <reason>`` of the close frame ending what the proxy sent (nothing else came)."""
    if len(data) < 4 or data[0] != 0x88 or data[1] != len(data) - 2:
        return f"not a lone close frame: {data[:60]!r}"
    return f"{struct.unpack_from('!H', data, 2)[0]} {data[4:].decode(errors='replace')}"


def fragments(owner: Owner) -> list[Figure]:
    """3 M one-byte fragments in one message and 5 M empty ones: refused at the frame cap; 3 M one-byte
    fragments in messages under the cap: read whole, the owner's RSS bounded and back afterwards."""
    start = owner.rss_mib()
    refused: list[str] = []
    for count, piece in ((3_000_000, b" "), (5_000_000, b"")):
        with upgraded(owner.port, owner.token, seconds=120) as sock:
            send_all_until_closed(sock, one_byte_fragments(count, payload=piece))
            refused.append(_closed_with(read_until_closed(sock)))
    per_message = 120_000
    messages = 3_000_000 // per_message
    data = one_byte_fragments(per_message)
    with _Rss(owner) as rss, upgraded(owner.port, owner.token, seconds=300) as sock:
        started = time.monotonic()
        wire = 0
        for _ in range(messages):
            wire += send_all_until_closed(sock, data)
        got = b""
        while got.count(b'"error"') < messages:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
        took = time.monotonic() - started
    answered = got.count(b"-32600")
    time.sleep(2)
    after = owner.rss_mib()
    expected = f"1009 a message in more than {MAX_FRAMES_PER_MESSAGE} frames"
    return [
        Figure(
            AREA,
            "3 M one-byte / 5 M empty fragments in one message: not refused at the cap",
            sum(r != expected for r in refused),
            bound=0,
            note="; ".join(refused),
        ),
        Figure(
            AREA,
            f"3 M one-byte fragments in {messages} messages ({wire / 1e6:.0f} MB): answered",
            answered,
            note=f"{took:.1f} s",
        ),
        Figure(
            AREA,
            "  owner RSS growth at the peak",
            rss.peak - start,
            "MiB",
            bound=2 * wire / MiB + 64,
            note=f"start {start:.0f} MiB",
        ),
        Figure(AREA, "  owner RSS after the client left, above its start", after - start, "MiB", bound=start * 0.1),
    ]
