"""Dev server: module fetches through our port vs Vite directly; flush round trip with one tab.

Both module rows come from one server in one run: Vite's private port (read from its argv) is
the physical limit, our port adds the splice. Requests are sequential on one keep-alive
connection per side (http.client), so the client's own cost is as small as it gets on both
sides. Each round fetches the 300 modules through both ports, one side after the other, which
side goes first alternating from round to round; the row is the median of each side's totals.

The same rounds also fetch through a bare relay (a process that copies bytes each way and parses
nothing): the row's note gives its ratio, the floor of any relay in front of Vite on the machine
that runs the bench (docs/devserver.md "Shape").

A second row is what a person sees: a page whose script imports the same 300 modules, loaded in
headless Chromium (cache off, so every module is fetched) from our port and from Vite's, taking
turns; from navigation start to the mark the page sets once every import ran. The browser fetches
over several connections at once, as it does for any Vite app.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from tests.bench._report import Absolute, Result
from tests.support.devserver import dev_server, fake_tab, hello
from tests.support.devtools import chromium_with_port, open_page
from tests.support.node import node_modules_dir
from tests.support.projects import make_project

MODULES = 300
ROUNDS = 9
PAGE_ROUNDS = 9
FLUSHES = 200


def _project(root: Path) -> Path:
    files = {
        f"src/m{i:03d}.js": f"export const value{i} = {i};\nexport default function f{i}() {{ return value{i} * 2; }}\n"
        for i in range(MODULES)
    }
    files["index.html"] = '<!doctype html><script type="module" src="/src/m000.js"></script>\n'
    imports = "".join(f'import f{i} from "./m{i:03d}.js";\n' for i in range(MODULES))
    total = " + ".join(f"f{i}()" for i in range(MODULES))
    files["src/app.js"] = f"{imports}window.__total = {total};\nperformance.mark('pix3:imported');\n"
    files["app.html"] = '<!doctype html><script type="module" src="/src/app.js"></script>\n'
    make_project(root, files)
    (root / "node_modules").symlink_to(node_modules_dir())
    return root


# One thread per connection, blocking sockets, TCP_NODELAY, recv then sendall each way in turn:
# the least a Python relay does (it assumes a request and an answer each arrive in one read).
_BARE_RELAY = """
import socket, sys, threading
def serve(client):
    vite = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    for s in (client, vite):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    with client, vite:
        while (data := client.recv(65536)):
            vite.sendall(data)
            if not (data := vite.recv(65536)):
                break
            client.sendall(data)
listener = socket.create_server(("127.0.0.1", 0))
print(listener.getsockname()[1], flush=True)
while True:
    threading.Thread(target=serve, args=(listener.accept()[0],), daemon=True).start()
"""


def _fetch(connection: http.client.HTTPConnection, port: int, i: int) -> float:
    start = time.perf_counter()
    connection.request("GET", f"/src/m{i:03d}.js", headers={"Host": f"localhost:{port}"})
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - start
    if response.status != 200 or b"export const value" not in body:
        raise AssertionError(f"module {i} on port {port}: HTTP {response.status}")
    return elapsed


def _fetch_all(port: int) -> float:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        return sum(_fetch(connection, port, i) for i in range(MODULES)) * 1000
    finally:
        connection.close()


def _round(ports: list[int], first: int) -> list[float]:
    """One round: total ms of the same 300 fetches through each port, one side right after the
    other, starting with ``ports[first]``. Each side runs its fetches back to back, as a page load
    does (taking turns request by request would leave the splice's thread cold before every
    request, which no browser does)."""
    totals = [0.0] * len(ports)
    for n in range(len(ports)):
        side = (first + n) % len(ports)
        totals[side] = _fetch_all(ports[side])
    return totals


async def _page_loads(devtools: int, ports: list[int]) -> list[list[float]]:
    """Per port, ms from navigation start to the page's ``pix3:imported`` mark, one load per round."""
    loads: list[list[float]] = [[] for _ in ports]
    async with trio.open_nursery() as nursery:
        async with open_page(devtools, "about:blank", nursery) as page:
            await page.call("Network.enable")
            await page.call("Network.setCacheDisabled", {"cacheDisabled": True})
            for n in range(PAGE_ROUNDS + 1):  # the first round warms both sides and is dropped
                for k in range(len(ports)):
                    side = (n + k) % len(ports)
                    await page.call("Page.navigate", {"url": f"http://127.0.0.1:{ports[side]}/app.html"})
                    mark = "performance.getEntriesByName('pix3:imported')"
                    await page.wait_for(f"{mark}.length > 0 && window.__total === {MODULES * (MODULES - 1)}")
                    if n:
                        loads[side].append(await page.evaluate(f"{mark}[0].startTime"))
        nursery.cancel_scope.cancel()
    return loads


