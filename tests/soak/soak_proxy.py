"""The CDP proxy under load and faults: real Chromium behind a real `pix3 __chrome-owner`.

Phases, each bounded and on 127.0.0.1 only:
1. load: 16 clients for N minutes, each evaluating its own expressions on its own session of one
   page; every reply checked (errors, answers meant for another client); the owner's RSS and
   open descriptors sampled every second;
2. a reconnect storm: 8 tasks connecting, attaching, calling once and leaving;
3. clients vanishing (TCP reset) in the middle of a 30 MB reply;
4. hostile input: wrong token, foreign Host, Origin, a 300 MB frame, malformed and 100 000-deep
   JSON, bad UTF-8 in text and binary frames, garbage instead of HTTP or WebSocket frames;
5. 500 idle and 50 slowloris connections while a client keeps working;
6. the edges (`_proxy_edges.py`): 260 tokenless sockets pipelining without reading while a token
   holder round-trips; 32 MB of junk requests against the owner's log; 3 M one-byte and 5 M
   empty fragments in one message, 3 M one-byte fragments in messages under the frame cap;
7. EMFILE: the owner's descriptor limit lowered under it while connections pile up;
8. SIGKILL of Chrome mid-work (clients hear 1001, the owner exits 0, the record goes), then a new
   owner and SIGKILL of the owner mid-work (Chrome exits by itself).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
import statistics
import struct
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from trio_websocket import ConnectionClosed, WebSocketConnection, open_websocket_url

from pix3net.clients.cdptrio import Closed, WsClient
from pix3net.daemon.chromerecord import read_record
from pix3net.owner.control import start_owner
from pix3net.owner.proxy.transport import HEAD_SECONDS
from tests.bench.bench_cdp import QUIET, _chromium
from tests.soak._proxy_edges import fragments, junk, lockout
from tests.soak._report import Figure
from tests.support.cdp_proxy import parse_answer, raw_exchange, upgrade_request
from tests.support.ports import free_port

AREA = "proxy"
CLIENTS = 16
MiB = 1024 * 1024
BIG = 30_000_000
MAX_MESSAGE = 512 * MiB


@dataclass
class Owner:
    home: Path
    port: int
    token: str
    pid: int
    chrome_pid: int

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/pix3"

    @property
    def headers(self) -> list[tuple[bytes, bytes]]:
        return [(b"Authorization", f"Bearer {self.token}".encode())]

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def alive(self) -> bool:
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        return pid == 0


async def start(root: Path, name: str) -> Owner:
    home = root / name
    wrapper = root / "chromium-quiet"
    if not wrapper.exists():
        wrapper.write_text(f'#!/bin/sh\nexec {_chromium()} {" ".join(QUIET)} "$@"\n')
        wrapper.chmod(0o755)
    port = free_port()
    started = await start_owner(
        home, chrome=str(wrapper), port=port, profile=str(home / "chrome"), url="about:blank", headless=True
    )
    record = read_record(home)
    assert record is not None and record.chrome_pid
    return Owner(home, port, (home / "cdp-token").read_text().strip(), started.pid, record.chrome_pid)


def stop(owner: Owner) -> None:
    for pid in (owner.pid, owner.chrome_pid):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    _reap(owner.pid)


class Client:
    """A CDP client that checks every message it gets is meant for it."""

    def __init__(self, ws: WebSocketConnection) -> None:
        self.ws = ws
        self.next_id = 1
        self.session: str | None = None
        self.foreign = 0  # replies with an id this client never sent

    async def call(self, method: str, params: dict[str, Any] | None = None, *, session: bool = True) -> Any:
        ident = self.next_id
        self.next_id += 1
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        await self.ws.send_message(json.dumps(message))
        while True:
            reply = json.loads(await self.ws.get_message())
            if "id" not in reply:
                continue  # an event of one of this client's sessions
            if reply["id"] != ident:
                self.foreign += 1
                continue
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            return reply.get("result")

    async def attach(self, target: str) -> None:
        attached = await self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)
        self.session = attached["sessionId"]


@contextlib.asynccontextmanager
async def client(owner: Owner) -> AsyncIterator[Client]:
    async with open_websocket_url(owner.url, extra_headers=owner.headers, max_message_size=MAX_MESSAGE) as ws:
        yield Client(ws)


async def healthy(owner: Owner, page: str) -> bool:
    """A fresh client can attach and evaluate within 10 s."""
    with trio.move_on_after(10):
        async with client(owner) as probe:
            await probe.attach(page)
            result = await probe.call("Runtime.evaluate", {"expression": "6*7", "returnByValue": True})
            return bool(result["result"]["value"] == 42)
    return False


async def settle(owner: Owner, fds: int, seconds: float = 5) -> int:
    """Wait until the owner holds ``fds`` descriptors again; what it holds then."""
    with trio.move_on_after(seconds):
        while owner.fds() > fds:  # noqa: ASYNC110 - /proc has no event to wait on
            await trio.sleep(0.1)
    return owner.fds()


@dataclass
class Sampler:
    owner: Owner
    rss: list[float] = field(default_factory=list)
    fds: list[int] = field(default_factory=list)

    async def run(self) -> None:
        while True:
            self.rss.append(self.owner.rss_mib())
            self.fds.append(self.owner.fds())
            await trio.sleep(1)


async def load(owner: Owner, page: str, minutes: float) -> list[Figure]:
    counts = {"requests": 0, "errors": 0, "wrong": 0, "foreign": 0}
    latencies: list[float] = []
    sampler = Sampler(owner)
    ready = trio.Event()
    joined = 0
    seconds = minutes * 60

    async def one(index: int) -> None:
        nonlocal joined
        async with client(owner) as cdp:
            await cdp.attach(page)
            joined += 1
            if joined == CLIENTS:
                ready.set()
            await ready.wait()
            end = trio.current_time() + seconds
            n = 0
            while trio.current_time() < end:
                n += 1
                expected = f"c{index}:{n}"
                started = time.perf_counter()
                try:
                    result = await cdp.call(
                        "Runtime.evaluate", {"expression": json.dumps(expected), "returnByValue": True}
                    )
                except RuntimeError:
                    counts["errors"] += 1
                    continue
                latencies.append(time.perf_counter() - started)
                counts["requests"] += 1
                if result["result"].get("value") != expected:
                    counts["wrong"] += 1
            counts["foreign"] += cdp.foreign

    fds_before = owner.fds()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sampler.run)
        async with trio.open_nursery() as clients:
            for index in range(CLIENTS):
                clients.start_soon(one, index)
        nursery.cancel_scope.cancel()
    fds_after = await settle(owner, fds_before)
    warm = sampler.rss[min(len(sampler.rss) - 1, max(2, len(sampler.rss) // 10))]
    note = (
        f"RSS {sampler.rss[0]:.0f}→{sampler.rss[-1]:.0f} MiB (max {max(sampler.rss):.0f}); fds max {max(sampler.fds)}"
    )
    return [
        Figure(AREA, f"{CLIENTS} clients × {minutes:g} min: requests", counts["requests"], note=note),
        Figure(AREA, "  requests per second", counts["requests"] / seconds, "/s"),
        Figure(AREA, "  median round trip", statistics.median(latencies) * 1000, "ms"),
        Figure(AREA, "  errors", counts["errors"], bound=0),
        Figure(AREA, "  answers with another client's value or id", counts["wrong"] + counts["foreign"], bound=0),
        Figure(AREA, "  owner RSS growth after warm-up", sampler.rss[-1] - warm, "MiB", bound=16),
        Figure(AREA, "  owner descriptors left over", fds_after - fds_before, bound=0),
    ]


async def reconnect_storm(owner: Owner, page: str, seconds: float) -> list[Figure]:
    fds_before = owner.fds()
    done = 0
    failures = 0
    end = trio.current_time() + seconds

    async def loop() -> None:
        nonlocal done, failures
        while trio.current_time() < end:
            try:
                async with client(owner) as cdp:
                    await cdp.attach(page)
                    await cdp.call("Runtime.evaluate", {"expression": "1"})
                done += 1
            except (RuntimeError, ConnectionClosed, OSError):
                failures += 1

    async with trio.open_nursery() as nursery:
        for _ in range(8):
            nursery.start_soon(loop)
    left = await settle(owner, fds_before) - fds_before
    async with client(owner) as check:
        infos = (await check.call("Target.getTargets", session=False))["targetInfos"]
    attached = sum(1 for info in infos if info["targetId"] == page and info["attached"])
    return [
        Figure(AREA, f"reconnect storm, 8 tasks × {seconds:g} s: connections", done),
        Figure(AREA, "  failed connections", failures, bound=0),
        Figure(AREA, "  owner descriptors left over", left, bound=0),
        Figure(AREA, "  sessions left attached to the page", attached, bound=0),
    ]


async def vanishing(owner: Owner, page: str, times: int) -> list[Figure]:
    fds_before = owner.fds()
    rss_before = owner.rss_mib()
    headers = [("Authorization", f"Bearer {owner.token}")]
    for n in range(times):
        ws = await WsClient.connect(owner.port, "/pix3", headers)
        await ws.send(
            json.dumps({"id": 1, "method": "Target.attachToTarget", "params": {"targetId": page, "flatten": True}})
        )
        session = ""
        with trio.fail_after(10):
            while not session:
                message = json.loads(await ws.receive())
                session = (message.get("result") or {}).get("sessionId", "")
        expression = f"'{n}'.repeat({BIG})"
        request = {
            "id": 2,
            "sessionId": session,
            "method": "Runtime.evaluate",
            "params": {"expression": expression, "returnByValue": True},
        }
        await ws.send(json.dumps(request))
        got = 0
        with trio.fail_after(30):
            while got < 2 * MiB:  # part of the reply, then gone without a word (TCP reset)
                got += len(await ws.stream.receive_some(256 * 1024))
        ws.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        await ws.stream.aclose()
    ok = await healthy(owner, page)
    left = await settle(owner, fds_before) - fds_before
    await trio.sleep(1)
    return [
        Figure(AREA, f"clients reset mid-30 MB reply ×{times}: owner still serves", 0 if ok else 1, bound=0),
        Figure(AREA, "  owner descriptors left over", left, bound=0),
        Figure(AREA, "  owner RSS after vs before", owner.rss_mib() - rss_before, "MiB", bound=64),
    ]


def masked(payload: bytes, opcode: int = 0x1) -> bytes:
    """A client frame with a zero mask (the payload goes as is)."""
    size = len(payload)
    head = (
        struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        if size > 65535
        else struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        if size > 125
        else struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    )
    return head + b"\0\0\0\0" + payload


async def hostile(owner: Owner, page: str) -> list[Figure]:
    token = owner.token
    good = [("Authorization", f"Bearer {token}")]
    wrong: list[str] = []

    async def http_status(request: bytes, expected: int, name: str) -> None:
        status = parse_answer(await raw_exchange(owner.port, request))[0]
        if status != expected:
            wrong.append(f"{name}: {status}")

    await http_status(
        b"GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\n\r\n", 401, "wrong token"
    )
    await http_status(
        f"GET /json/list HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer {token}\r\n\r\n".encode(),
        403,
        "foreign Host",
    )
    await http_status(
        f"GET /json/list HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\nAuthorization: Bearer {token}\r\n\r\n".encode(),
        403,
        "Origin",
    )
    await http_status(upgrade_request("/pix3", [("Authorization", "Bearer nope")]), 401, "WebSocket, wrong token")
    await http_status(b"\x16\x03\x01\x02\x00 not http\r\n\r\n", 400, "TLS hello instead of HTTP")

    async def closes(frames: bytes, expected: int, name: str) -> None:
        ws = await WsClient.connect(owner.port, "/pix3", good)
        async with ws:
            await ws.stream.send_all(frames)
            try:
                with trio.fail_after(10):
                    while True:
                        await ws.receive()
            except Closed as closed:
                if closed.code != expected:
                    wrong.append(f"{name}: closed {closed.code}")

    await closes(struct.pack("!BBQ", 0x81, 0xFF, 300 * MiB) + b"\0\0\0\0" + b"a" * MiB, 1009, "300 MB frame")
    await closes(masked(b'{"id":1,"method":"\xed\xa0\x80"}'), 1007, "text frame with bad UTF-8")
    await closes(b"\xff" * 64, 1002, "garbage instead of frames")

    async def answers(text: bytes, codes: tuple[int, ...], name: str, opcode: int = 0x1) -> None:
        ws = await WsClient.connect(owner.port, "/pix3", good)
        async with ws:
            await ws.stream.send_all(masked(text, opcode))
            with trio.fail_after(30):
                reply = json.loads(await ws.receive())
            if reply.get("error", {}).get("code") not in codes:
                wrong.append(f"{name}: {reply}")

    await answers(b"{not json", (-32700,), "malformed JSON")
    await answers(
        b'{"id":1,"method":"X","params":' + b"[" * 100_000 + b"]" * 100_000 + b"}", (-32700,), "100 000-deep JSON"
    )
    await answers(b"[" * 100_000 + b"]" * 100_000, (-32700, -32600), "100 000-deep array")
    await answers(b'\xff\xfe{"id":1}', (-32700,), "binary frame with bad UTF-8", opcode=0x2)
    await answers(b'{"id":1}', (-32600,), "no method")
    ok = await healthy(owner, page)
    return [
        Figure(AREA, "hostile inputs not answered as documented (of 13)", len(wrong), bound=0, note="; ".join(wrong)),
        Figure(AREA, "  owner serves after them", 0 if ok else 1, bound=0),
    ]


async def idle_and_slowloris(owner: Owner, page: str) -> list[Figure]:
    fds_before = owner.fds()
    held: list[trio.SocketStream] = []
    rounds: list[float] = []
    async with contextlib.AsyncExitStack() as stack, client(owner) as worker:
        await worker.attach(page)
        for _ in range(500):
            held.append(await stack.enter_async_context(await trio.open_tcp_stream("127.0.0.1", owner.port)))
        slow = [await stack.enter_async_context(await trio.open_tcp_stream("127.0.0.1", owner.port)) for _ in range(50)]
        end = trio.current_time() + HEAD_SECONDS + 3
        peak = owner.fds()
        while trio.current_time() < end:
            for stream in slow:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await stream.send_all(b"G")
            started = time.perf_counter()
            await worker.call("Runtime.evaluate", {"expression": "1"})
            rounds.append(time.perf_counter() - started)
            peak = max(peak, owner.fds())
            await trio.sleep(1)
        during = owner.fds() - fds_before
    return [
        Figure(
            AREA,
            "500 idle + 50 slowloris connections: owner fds at peak",
            peak - fds_before,
            note="above its usual count",
        ),
        Figure(AREA, f"  still held {HEAD_SECONDS + 3:g} s later", during, bound=1, note="the working client's own"),
        Figure(AREA, "  working client's worst round trip meanwhile", max(rounds) * 1000, "ms", bound=1000),
    ]


async def emfile(owner: Owner, page: str) -> list[Figure]:
    fds = owner.fds()
    soft, hard = resource.prlimit(owner.pid, resource.RLIMIT_NOFILE)
    resource.prlimit(owner.pid, resource.RLIMIT_NOFILE, (fds + 30, hard))
    socks: list[socket.socket] = []
    try:
        for _ in range(200):
            socks.append(socket.create_connection(("127.0.0.1", owner.port), timeout=5))
        await trio.sleep(1)
        alive_at_limit = owner.alive()
    finally:
        for sock in socks:
            sock.close()
    ok = await healthy(owner, page)  # the backlog drains (the idle ones are closed), then it serves
    resource.prlimit(owner.pid, resource.RLIMIT_NOFILE, (soft, hard))
    log = (owner.home / "chrome-owner.log").read_text()
    return [
        Figure(AREA, "EMFILE (200 connections, 30 descriptors): owner died", 0 if alive_at_limit else 1, bound=0),
        Figure(AREA, "  owner serves once descriptors are free", 0 if ok else 1, bound=0),
        Figure(AREA, "  'cannot accept connections' log lines", log.count("cannot accept connections"), bound=3),
    ]


async def kill_chrome(owner: Owner, page: str) -> list[Figure]:
    codes: list[int] = []

    async def working() -> None:
        async with client(owner) as cdp:
            await cdp.attach(page)
            try:
                while True:
                    await cdp.call("Runtime.evaluate", {"expression": "1"})
            except ConnectionClosed as closed:
                codes.append(closed.reason.code if closed.reason else 1006)

    started = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for _ in range(4):
            nursery.start_soon(working)
        await trio.sleep(1)
        started = time.perf_counter()
        os.kill(owner.chrome_pid, signal.SIGKILL)
        with trio.fail_after(10):
            while owner.alive():  # noqa: ASYNC110 - a process's end has no event here
                await trio.sleep(0.05)
    gone = time.perf_counter() - started
    _reap(owner.pid)
    return [
        Figure(AREA, "Chrome SIGKILLed mid-work: clients not closed 1001", sum(c != 1001 for c in codes), bound=0),
        Figure(AREA, "  owner gone after", gone * 1000, "ms", bound=5000),
        Figure(AREA, "  chrome.json left behind", 1 if (owner.home / "chrome.json").exists() else 0, bound=0),
    ]


async def kill_owner(owner: Owner, page: str) -> list[Figure]:
    async with client(owner) as cdp:
        await cdp.attach(page)
        for _ in range(100):
            await cdp.call("Runtime.evaluate", {"expression": "1"})
        started = time.perf_counter()
        os.kill(owner.pid, signal.SIGKILL)
        _reap(owner.pid)
        with trio.fail_after(10):
            while _running(owner.chrome_pid):  # noqa: ASYNC110 - a process's end has no event here
                await trio.sleep(0.02)
    return [
        Figure(
            AREA,
            "owner SIGKILLed mid-work: Chrome gone after",
            (time.perf_counter() - started) * 1000,
            "ms",
            bound=2000,
        )
    ]


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, whose parent has not reaped it yet, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


async def _new_page(owner: Owner) -> str:
    async with client(owner) as cdp:
        target: str = (await cdp.call("Target.createTarget", {"url": "about:blank"}, session=False))["targetId"]
        return target


async def soak(root: Path, minutes: float) -> list[Figure]:
    figures: list[Figure] = []
    owner = await start(root, "home")
    try:
        page = await _new_page(owner)
        steps: list[Callable[[], Any]] = [
            lambda: load(owner, page, minutes),
            lambda: reconnect_storm(owner, page, max(10.0, minutes * 6)),
            lambda: vanishing(owner, page, 5),
            lambda: hostile(owner, page),
            lambda: idle_and_slowloris(owner, page),
            lambda: trio.to_thread.run_sync(lockout, owner, max(10.0, minutes * 10)),
            lambda: trio.to_thread.run_sync(junk, owner),
            lambda: trio.to_thread.run_sync(fragments, owner),
            lambda: emfile(owner, page),
            lambda: kill_chrome(owner, page),
        ]
        for step in steps:
            figures += await step()
    finally:
        stop(owner)
    owner = await start(root, "home2")
    try:
        figures += await kill_owner(owner, await _new_page(owner))
    finally:
        stop(owner)
    return figures


def run(minutes: float) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="pix3-soak-proxy-") as root:
        return trio.run(soak, Path(root), minutes)
