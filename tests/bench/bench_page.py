"""The editor page in real Chromium against the real dev server.

- `pix3_scene` of a 2 000-node scene through the inline path (window.__PIX3_DEBUG__.call) vs the
  dev server's scene route answering alone (the same fetch and JSON parse, no shaping); both
  timed inside the page, interleaved, medians: the ratio is what the page's shaping adds.
- Editor page load to "connected" on a warm dev server: navigation start to the page's
  `pix3:connected` mark (the socket's welcome), median of reloads.
- `pix3_game_run {until: [{kind: "frames", n: 60}]}` on the fixture game vs 60 bare animation
  frames of the editor page (the same renderer's frame clock), timed inside the page,
  interleaved, medians: what watching and judging the game adds to the frames themselves.
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
RUN_FRAMES = 60
RUN_ROUNDS = 7
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

GAME_RUN = """(async () => {
  const call = window.__PIX3_DEBUG__.call;
  const started = await call("pix3_play", {action: "start"});
  if (!started.ok || !started.loaded) throw new Error(JSON.stringify(started).slice(0, 300));
  const frames = (n) => new Promise((done) => {
    let seen = 0;
    const tick = () => (++seen >= n ? done(seen) : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  });
  const run = {until: [{kind: "frames", n: %(frames)d}], pauseOnOutcome: false};
  await call("pix3_game_run", run);  // warm
  const bare = [], ours = [];
  for (let i = 0; i < %(rounds)d; i += 1) {
    let t = performance.now();
    await frames(%(frames)d);
    bare.push(performance.now() - t);
    t = performance.now();
    const answer = await call("pix3_game_run", run);
    ours.push(performance.now() - t);
    if (!answer.ok || answer.outcome.kind !== "until") throw new Error(JSON.stringify(answer).slice(0, 300));
  }
  await call("pix3_play", {action: "stop"});
  return {bare, ours};
})()"""


def _chromium() -> str:
    path = os.environ.get("PIX3_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError("Chromium is missing: apt-get install -y chromium (or set PIX3_CHROME)")
    return path


Timed = dict[str, list[float]]


async def _measure(devtools: int, url: str) -> Timed:
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
            run = await page.evaluate(GAME_RUN % {"frames": RUN_FRAMES, "rounds": RUN_ROUNDS})
        nursery.cancel_scope.cancel()
    return {**timed, "loads": loads, **run}


def run() -> list[Result | Absolute]:
    with tempfile.TemporaryDirectory(prefix="pix3-bench-page-") as folder:
        tmp = Path(folder)
        root = make_game_project(tmp / "game")
        (root / BIG).write_text(big_scene(2000))
        with dev_server(root) as server, chromium_with_port(_chromium(), tmp / "profile") as devtools:
            timed = trio.run(_measure, devtools, server.record()["editorUrl"])
    route, inline, loads = timed["route"], timed["inline"], timed["loads"]
    return [
        Result(
            "page",
            "pix3_scene, 2 000 nodes: inline call vs the scene route alone",
            statistics.median(inline),
            statistics.median(route),
            2.0,
        ),
        Absolute("page", "editor page load to connected, warm dev server (median)", statistics.median(loads), 300.0),
        Result(
            "page",
            f"pix3_game_run {RUN_FRAMES} frames vs {RUN_FRAMES} bare animation frames",
            statistics.median(timed["ours"]),
            statistics.median(timed["bare"]),
            1.2,
        ),
    ]
