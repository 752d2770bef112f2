"""The editor page in real Chromium against the real dev server.

- `pix3_scene` of a 2 000-node scene through the inline path (window.__PIX3_DEBUG__.call) vs the
  dev server's scene route answering alone (the same fetch and JSON parse, no shaping); both
  timed inside the page, interleaved, medians: the ratio is what the page's shaping adds.
- Editor page load to "connected" on a warm dev server: navigation start to the page's
  `pix3:connected` mark (the socket's welcome), median of reloads.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path

import trio

from tests.bench._report import Absolute, Result
from tests.support.devserver import dev_server
from tests.support.devtools import chromium_with_port, open_page
from tests.support.editor_page import big_scene, make_game_project

ROUNDS = 15
RELOADS = 12
BIG = "scenes/big.pix3scene"
ROUTE = f"/__pix3/api/scene?path={BIG}&saved=1"

TIMED = """(async () => {
  const route = [], inline = [];
  for (let i = 0; i < %(rounds)d; i += 1) {
    let t = performance.now();
    const body = await fetch(%(route)s).then((r) => r.json());
    route.push(performance.now() - t);
    t = performance.now();
    const answer = await window.__PIX3_DEBUG__.call("pix3_scene", {path: %(path)s, maxDepth: 8});
    inline.push(performance.now() - t);
    if (!answer.ok || body.nodes.length !== 1) throw new Error(JSON.stringify(answer).slice(0, 300));
  }
  return {route, inline};
})()"""


def _chromium() -> str:
    path = os.environ.get("PIX3_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError("Chromium is missing: apt-get install -y chromium (or set PIX3_CHROME)")
    return path


async def _measure(devtools: int, url: str) -> tuple[list[float], list[float], list[float]]:
    async with trio.open_nursery() as nursery:
        async with open_page(devtools, url, nursery) as page:
            await page.wait_for("performance.getEntriesByName('pix3:connected').length > 0")
            await page.evaluate(TIMED % {"rounds": 2, "route": json.dumps(ROUTE), "path": json.dumps(BIG)})  # warm
            timed = await page.evaluate(TIMED % {"rounds": ROUNDS, "route": json.dumps(ROUTE), "path": json.dumps(BIG)})
            loads: list[float] = []
            for _ in range(RELOADS):
                await page.call("Page.reload")
                await page.wait_for("performance.getEntriesByName('pix3:connected').length > 0")
                loads.append(await page.evaluate("performance.getEntriesByName('pix3:connected')[0].startTime"))
        nursery.cancel_scope.cancel()
    return timed["route"], timed["inline"], loads


def run() -> list[Result | Absolute]:
    with tempfile.TemporaryDirectory(prefix="pix3-bench-page-") as folder:
        tmp = Path(folder)
        root = make_game_project(tmp / "game")
        (root / BIG).write_text(big_scene(2000))
        with dev_server(root) as server, chromium_with_port(_chromium(), tmp / "profile") as devtools:
            route, inline, loads = trio.run(_measure, devtools, server.record()["editorUrl"])
    return [
        Result(
            "page",
            "pix3_scene, 2 000 nodes: inline call vs the scene route alone",
            statistics.median(inline),
            statistics.median(route),
            2.0,
        ),
        Absolute("page", "editor page load to connected, warm dev server (median)", statistics.median(loads), 300.0),
    ]
