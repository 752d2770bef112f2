"""The CDP proxy against Chrome's own DevTools port, side by side in one run.

Two Chromiums of the same build with the same flags: one owned by `pix3 __chrome-owner` (started
with `start_owner`, as `pix3 editor` does) behind the token proxy, one started directly with
``--remote-debugging-port``. Both are driven by the same small trio-websocket CDP client, so the
client's cost is equal on both sides; every row is a median.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import trio
from trio_websocket import WebSocketConnection, open_websocket_url

from pix3net.daemon.chromerecord import read_record
from pix3net.owner.chrome.launch import COMMON_FLAGS, needs_no_sandbox
from pix3net.owner.control import start_owner
from tests.bench._report import Result
from tests.support.ports import free_port

AREA = "cdp"
# Targets of the issue "Performance to the limit": the proxy's hop may add 30 % to a small round
# trip, and a 30 MB result must not be slower through the proxy than from Chrome's own port.
ROUND_TRIP_TARGET = 1.3
# 16 paced clients at once: the proxy's hop may add as much to the worst client as it adds to a
# single round trip (the crowd's own queueing is Chrome's and the kernel's, on both sides).
CROWD_TARGET = 1.3
BIG_TARGET = 1.0
ROUND_TRIPS = 5000
BLOCK = 500  # direct and proxy alternate in blocks, so drift on this shared machine hits both
BIG_BYTES = 30 * 1024 * 1024
BIG_RUNS = 9  # alternating sides; Chrome building the string dominates, so the median needs runs
CLIENTS = 16
PACED_CALLS = 150
PACE_SECONDS = 0.01
CROWD_REPEATS = 3
STALLED_BIG_REPLIES = 4
QUIET = ("--disable-background-networking", "--disable-component-update", "--disable-sync")
MAX_MESSAGE = 512 * 1024 * 1024
_ID = re.compile(rb'"id":(\d+)')


def _chromium() -> str:
    path = os.environ.get("PIX3_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError("Chromium is missing: apt-get install -y chromium (or set PIX3_CHROME)")
    return path


class Cdp:
    """A sequential CDP client: one call in flight, events skipped, big replies not parsed."""

    def __init__(self, ws: WebSocketConnection) -> None:
        self.ws = ws
        self.next_id = 1
        self.session: str | None = None
        self.target_id = ""

    async def call(self, method: str, params: dict[str, Any] | None = None, *, session: bool = True) -> Any:
        ident = self.next_id
        self.next_id += 1
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        await self.ws.send_message(json.dumps(message))
        while True:
            raw = await self.ws.get_message()
            data = raw.encode() if isinstance(raw, str) else raw
            if len(data) > 1 << 20:  # a big reply: find its id without parsing 30 MB
                found = _ID.search(data[:200]) or _ID.search(data[-200:])
                if found and int(found.group(1)) == ident:
                    return len(data)
                continue
            reply = json.loads(data)
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result")

    async def open_page(self) -> None:
        target = await self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        await self.attach(target["targetId"])

    async def new_target(self) -> str:
        target = await self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        target_id: str = target["targetId"]
        return target_id

    async def attach(self, target_id: str) -> None:
        attached = await self.call("Target.attachToTarget", {"targetId": target_id, "flatten": True}, session=False)
        self.target_id = target_id
        self.session = attached["sessionId"]

    async def round_trip(self) -> float:
        start = time.perf_counter()
        await self.call("Runtime.evaluate", {"expression": "1"})
        return time.perf_counter() - start


@contextlib.asynccontextmanager
async def connect(url: str, headers: list[tuple[bytes, bytes]]) -> AsyncIterator[Cdp]:
    async with open_websocket_url(url, extra_headers=headers, max_message_size=MAX_MESSAGE) as ws:
        yield Cdp(ws)


@contextlib.contextmanager
def _direct_chrome(root: Path) -> Iterator[str]:
    port = free_port()
    args = [
        _chromium(),
        *QUIET,
        f"--user-data-dir={root / 'direct-profile'}",
        f"--remote-debugging-port={port}",
        *COMMON_FLAGS,
        *(["--no-sandbox"] if needs_no_sandbox() else []),
        "--headless=new",
        "about:blank",
    ]
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                url: str = httpx.get(f"http://127.0.0.1:{port}/json/version").json()["webSocketDebuggerUrl"]
                break
            except (httpx.HTTPError, ValueError, KeyError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url
    finally:
        process.kill()
        process.wait()


@contextlib.contextmanager
def _owned_chrome(root: Path) -> Iterator[tuple[str, list[tuple[bytes, bytes]], int]]:
    home = root / "pix3-home"
    wrapper = root / "chromium-quiet"
    wrapper.write_text(f'#!/bin/sh\nexec {_chromium()} {" ".join(QUIET)} "$@"\n')
    wrapper.chmod(0o755)
    port = free_port()
    started = trio.run(
        lambda: start_owner(
            home, chrome=str(wrapper), port=port, profile=str(home / "chrome"), url="about:blank", headless=True
        )
    )
    try:
        token = (home / "cdp-token").read_text().strip()
        yield f"ws://127.0.0.1:{port}/pix3", [(b"Authorization", f"Bearer {token}".encode())], started.pid
    finally:
        record = read_record(home)
        with contextlib.suppress(OSError):
            os.kill(started.pid, signal.SIGKILL)
        if record is not None and record.chrome_pid:
            with contextlib.suppress(OSError):
                os.kill(record.chrome_pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(started.pid, 0)


def _rss_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for {pid}")


async def _rss_grown(pid: int, kib: float, *, seconds: float) -> None:
    """Poll /proc (there is no event to wait on) until the process's RSS reaches ``kib`` and then
    stays within 1 MiB for a second: the replies are all in and nothing is being read any more."""
    last, steady = 0, 0
    for _ in range(int(seconds / 0.1)):
        now = _rss_kib(pid, "VmRSS")
        steady = steady + 1 if now >= kib and abs(now - last) < 1024 else 0
        if steady >= 10:
            return
        last = now
        await trio.sleep(0.1)


def _reset_peak(pid: int) -> None:
    """Reset a process's peak RSS (VmHWM) to its current RSS (Linux ≥ 4.0, our own process)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def _ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def _measure(direct_url: str, proxy_url: str, headers: list[tuple[bytes, bytes]], owner_pid: int) -> list[Result]:
    rows: list[Result] = []
    async with connect(direct_url, []) as direct, connect(proxy_url, headers) as proxy:
        await direct.open_page()
        await proxy.open_page()
        for client in (direct, proxy):  # warm up
            for _ in range(200):
                await client.round_trip()
        times: dict[str, list[float]] = {"direct": [], "proxy": []}
        for _ in range(ROUND_TRIPS // BLOCK):
            for name, client in (("direct", direct), ("proxy", proxy)):
                for _ in range(BLOCK):
                    times[name].append(await client.round_trip())
        rows.append(
            Result(
                AREA,
                f'Runtime.evaluate("1") round trip, {ROUND_TRIPS}× median (proxy vs direct)',
                _ms(times["proxy"]),
                _ms(times["direct"]),
                ROUND_TRIP_TARGET,
            )
        )

        expression = f"'x'.repeat({BIG_BYTES})"
        big: dict[str, list[float]] = {"direct": [], "proxy": []}
        idle = _rss_kib(owner_pid, "VmRSS")
        _reset_peak(owner_pid)
        size = 0
        for run in range(BIG_RUNS + 1):
            for name, client in (("direct", direct), ("proxy", proxy)):
                start = time.perf_counter()
                size = await client.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
                if run:  # the first run of each side warms up
                    big[name].append(time.perf_counter() - start)
        peak = _rss_kib(owner_pid, "VmHWM")
        mb = size / 1e6
        rows.append(
            Result(
                AREA,
                f"{mb:.0f} MB Runtime.evaluate result (proxy vs direct)",
                _ms(big["proxy"]),
                _ms(big["direct"]),
                BIG_TARGET,
            )
        )
        rows.append(
            Result(
                AREA,
                f"proxy peak RSS above idle vs one {mb:.0f} MB message",
                (peak - idle) / 1024 * 1.048576,
                mb,
                3.0,
                "MB",
                f"idle {idle / 1024:.0f} MiB",
            )
        )

        # The crowd: paced clients, each with its own session on one fresh page per side (16
        # renderers would measure this 2-core machine's scheduler, not the proxy). Sides alternate
        # and each figure is the median of CROWD_REPEATS runs: the machine is shared and noisy.
        direct_page = await direct.new_target()
        proxy_page = await proxy.new_target()
        runs: dict[str, list[float]] = {"direct1": [], "proxy1": [], "direct16": [], "proxy16": []}
        for _ in range(CROWD_REPEATS):
            for side, url, hdrs, page in (
                ("direct", direct_url, [], direct_page),
                ("proxy", proxy_url, headers, proxy_page),
            ):
                runs[f"{side}1"].append((await _paced_clients(url, hdrs, 1, page))[0])
                runs[f"{side}16"].append(max(await _paced_clients(url, hdrs, CLIENTS, page)))
        med = {key: statistics.median(values) for key, values in runs.items()}
        # The physical limit of a crowd is the same crowd on Chrome's own port: 16 clients on a
        # 2-core machine queue behind each other in Chrome and the kernel whatever the proxy does
        # (direct Chrome alone goes from 1 to 16 clients at 2.0-4.4x here). The row used to
        # compare proxy-16 with proxy-1 (target 2.0x); both of those ratios stay in the note.
        crowd_note = (
            f"16 vs 1 client: proxy {med['proxy16'] / med['proxy1']:.2f}x"
            f" ({med['proxy16']:.2f} vs {med['proxy1']:.2f} ms),"
            f" direct {med['direct16'] / med['direct1']:.2f}x ({med['direct16']:.2f} vs {med['direct1']:.2f} ms)"
        )
        rows.append(
            Result(
                AREA,
                f"{CLIENTS} clients at once: worst client median, proxy vs direct",
                med["proxy16"],
                med["direct16"],
                CROWD_TARGET,
                note=crowd_note,
            )
        )
        single = [med["proxy1"]]
        async with connect(proxy_url, headers) as stalled:
            await stalled.open_page()
            before = _rss_kib(owner_pid, "VmRSS")
            for n in range(STALLED_BIG_REPLIES):
                message = {
                    "id": 10_000 + n,
                    "method": "Runtime.evaluate",
                    "sessionId": stalled.session,
                    "params": {"expression": f"'y'.repeat({BIG_BYTES})", "returnByValue": True},
                }
                await stalled.ws.send_message(json.dumps(message))
            # Wait until Chrome has produced the replies and the owner holds them for a client
            # that reads nothing: the crowd then measures the stall, not Chrome's work.
            await _rss_grown(owner_pid, before + STALLED_BIG_REPLIES * BIG_BYTES * 0.9 / 1024, seconds=30)
            await trio.sleep(0.5)
            # "Their unloaded value" (issue 2) is the same crowd without the stalled client: the
            # crowd's own cost is the row above. Median over as many runs as that row had.
            stalled_runs = [
                max(await _paced_clients(proxy_url, headers, CLIENTS, proxy_page)) for _ in range(CROWD_REPEATS)
            ]
            with_stall = statistics.median(stalled_runs)
            rss = _rss_kib(owner_pid, "VmRSS") / 1024
            rows.append(
                Result(
                    AREA,
                    f"{CLIENTS} clients, 1 stalled ({STALLED_BIG_REPLIES}x30 MB unread) vs same {CLIENTS} without it",
                    with_stall,
                    med["proxy16"],
                    2.0,
                    note=f"vs one client alone: {with_stall / single[0]:.2f}x; owner RSS {rss:.0f} MiB while stalled",
                )
            )
    return rows


async def _paced_clients(url: str, headers: list[tuple[bytes, bytes]], count: int, target_id: str) -> list[float]:
    """``count`` clients, one ``Runtime.evaluate("1")`` every 10 ms each, phases spread; their medians (ms)."""
    medians: list[float] = [0.0] * count
    ready = trio.Event()
    opened = 0

    async def client(index: int) -> None:
        nonlocal opened
        async with connect(url, headers) as cdp:
            await cdp.attach(target_id)
            for _ in range(20):
                await cdp.round_trip()
            opened += 1
            if opened == count:
                ready.set()
            await ready.wait()
            await trio.sleep(PACE_SECONDS * index / count)
            samples = []
            for _ in range(PACED_CALLS):
                samples.append(await cdp.round_trip())
                await trio.sleep(PACE_SECONDS)
            medians[index] = _ms(samples)

    async with trio.open_nursery() as nursery:
        for index in range(count):
            nursery.start_soon(client, index)
    return medians


def run() -> list[Result]:
    root = Path(tempfile.mkdtemp(prefix="pix3-bench-cdp-"))
    try:
        with _direct_chrome(root) as direct_url, _owned_chrome(root) as (proxy_url, headers, owner_pid):
            return trio.run(_measure, direct_url, proxy_url, headers, owner_pid)
    finally:
        shutil.rmtree(root, ignore_errors=True)
