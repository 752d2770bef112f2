"""Dev server: module fetches through our port vs Vite directly; flush round trip with one tab.

Both module rows come from one server in one run: Vite's private port (read from its argv) is
the physical limit, our port adds the proxy. Requests are sequential on one keep-alive
connection (http.client), so the client's own cost is as small as it gets on both sides.
"""

from __future__ import annotations

import http.client
import json
import statistics
import tempfile
import time
from pathlib import Path

import trio

from tests.bench._report import Absolute, Result
from tests.support.devserver import dev_server, fake_tab, hello
from tests.support.node import node_modules_dir
from tests.support.projects import make_project

MODULES = 300
ROUNDS = 5
FLUSHES = 200


def _project(root: Path) -> Path:
    files = {
        f"src/m{i:03d}.js": f"export const value{i} = {i};\nexport default function f{i}() {{ return value{i} * 2; }}\n"
        for i in range(MODULES)
    }
    files["index.html"] = '<!doctype html><script type="module" src="/src/m000.js"></script>\n'
    make_project(root, files)
    (root / "node_modules").symlink_to(node_modules_dir())
    return root


def _fetch_all(port: int) -> float:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.perf_counter()
    for i in range(MODULES):
        connection.request("GET", f"/src/m{i:03d}.js", headers={"Host": f"localhost:{port}"})
        response = connection.getresponse()
        body = response.read()
        if response.status != 200 or b"export const value" not in body:
            raise AssertionError(f"module {i}: HTTP {response.status}")
    elapsed = time.perf_counter() - start
    connection.close()
    return elapsed * 1000


def _modules(tmp: Path) -> Result:
    with dev_server(_project(tmp / "modules"), wait_vite=True) as server:
        pid = hello(server)["vite"]["pid"]
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        vite_port = int(argv[argv.index(b"--port") + 1])
        _fetch_all(vite_port)  # Vite transforms each module once; every later fetch is served from its cache
        _fetch_all(server.port)
        ours, direct = [], []
        for _ in range(ROUNDS):
            direct.append(_fetch_all(vite_port))
            ours.append(_fetch_all(server.port))
    return Result(
        "devserver",
        f"{MODULES} module fetches, ours vs Vite directly (total)",
        statistics.median(ours),
        statistics.median(direct),
        1.3,
    )


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
        modules,
        Absolute("devserver", "flush round trip, one tab, nothing dirty (median)", statistics.median(flush), 20.0),
    ]
