"""The proxy without real Chrome: router cost and transport throughput against their floors.

Rows (each pair measured side by side in this run):
- router, small request + reply: ``from_client`` + ``from_chrome`` of a ``Runtime.evaluate``
  round trip, against one ``json.loads`` of each of the two texts (what any parser must pay);
- router, 30 MB reply: ``from_chrome`` + building the client's frame parts, against one copy of
  the 30 MB (``bytes(bytearray)``): the splice must not cost more than moving the bytes once;
- proxy round trip (fake Chrome in memory) against a bare WebSocket echo server on the same
  transport code (trio socket + wsproto, no auth, no routing);
- 30 MB message to the client through the proxy against the same 30 MB sent by the bare server;
- a client's round trip while another client has stopped reading, against the same alone.
The proxy-vs-direct-Chrome ratios are in the Chrome owner's bench (real Chromium).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from tempfile import TemporaryDirectory

import trio
from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import CloseConnection, TextMessage

from pix3net.clients.cdptrio import WsClient
from pix3net.owner.proxy.transport import serve_proxy
from pix3net.wire.httpwire import handshake_accept, parse_head, switching_protocols
from pix3net.wire.router import Router, ToClient
from pix3net.wire.websocket import frame_header
from tests.bench._report import Result, pix3_env
from tests.fakechrome.channel import FakeChannel
from tests.fakechrome.model import FakeChrome

AREA = "cdp"
TOKEN = "a" * 43
AUTH = [("Authorization", f"Bearer {TOKEN}")]
BIG = 30 * 1024 * 1024
ROUND_TRIPS = 2000


def _best_of(call: Callable[[], object], repeat: int, inner: int) -> float:
    """Best mean seconds per call over ``repeat`` runs of ``inner`` calls (noise-resistant)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(inner):
            call()
        best = min(best, (time.perf_counter() - start) / inner)
    return best


def _router_small() -> tuple[float, float]:
    router = Router()
    router.open_client(1)
    router.from_chrome(b'{"id":1,"result":{"sessionId":"S1"}}')
    request = '{"id":5,"method":"Runtime.evaluate","params":{"expression":"1","returnByValue":true}}'
    state = {"next": 2}

    def ours() -> None:
        router.from_client(1, request)
        reply = (
            b'{"id":%d,"result":{"result":{"type":"number","value":1,"description":"1"}},"sessionId":"S1"}'
            % (state["next"])
        )
        state["next"] += 1
        [action] = router.from_chrome(reply)
        assert isinstance(action, ToClient)
        b"".join(bytes(p) for p in action.parts)

    reply_text = b'{"id":2,"result":{"result":{"type":"number","value":1,"description":"1"}},"sessionId":"S1"}'

    def floor() -> None:
        json.loads(request)
        json.loads(reply_text)

    return _best_of(ours, 5, 2000), _best_of(floor, 5, 2000)


def _router_big() -> tuple[float, float]:
    router = Router()
    router.open_client(1)
    router.from_chrome(b'{"id":1,"result":{"sessionId":"S1"}}')
    rest = b',"result":{"data":"' + b"A" * BIG + b'"},"sessionId":"S1"}'
    payload = bytearray(b'{"id":2' + rest)
    samples = []
    for pipe_id in range(2, 7):
        router.from_client(1, '{"id":9,"method":"Page.captureScreenshot"}')
        raw = b'{"id":%d' % pipe_id + rest
        start = time.perf_counter()
        [action] = router.from_chrome(raw)
        assert isinstance(action, ToClient)
        sum(len(p) for p in action.parts)
        samples.append(time.perf_counter() - start)
    return min(samples), _best_of(lambda: bytes(payload), 5, 1)


async def _bare_server(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """A WebSocket echo server on the proxy's own transport pieces: the floor for the proxy.

    ``big`` answers with a 30 MB text message built once."""
    big = b'{"id":1,"result":{"data":"' + b"A" * BIG + b'"}}'

    async def handle(stream: trio.SocketStream) -> None:
        buffer = bytearray()
        while b"\r\n\r\n" not in buffer:
            buffer += await stream.receive_some(65536)
        head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
        accept = handshake_accept(parse_head(head))
        assert accept is not None
        await stream.send_all(switching_protocols(accept))
        ws = Connection(ConnectionType.SERVER, trailing_data=rest)
        parts: list[str] = []
        while True:
            for event in ws.events():
                if isinstance(event, TextMessage):
                    parts.append(event.data)
                    if event.message_finished:
                        text = "".join(parts)
                        parts = []
                        data = big if '"big"' in text else text.encode()
                        await stream.send_all(frame_header(len(data)))
                        await stream.send_all(data)
                elif isinstance(event, CloseConnection):
                    await stream.aclose()
                    return
            chunk = await stream.receive_some(256 * 1024)
            if not chunk:
                return
            ws.receive_data(chunk)

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, handle, listeners)
        task_status.started(listeners[0].socket.getsockname()[1])