def _modules(tmp: Path) -> list[Result]:
    with dev_server(_project(tmp / "modules"), wait_vite=True) as server:
        pid = hello(server)["vite"]["pid"]
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        vite_port = int(argv[argv.index(b"--port") + 1])
        bare = subprocess.Popen([sys.executable, "-c", _BARE_RELAY, str(vite_port)], stdout=subprocess.PIPE)
        try:
            assert bare.stdout is not None
            ports = [server.port, vite_port, int(bare.stdout.readline())]
            for port in ports:  # Vite transforms each module once; every later fetch is served from its cache
                _fetch_all(port)
            rounds = [_round(ports, first=n % len(ports)) for n in range(ROUNDS)]
        finally:
            bare.kill()
            bare.wait()
        with chromium_with_port(_chromium(), tmp / "profile") as devtools:
            page_ours, page_vite = trio.run(_page_loads, devtools, [server.port, vite_port])
    ours, vite, relay = (statistics.median(r[side] for r in rounds) for side in range(3))
    return [
        Result(
            "devserver",
            f"{MODULES} module fetches, ours vs Vite directly (total)",
            ours,
            vite,
            1.15,
            note=f"median of {ROUNDS} rounds, sides taking turns; a bare relay {relay / vite:.2f}x",
        ),
        Result(
            "devserver",
            f"a page importing {MODULES} modules in Chromium, ours vs Vite",
            statistics.median(page_ours),
            statistics.median(page_vite),
            1.15,
            note=f"navigation to the last import, cache off; median of {PAGE_ROUNDS} loads each",
        ),
    ]


def _chromium() -> str:
    path = os.environ.get("PIX3_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError("Chromium is missing: apt-get install -y chromium (or set PIX3_CHROME)")
    return path


async def _flush_round_trips(tmp: Path) -> list[float]:
    import httpx

    samples: list[float] = []
    with dev_server(make_project(tmp / "flush")) as server:
        async with trio.open_nursery() as nursery, fake_tab(server, "tab-a", nursery):
            async with httpx.AsyncClient(base_url=server.url, headers={"X-Pix3": "1"}) as client:
                claim = await client.post("/__pix3/api/handover/claim", json={"writerId": "tab-a"})
                assert claim.status_code == 200
                for _ in range(FLUSHES):
                    start = time.perf_counter()
                    reply = await client.post("/__pix3/api/flush", content=b"{}")
                    samples.append((time.perf_counter() - start) * 1000)
                    assert json.loads(reply.content)["flushed"] is True
            nursery.cancel_scope.cancel()
    return samples


def run() -> list[Result | Absolute]:
    with tempfile.TemporaryDirectory(prefix="pix3-bench-dev-") as folder:
        tmp = Path(folder)
        modules = _modules(tmp)
        flush = trio.run(_flush_round_trips, tmp)
    return [
        *modules,
        Absolute("devserver", "flush round trip, one tab, nothing dirty (median)", statistics.median(flush), 20.0),
    ]
