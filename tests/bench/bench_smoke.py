"""`pix3 smoke` (a clean 120-frame run, whole process) against what the browser itself needs.

The limit is measured in the same Chrome by a bare CDP script: open the game page, wait for its
`load`, then 120 animation frames (the page load + 2 s of frames). Warm: `pix3 smoke` reuses the
headless owner `pix3 editor --headless` started (its dev server live, the editor tab open, so the
flush is asked too). Cold: no owner, so `pix3 smoke` launches its private Chrome; its limit adds
a bare Chrome start (spawn over the pipe until `Browser.getVersion` answers). Samples of ours and
of the limit are interleaved; medians.

`pix3 smoke` runs with the environment a user has: no `TMPDIR`, so its private Chrome's profile
goes to `/dev/shm` (docs/smoke.md, "The browser"). The bare Chrome start keeps its profile in the
bench's scratch folder on disk, as before (on this machine that makes no measurable difference to
the time until `Browser.getVersion` answers: the profile's databases are written after it).

The note splits our median run into the scene itself (the report's `timingsMs.total`: page
opened to report) and everything around it (Python's start and imports, the owner or Chrome,
the flush, the page made ready ahead, the teardown), against the bare numbers. These two rows run
`--real-time`: Chrome's own frames, as the bare script does.

At scale (docs/smoke.md, "Workers and shards", "Faster than real time"), on the warm owner:

- one 120-frame scene in the default mode (virtual time): the scene's own time, page opened to
  report, load included (median `timingsMs.total`), against its frames' real time (2 s); ≤ 0.5×;
- 16 scenes (10 clean, 6 of the other fixture games) as one `--all` set, `--workers 4` against
  `--workers 1`, in the default mode (virtual time) and with `--real-time`. The runs alternate
  after one unmeasured run (Chrome's caches), medians of ``SET_ROUNDS``; every run must give the
  same verdicts, scene by scene, or the bench fails.

The workers' physical limit is the cores. Each run's CPU (user + system of the smoke process,
the owner, its Chrome with every renderer that came and went, the dev server; tests/bench/_cpu.py)
says how many cores one worker already keeps busy; side by side, 4 workers can be at most
``cores × wall / CPU`` times faster (and at most 4×). On Chrome's own clock a scene mostly waits
for its frames, one worker uses well under a core, and the target stays the issue's 1.8×. Under
virtual time a scene does not wait: one worker measured 160–199 % of one core here, so 4 on 2
cores cannot reach 1.8× (docs/smoke.md, "Why workers do not speed up virtual time"); that row's
target is 1.8× or ``LIMIT_SHARE`` of the limit measured in the same run, whichever is lower. Both
rows print one worker's CPU and the limit.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from pix3net.clients.cdptrio import WsClient
from pix3net.owner.chrome.launch import chrome_args, needs_no_sandbox, spawn_chrome
from pix3net.owner.process import wait_ready
from tests.bench._cpu import cores_limit, snapshot, speedup_target, ticks_per_second, usable_cores
from tests.bench._report import Absolute, Result, pix3_env
from tests.support.ports import free_port
from tests.support.smoke import GAMES, make_game

QUIET = "--disable-background-networking --disable-component-update --disable-sync"
FRAMES = 120
REPEAT = 5
SCENE = "scenes/clean.pix3scene"
SET_ROUNDS = 2
SPEEDUP = 1.8  # the target for 4 workers over 1 on this 2-core machine
# Under virtual time the target is this share of the cores' limit when that is lower (the house's
# targets are ratios to the physical limit); the rest is room for 4 contexts' own overhead
# (16 scenes under virtual time took 39 s of CPU on 4 workers, 31 s on 1) and a shared machine's noise.
LIMIT_SHARE = 0.85
VIRTUAL_SHARE = 0.5  # a scene's wall time against its frames' real time
OTHERS = ("throws", "promises", "missing", "snapshot_throws", "big_snapshot", "forever")
SET_GAMES = {
    "clean": GAMES["clean"],
    **{f"clean{i}": GAMES["clean"] for i in range(1, 10)},
    **{n: GAMES[n] for n in OTHERS},
}
PAGE_FRAMES = (
    "new Promise((done) => { let n = 0; const f = () => (++n >= %d ? done(n) : requestAnimationFrame(f));"
    " requestAnimationFrame(f); })"
)


class _Cdp:
    def __init__(self, ws: WsClient) -> None:
        self.ws = ws
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    async def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        await self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(await self.ws.receive())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    async def wait_event(self, method: str) -> None:
        while not any(e.get("method") == method for e in self.events):
            self.events.append(json.loads(await self.ws.receive()))


async def _bare_page_ms(port: int, token: str, url: str) -> float:
    """Navigate → `load` → 120 animation frames, in a fresh context of the owner's Chrome."""
    async with await WsClient.connect(port, "/pix3", [("Authorization", f"Bearer {token}")]) as ws:
        cdp = _Cdp(ws)
        context = (await cdp.call("Target.createBrowserContext", {"disposeOnDetach": True}))["browserContextId"]
        target = (await cdp.call("Target.createTarget", {"url": "about:blank", "browserContextId": context}))[
            "targetId"
        ]
        session = (await cdp.call("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
        await cdp.call("Page.enable", {}, session)
        cdp.events.clear()
        start = time.perf_counter()
        await cdp.call("Page.navigate", {"url": url}, session)
        await cdp.wait_event("Page.loadEventFired")
        await cdp.call(
            "Runtime.evaluate",
            {"expression": PAGE_FRAMES % FRAMES, "awaitPromise": True, "returnByValue": True},
            session,
        )
        elapsed = time.perf_counter() - start
        await cdp.call("Target.disposeBrowserContext", {"browserContextId": context})
    return elapsed * 1000


async def _bare_chrome_start_ms(chromium: str, scratch: Path) -> float:
    """Spawn Chrome over the pipe (the owner's launch) until it answers `Browser.getVersion`."""
    profile = tempfile.mkdtemp(prefix="bare-", dir=scratch)
    args = chrome_args(profile, "about:blank", headless=True, no_sandbox=needs_no_sandbox(), extra=QUIET.split())
    start = time.perf_counter()
    chrome = spawn_chrome(chromium, args)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(chrome.reap)
        nursery.start_soon(chrome.pump_stderr)
        product, why = await wait_ready(chrome)
        elapsed = time.perf_counter() - start
        chrome.kill()
        await chrome.exited.wait()
        nursery.cancel_scope.cancel()
    if product is None:
        raise RuntimeError(f"bare Chrome did not start: {why}")
    return elapsed * 1000


def _smoke_ms(argv: list[str], project: Path, env: dict[str, str], scenes: list[float] | None = None) -> float:
    """Wall time of one `pix3 smoke` process; the scene's own `timingsMs.total` goes to ``scenes``."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False)
    elapsed = time.perf_counter() - start
    report = json.loads(done.stdout) if done.stdout.strip() else None
    if done.returncode != 0 or not report or report.get("frames") != FRAMES:
        raise RuntimeError(f"pix3 smoke did not run cleanly ({done.returncode}):\n{done.stdout}{done.stderr}")
    if scenes is not None:
        scenes.append(float(report["timingsMs"]["total"]))
    return elapsed * 1000


def _verdicts(report: dict[str, Any]) -> list[tuple[str, Any, Any, Any]]:
    """Scene by scene: ok, the error codes and the warning codes (or the code it could not run with)."""
    out = []
    for run in report["runs"]:
        if "code" in run:
            out.append((run["scene"], False, run["code"], ()))
        else:
            codes = tuple(sorted(e["code"] for e in run["errors"]))
            out.append((run["scene"], run["ok"], codes, tuple(sorted(w["code"] for w in run["warnings"]))))
    return out


def _set_run(
    argv: list[str], project: Path, env: dict[str, str], roots: list[int]
) -> tuple[float, float, list[tuple[str, Any, Any, Any]]]:
    """Wall ms and CPU s of one `pix3 smoke --all` process over the 16 scenes, and its verdicts.

    The CPU is every process's taking part (tests/bench/_cpu.py): the smoke process and what it
    started, and the trees under ``roots`` (the owner with its Chrome, the dev server).
    """
    ticks = snapshot(roots)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False)
    elapsed = time.perf_counter() - start
    cpu = (snapshot(roots) - ticks) / ticks_per_second()
    report = json.loads(done.stdout) if done.stdout.strip() else None
    if report is None or len(report.get("runs", ())) != len(SET_GAMES):
        raise RuntimeError(f"pix3 smoke --all did not run the set ({done.returncode}):\n{done.stdout}{done.stderr}")
    return elapsed * 1000, cpu, _verdicts(report)


def _scale_rows(pix3: list[str], project: Path, env: dict[str, str], roots: list[int]) -> list[Result | Absolute]:
    """The single scene under virtual time, then the 16 scenes on 4 workers against 1 (both clocks)."""
    virtual = [*pix3, "smoke", SCENE, "--frames", str(FRAMES), "--json"]  # the default
    real = [*virtual, "--real-time"]
    virtual_scenes: list[float] = []
    real_scenes: list[float] = []
    for _ in range(REPEAT):
        _smoke_ms(virtual, project, env, virtual_scenes)
        _smoke_ms(real, project, env, real_scenes)
    scene_ms = statistics.median(virtual_scenes)
    frames_ms = FRAMES * 1000 / 60
    rows: list[Result | Absolute] = [
        Result(
            "smoke",
            f"one {FRAMES}-frame scene (default: virtual time) vs its frames' real time",
            scene_ms,
            frames_ms,
            VIRTUAL_SHARE,
            note=(
                f"page opened to report, load included (runs {min(virtual_scenes):.0f}–{max(virtual_scenes):.0f} ms);"
                f" the same scene --real-time: {statistics.median(real_scenes):.0f} ms"
            ),
        )
    ]
    every = [*pix3, "smoke", "--all", "--frames", str(FRAMES), "--no-sync", "--json"]
    verdicts: set[tuple[tuple[str, Any, Any, Any], ...]] = set()
    cores = usable_cores()
    # Unmeasured: the first run of the set loads its 16 scenes into Chrome's caches for the first
    # time, which cost the run after it ~20 % more CPU (32 s against 27) and made its worker look busier.
    verdicts.add(tuple(_set_run([*every, "--workers", "4"], project, env, roots)[2]))
    for clock, extra in (("default (virtual time)", []), ("--real-time", ["--real-time"])):
        times: dict[int, list[float]] = {1: [], 4: []}
        cpu: dict[int, list[float]] = {1: [], 4: []}
        for _ in range(SET_ROUNDS):
            for workers in (1, 4):
                ms, seconds, seen = _set_run([*every, *extra, "--workers", str(workers)], project, env, roots)
                times[workers].append(ms)
                cpu[workers].append(seconds)
                verdicts.add(tuple(seen))
        one, four = statistics.median(times[1]), statistics.median(times[4])
        busy = sum(cpu[1]) / (sum(times[1]) / 1000)  # cores one worker kept busy
        limit = cores_limit(sum(times[1]) / 1000, sum(cpu[1]), cores, workers=4)
        target = speedup_target(limit, SPEEDUP, LIMIT_SHARE) if not extra else SPEEDUP
        why = f"{LIMIT_SHARE} × limit" if target < SPEEDUP else "the issue's"
        rows.append(
            Result(
                "smoke",
                f"{len(SET_GAMES)} scenes, --workers 4 vs --workers 1, {clock}",
                four,
                one,
                1 / target,
                note=(
                    f"{one / four:.2f}x faster (target {target:.2f}x, {why}); one worker's CPU {100 * busy:.0f} %"
                    f" of a core, so {cores} cores allow {limit:.2f}x; runs {[round(t) for t in times[1] + times[4]]} ms"
                    f" (CPU {[round(c, 1) for c in cpu[1] + cpu[4]]} s)"
                ),
            )
        )
    if len(verdicts) != 1:
        raise RuntimeError(f"the verdicts differ between runs: {sorted(verdicts)}")
    return rows


def _split(runs: list[float], scenes: list[float]) -> str:
    """``scene <s> + around <a>`` of the median run."""
    index = sorted(range(len(runs)), key=runs.__getitem__)[len(runs) // 2]
    return f"scene {scenes[index]:.0f} + around {runs[index] - scenes[index]:.0f} ms"


def run() -> list[Result | Absolute]:
    chromium = os.environ.get("PIX3_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    scratch = Path(tempfile.mkdtemp(prefix="pix3-bench-smoke-", dir="/tmp"))
    home = scratch / "home"
    project = make_game(scratch / "game", SET_GAMES)
    wrapper = scratch / "chrome.sh"
    wrapper.write_text(f'#!/bin/sh\nexec "{chromium}" {QUIET} "$@"\n')
    wrapper.chmod(0o755)
    env = {**pix3_env(), "PIX3_HOME": str(home), "PIX3_CHROME": str(wrapper), "TMPDIR": str(scratch)}
    env.pop("SSH_CONNECTION", None)
    user_env = {k: v for k, v in env.items() if k != "TMPDIR"}  # `pix3 smoke` as a user runs it
    pix3 = [sys.executable, "-m", "pix3net"]
    smoke = [*pix3, "smoke", SCENE, "--frames", str(FRAMES), "--json", "--real-time"]
    try:
        started = subprocess.run(
            [*pix3, "editor", "--headless", "--cdp-port", str(free_port())],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if started.returncode != 0:
            raise RuntimeError(f"pix3 editor did not start: {started.stderr}")
        record = json.loads((home / "chrome.json").read_text())
        token = (home / "cdp-token").read_text().strip()
        dev = json.loads((project / ".pix3" / "dev.json").read_text())
        base = dev["url"]
        url = f"{base}?scene=res%3A%2F%2F{SCENE.replace('/', '%2F')}"
        _smoke_ms(smoke, project, user_env)  # warm-up: Chrome's caches, Python's bytecode
        trio.run(_bare_page_ms, record["port"], token, url)
        warm: list[float] = []
        bare: list[float] = []
        warm_scenes: list[float] = []
        for _ in range(REPEAT):
            bare.append(trio.run(_bare_page_ms, record["port"], token, url))
            warm.append(_smoke_ms(smoke, project, user_env, warm_scenes))
        scale = _scale_rows(pix3, project, user_env, [record["ownerPid"], dev["pid"]])
        subprocess.run([*pix3, "editor", "--stop-chrome"], cwd=project, env=env, capture_output=True, check=False)
        cold: list[float] = []
        chrome_start: list[float] = []
        cold_scenes: list[float] = []
        for _ in range(REPEAT):
            chrome_start.append(trio.run(_bare_chrome_start_ms, str(wrapper), scratch))
            cold.append(_smoke_ms(smoke, project, user_env, cold_scenes))
    finally:
        for stop in (["--stop-chrome"], ["--stop"]):
            subprocess.run([*pix3, "editor", *stop], cwd=project, env=env, capture_output=True, check=False)
        shutil.rmtree(scratch, ignore_errors=True)
    bare_ms, start_ms = statistics.median(bare), statistics.median(chrome_start)
    warm_ms, cold_ms = statistics.median(warm), statistics.median(cold)
    note = f"bare page load + {FRAMES} frames {bare_ms:.0f} ms, bare Chrome start {start_ms:.0f} ms"
    return [
        Result(
            "smoke",
            f"pix3 smoke {FRAMES} frames, warm owner vs bare CDP load+frames",
            warm_ms,
            bare_ms,
            1.5,
            note=f"{note}; ours: {_split(warm, warm_scenes)}",
        ),
        Result(
            "smoke",
            f"pix3 smoke {FRAMES} frames, private Chrome vs bare load+frames+Chrome start",
            cold_ms,
            bare_ms + start_ms,
            1.5,
            note=f"ours: {_split(cold, cold_scenes)}",
        ),
        *scale,
    ]