async def _round_trips(ws: WsClient, count: int, method: str = "Browser.getVersion") -> float:
    samples = []
    for n in range(count):
        start = time.perf_counter()
        await ws.send(json.dumps({"id": n, "method": method}))
        while json.loads(await ws.receive()).get("id") != n:
            pass
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


async def _big_messages(ws: WsClient, count: int, request: Callable[[int], str]) -> float:
    samples = []
    for n in range(count):
        start = time.perf_counter()
        await ws.send(request(n))
        reply = await ws.receive()
        samples.append(time.perf_counter() - start)
        assert len(reply) > BIG
    return statistics.median(samples)


async def _transport(results: list[Result]) -> None:
    with TemporaryDirectory() as home:
        channel = FakeChannel(FakeChrome(["about:blank"]))
        async with trio.open_nursery() as nursery:
            proxy_port = await nursery.start(
                partial(serve_proxy, channel, token=TOKEN, port=0, home=Path(home), log=lambda _: None)
            )
            bare_port = await nursery.start(_bare_server)
            proxied = await WsClient.connect(proxy_port, "/pix3", AUTH)
            bare = await WsClient.connect(bare_port, "/pix3", [])
            async with proxied, bare:
                await _round_trips(proxied, 200)  # warm up
                await _round_trips(bare, 200)
                ours = await _round_trips(proxied, ROUND_TRIPS)
                floor = await _round_trips(bare, ROUND_TRIPS)
                results.append(
                    Result(AREA, "round trip via proxy (fake Chrome) vs bare WS echo", ours * 1e3, floor * 1e3, 2.0)
                )

                def big_request(n: int) -> str:
                    return json.dumps({"id": n, "method": "Fake.big", "params": {"bytes": BIG}})

                # Interleaved, one message per side at a time: the machine's noise lands on both.
                ours_runs, floor_runs = [], []
                for _ in range(9):
                    ours_runs.append(await _big_messages(proxied, 1, big_request))
                    floor_runs.append(await _big_messages(bare, 1, lambda n: json.dumps({"id": n, "method": "big"})))
                ours, floor = statistics.median(ours_runs), statistics.median(floor_runs)
                results.append(
                    Result(
                        AREA,
                        "30 MB reply via proxy vs bare WS send",
                        ours * 1e3,
                        floor * 1e3,
                        1.5,
                        note="ours includes the in-process fake Chrome building the reply",
                    )
                )
                alone = await _round_trips(proxied, 500)
                stalled = await WsClient.connect(proxy_port, "/pix3", AUTH)
                async with stalled:
                    for n in range(16):
                        await stalled.send(json.dumps({"id": n, "method": "Fake.big", "params": {"bytes": 1 << 20}}))
                    await trio.sleep(0.5)
                    loaded = await _round_trips(proxied, 500)
                results.append(
                    Result(AREA, "round trip with a stalled client vs alone", loaded * 1e3, alone * 1e3, 2.0)
                )
            nursery.cancel_scope.cancel()


def _status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


async def _peak_rss(results: list[Result]) -> None:
    """Peak RSS of a proxy process above its idle RSS while a 30 MB reply passes through it."""
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "tests.bench._cdp_serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=pix3_env()
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        port = int((await process.stdout.receive_some(64)).decode().strip())
        peaks = []
        async with await WsClient.connect(port, "/pix3", AUTH) as ws:
            for n in range(6):
                idle = _status_kib(process.pid, "VmRSS")
                await trio.Path(f"/proc/{process.pid}/clear_refs").write_text("5")  # reset the peak (VmHWM)
                await ws.send(json.dumps({"id": n, "method": "Fake.big", "params": {"bytes": BIG}}))
                assert len(await ws.receive()) > BIG
                if n >= 2:  # the first answers allocate the fake's own 30 MB block
                    peaks.append(_status_kib(process.pid, "VmHWM") - idle)
        peak_mb = max(peaks) / 1024
        results.append(
            Result(
                AREA,
                "30 MB reply: proxy peak RSS above idle vs message",
                peak_mb,
                BIG / 2**20,
                3.0,
                "MB",
                note="incl. the message as read from Chrome",
            )
        )
    finally:
        await process.stdin.aclose()
        with trio.move_on_after(5):
            await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()


def _run_async(fn: Callable[[list[Result]], Awaitable[None]]) -> list[Result]:
    results: list[Result] = []
    trio.run(fn, results)
    return results


def run() -> list[Result]:
    small, small_floor = _router_small()
    big, big_floor = _router_big()
    rows = [
        Result(AREA, "router: small request + reply (per round trip)", small * 1e6, small_floor * 1e6, 3.0, "µs"),
        Result(AREA, "router: 30 MB reply envelope vs one copy of it", big * 1e3, big_floor * 1e3, 1.0),
    ]
    return rows + _run_async(_transport) + _run_async(_peak_rss)
