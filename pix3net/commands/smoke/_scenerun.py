"""One scene run in the game page (docs/smoke.md, "A run").

A fresh browser context and page; the shared probe and rules (``recorder.js``, ``judge.js``, the
editor page's own) installed before the page's own scripts; ``/?scene=<res path>`` opened; CDP
events fed to the :class:`Collector` until the probe says the run is over (or the page fails to
load, crashes, or ``--timeout`` passes); then the page judges itself with what only CDP saw added,
and the stacks are mapped through the page's source maps.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import trio

from pix3net.clients.cdptrio import CdpError, Gone
from pix3net.commands.smoke._clock import Call, VirtualClock, resume_call
from pix3net.commands.smoke._collect import BINDING, PAGE_SCRIPT_URL, Collector
from pix3net.commands.smoke._headless import Browser, Page, PageMode
from pix3net.commands.smoke._loads import compile_advice
from pix3net.commands.smoke._sources import SourceMaps
from pix3net.devserver.page import read_page_file
from pix3tools.core.nodemodules import find_vite
from pix3tools.smoke import Failure, SmokeReport, from_verdict, ms, spin_frames, step_stats, timeout_failure

__all__ = [
    "PageMode",
    "PageSource",
    "RunSettings",
    "SceneRun",
    "open_game_page",
    "page_script",
    "run_scene",
    "scene_url",
]

TERMINATE_SECONDS = 2.0  # for Runtime.terminateExecution on a page stuck in a loop
COLLECT_SECONDS = 5.0  # the end-of-run evaluate, when nothing else bounds it
SCREENSHOT_SECONDS = 5.0  # Page.captureScreenshot of one viewport (~30 ms here)
# Virtual time for the end-of-run question: a game's snapshot may wait on a timer.
COLLECT_BUDGET = {"policy": "advance", "budget": 250}
VIRTUAL_NOTE = (
    "Frames in virtual time: 1/60 s apart on the page's own clock, run as fast as the page draws them"
    " (step times are not measured there: with --real-time they are)."
)
BUSY_SECONDS = 1.0  # a page that does not answer the timeout's question this soon is stuck: terminate
# Debugger.pause lands between two bytecodes; a page busy outside JavaScript is ended unnamed.
PAUSE_SECONDS = 0.5
MAPS_SECONDS = 2.0  # the maps of a stuck page's scripts, to name where it spins
# The shared probe and rules (the editor page's own files; docs/game-page.md, "The judge"), then
# smoke's installer, whose placeholders page_script fills in.
JUDGE_FILES = ("recorder.js", "judge.js")
INSTALLER_FILE = "smokerun.js"
_sources: tuple[str, str] | None = None  # the probe and rules, and the installer, read once
# encodeURIComponent leaves these unescaped; quote() would escape them.
_URI_COMPONENT_SAFE = "!*'()"
NO_INPUT_NOTE = "Nothing was tapped or clicked: input received no events during the run."


def page_script(frames: int, mode: PageMode | None = None) -> str:
    """The probe and the rules, read once, and smoke's installer for ``frames`` frames."""
    global _sources
    mode = mode or PageMode()
    if _sources is None:
        judge = "\n".join(read_page_file(name) for name in JUDGE_FILES)
        _sources = judge, read_page_file(INSTALLER_FILE)
    judge, installer = _sources
    installer = (
        installer.replace("__BINDING__", BINDING)
        .replace("__FRAMES__", str(frames))
        .replace("__VIRTUAL__", json.dumps(mode.virtual))
        .replace("__CAPTURE__", json.dumps(mode.capture))
    )
    return judge + "\n" + installer.replace("__SOURCE_URL__", PAGE_SCRIPT_URL)


def scene_url(base: str, scene: str) -> str:
    """The game page for a scene: ``<base>?scene=<res:// path, URL-encoded>`` (docs/game-page.md)."""
    return base + "?scene=" + quote("res://" + scene, safe=_URI_COMPONENT_SAFE)


class RunSettings:
    def __init__(
        self,
        *,
        root: Path,
        base_url: str,
        frames: int,
        timeout: float,
        viewport: tuple[float, float],
        scripts: list[str],
    ) -> None:
        self.root = root
        self.base_url = base_url
        self.frames = frames
        self.timeout = timeout
        self.viewport = viewport
        self.scripts = scripts
        parts = urlsplit(base_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        # What to say when the page's TypeScript reaches the browser uncompiled.
        self.advice = compile_advice(root, find_vite(root), base_url)


PageSource = Callable[[], Awaitable[Page]]


@dataclass
class SceneRun:
    """One scene's outcome, and what ``--output`` keeps of it: the screenshot at the first fault
    (or at the end), and the page's console."""

    run: SmokeReport | Failure
    screenshot: bytes | None = None
    console: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class _Drive:
    """What one attempt saw: the page's verdict (None when it gave none), or virtual time given up."""

    outcome: dict[str, Any] | None = None
    fallback: str | None = None  # why the frames go to real time
    screenshot: bytes | None = None


async def open_game_page(browser: Browser, frames: int, mode: PageMode | None = None) -> Page:
    """A fresh context and page, ready for a scene: domains on, the binding and the page script in.

    Nothing here depends on the scene, so it is done ahead of it (``_pages.PagePool``).
    """
    page = await browser.open_page()
    page.mode = mode or PageMode()
    setup: tuple[tuple[str, dict[str, Any]], ...] = (
        ("Runtime.enable", {}),
        ("Page.enable", {}),
        ("Network.enable", {}),
        ("Inspector.enable", {}),
        # Up front: a page stuck in a loop handles Debugger.pause, not Debugger.enable. Its
        # breakpoints off, so a `debugger;` in the game never stops a run.
        ("Debugger.enable", {}),
        ("Debugger.setBreakpointsActive", {"active": False}),
        ("Runtime.addBinding", {"name": BINDING}),
        ("Page.addScriptToEvaluateOnNewDocument", {"source": page_script(frames, page.mode)}),
    )
    try:
        await page.connection.call_many(setup, page.session)  # one round trip instead of six
    except BaseException:
        await page.close()
        raise
    return page


async def run_scene(
    browser: Browser,
    scene: str,
    settings: RunSettings,
    sources: SourceMaps,
    pages: PageSource | None = None,
    *,
    mode: PageMode | None = None,
    keep: bool = False,
) -> SceneRun:
    """Run one scene; every outcome is a report or a failure, and the page's context is gone after.

    ``pages`` gives a page made ready ahead (else one is opened now); the timeout counts from here.
    Under virtual time (``mode.virtual``) a page that kept its main thread busy is run again in
    real time, with its own ``--timeout``. ``keep``: a screenshot and the console are kept
    (``--output``)."""
    mode = mode or PageMode()
    started = time.perf_counter()
    first = await _attempt(browser, scene, settings, sources, pages, mode, keep)
    if isinstance(first, _Fallback):
        real = replace(mode, virtual=False)
        again = await _attempt(browser, scene, settings, sources, None, real, keep)
        assert not isinstance(again, _Fallback)
        if isinstance(again.run, SmokeReport):
            again.run.notes.insert(1, f"Frames in real time: {first.why}")
        again.seconds = time.perf_counter() - started
        return again
    if isinstance(first.run, SmokeReport) and mode.virtual:
        first.run.notes.insert(1, VIRTUAL_NOTE)
        # The page's clock does not move inside a frame's callbacks there: a 0 would be no measure.
        first.run.timings.update(firstFrame=None, step=None)
    first.seconds = time.perf_counter() - started
    return first


@dataclass
class _Fallback:
    why: str


async def _attempt(
    browser: Browser,
    scene: str,
    settings: RunSettings,
    sources: SourceMaps,
    pages: PageSource | None,
    mode: PageMode,
    keep: bool,
) -> SceneRun | _Fallback:
    started = time.perf_counter()
    collector = Collector(settings.origin, settings.frames)
    drive = _Drive()
    clock = VirtualClock() if mode.virtual else None
    page: Page | None = None
    why: str | None = None
    shot: bytes | None = None
    console: list[dict[str, Any]] = []
    with trio.move_on_after(settings.timeout) as deadline:
        try:
            page = await pages() if pages is not None else await open_game_page(browser, settings.frames, mode)
            if page.mode != mode:  # a page made ready ahead for another mode
                await page.close()
                page = await open_game_page(browser, settings.frames, mode)
            drive = await _drive(page, scene, settings, collector, clock, keep)
        except Gone as gone:
            return SceneRun(Failure("E_SMOKE_CRASH", f"Chrome went away during the run: {gone}.", scene))
        except CdpError as error:
            return SceneRun(Failure("E_SMOKE_CRASH", f"Chrome refused the run: {error}.", scene))
        finally:
            if page is not None and deadline.cancel_called:
                why, console = await _why_no_end(page, collector, clock, settings, keep, sources)
            if page is not None and keep and drive.fallback is None and not collector.crashed:
                shot = drive.screenshot or await _screenshot(page)
            if page is not None:
                await page.close()
    if drive.fallback is not None:
        return _Fallback(drive.fallback)
    shot = drive.screenshot or shot
    if deadline.cancelled_caught:
        return SceneRun(timeout_failure(scene, settings.timeout, settings.frames, why), shot, console)
    if collector.crashed:
        crash = f"the renderer running the game page crashed during frame {collector.frame}."
        return SceneRun(Failure("E_SMOKE_CRASH", crash, scene))
    if collector.load_failed:
        return SceneRun(_not_loaded(scene, settings, collector, browser, time.perf_counter() - started), shot)
    outcome = drive.outcome
    if outcome is None:
        where = f"left for {collector.left}, which it could not stop" if collector.left else "did not answer"
        reason = f"the game page {where}, so the run could not read what it saw."
        return SceneRun(Failure("E_SMOKE_CRASH", reason, scene), shot)
    errors = outcome["verdict"].get("errors", [])
    console = [entry for entry in outcome.get("console") or [] if isinstance(entry, dict)]
    await sources.map_stacks([*errors, *console], settings.origin)
    return SceneRun(_report(scene, settings, outcome, browser, time.perf_counter() - started), shot, console)


async def _screenshot(page: Page) -> bytes | None:
    """What the page shows now, as PNG bytes; None when Chrome cannot say (bounded, shielded)."""
    with trio.CancelScope(shield=True), trio.move_on_after(SCREENSHOT_SECONDS):
        try:
            shot = await page.call("Page.captureScreenshot", {"format": "png"})
        except (Gone, CdpError):
            return None
        data = shot.get("data") if isinstance(shot, dict) else None
        return base64.b64decode(data) if isinstance(data, str) else None
    return None


async def _result(page: Page, ctx: dict[str, Any]) -> dict[str, Any] | None:
    """The page's verdict of itself (``__pix3SmokeResult``), or None when it cannot give one."""
    expression = f"globalThis.__pix3SmokeResult({json.dumps(ctx)})"
    result = await page.call(
        "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}
    )
    value = (result or {}).get("result", {}).get("value")
    return value if isinstance(value, dict) and isinstance(value.get("verdict"), dict) else None


async def _spun(page: Page, collector: Collector, sources: SourceMaps, origin: str) -> tuple[str | None, bool]:
    """Pause a script stuck in a loop and say where it spins, in the words of the owner's
    watchdog (``spin_frames``); ``(where, paused)``, where None when it did not pause in time."""
    with contextlib.suppress(Gone):
        await page.connection.send("Debugger.pause", {}, page.session)
    frames: Any = None
    with trio.move_on_after(PAUSE_SECONDS):
        while frames is None:
            try:
                method, params = await page.events.receive()
            except trio.EndOfChannel:
                return None, False
            if method == "Debugger.paused":
                frames = params.get("callFrames")
            else:
                collector.feed(method, params)
    if frames is None:
        return None, False
    urls = {url for url in collector.scripts.values() if url != PAGE_SCRIPT_URL}
    with trio.move_on_after(MAPS_SECONDS):
        locate = await sources.locator(urls, origin)
        return spin_frames(frames, collector.scripts, locate, hidden=lambda url: url == PAGE_SCRIPT_URL)[0], True
    return spin_frames(frames, collector.scripts, lambda *_: None, hidden=lambda url: url == PAGE_SCRIPT_URL)[0], True


async def _why_no_end(
    page: Page,
    collector: Collector,
    clock: VirtualClock | None,
    settings: RunSettings,
    keep: bool,
    sources: SourceMaps,
) -> tuple[str | None, list[dict[str, Any]]]:
    """The timeout's reason, as the shared rules word it (and the console, when kept). The page
    is asked first; a page that does not answer within a second is busy (a loop never yields), so
    its script is terminated from outside and the same question is answered after it. None when
    the page cannot say."""
    answer: list[dict[str, Any] | None] = []
    asked = trio.Event()
    ctx = collector.context(settings.advice, settings.timeout)
    ctx["console"] = keep

    async def ask() -> None:
        if clock is not None and clock.on:
            ctx["busyMs"], ctx["busyAfterMs"] = clock.busy_ms(time.monotonic()), round(BUSY_SECONDS * 1000)
        with contextlib.suppress(Gone, CdpError):
            answer.append(await _result(page, ctx))
        asked.set()

    bound = BUSY_SECONDS + PAUSE_SECONDS + MAPS_SECONDS + TERMINATE_SECONDS
    with trio.CancelScope(shield=True), trio.move_on_after(bound):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            with trio.move_on_after(BUSY_SECONDS):
                await asked.wait()
            if not asked.is_set():
                where, paused = await _spun(page, collector, sources, settings.origin)
                with contextlib.suppress(Gone):
                    await page.connection.send("Runtime.terminateExecution", {}, page.session)
                    if paused:
                        await page.connection.send("Debugger.resume", {}, page.session)
                await asked.wait()
                # The first answer came after the loop was stopped, and the heartbeat may have run
                # before it (then its facts say "idle"): ask once more, saying the page was stopped,
                # after how long and at which frame.
                first = answer[0] if answer else None
                frames = first["verdict"].get("frames") if first else None
                frame = frames.get("clock") if isinstance(frames, dict) else None
                answer.clear()
                asked = trio.Event()
                ctx["stopped"] = {"afterMs": round(BUSY_SECONDS * 1000), "frame": frame, "where": where}
                nursery.start_soon(ask)
            await asked.wait()
    if not answer or answer[0] is None:
        return None, []
    reason = answer[0]["verdict"].get("timeout")
    console = [entry for entry in answer[0].get("console") or [] if isinstance(entry, dict)]
    return (reason if isinstance(reason, str) else None), console


async def _drive(
    page: Page, scene: str, settings: RunSettings, collector: Collector, clock: VirtualClock | None, keep: bool
) -> _Drive:
    collector.main_frame = page.target_id
    width, height = (max(1, round(v)) for v in settings.viewport)
    url = scene_url(settings.base_url, scene)
    collector.page_url = url
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
    _, navigation = await page.connection.call_many(
        [("Emulation.setDeviceMetricsOverride", metrics), ("Page.navigate", {"url": url})], page.session
    )
    drive = _Drive()
    if isinstance(navigation, dict) and navigation.get("errorText"):
        collector.navigation_failed(url, str(navigation["errorText"]))
        return drive
    await _follow(page, collector, clock, drive)
    if drive.fallback is not None or collector.crashed:
        return drive
    with trio.move_on_after(COLLECT_SECONDS):
        if clock is not None and clock.on:  # timers the game's snapshot may wait on
            await page.connection.send("Emulation.setVirtualTimePolicy", COLLECT_BUDGET, page.session)
        ctx = collector.context(settings.advice)
        ctx["console"] = keep
        drive.outcome = await _result(page, ctx)
        await _drain(page, collector)
    return drive


async def _follow(page: Page, collector: Collector, clock: VirtualClock | None, drive: _Drive) -> None:
    """Feed the page's events to the collector (and the virtual clock) until the run ends one way
    or another; take the screenshot of the first fault when the page holds its game for it."""
    while True:
        due = clock.deadline() if clock is not None else None
        with trio.move_on_at(math.inf if due is None else trio.current_time() + max(0.0, due - time.monotonic())):
            try:
                method, params = await page.events.receive()
            except trio.EndOfChannel:
                raise Gone(page.connection.gone or "the connection to Chrome was closed") from None
            now = time.monotonic()
            calls = collector.feed(method, params)
            if clock is not None:
                calls += clock.feed(method, params, now)
            if method == "Runtime.bindingCalled" and params.get("name") == BINDING:
                calls += await _signal(page, params.get("payload"), clock, drive, now)
            for call, args in calls:
                await page.connection.send(call, args, page.session)
            if collector.finished:
                return
            continue
        if clock is not None:
            for call, args in clock.tick(time.monotonic()):
                await page.connection.send(call, args, page.session)
            if clock.busy_s is not None:
                drive.fallback = (
                    f"under virtual time the page's main thread was busy for {clock.busy_s:.1f} s at frame"
                    f" {collector.frame} (the clock does not move inside a task, so a loop that waits on it"
                    " never ends), so the scene ran again on Chrome's own clock."
                )
                return


async def _signal(page: Page, payload: Any, clock: VirtualClock | None, drive: _Drive, now: float) -> list[Call]:
    """The page script's own messages: it loaded and holds its game (virtual time goes on), or it
    met its first fault and holds its game (the screenshot is taken, then it goes on)."""
    try:
        message = json.loads(payload) if isinstance(payload, str) else None
    except ValueError:
        return []
    if not isinstance(message, dict):
        return []
    if message.get("kind") == "loaded" and clock is not None and not clock.on:
        return clock.loaded(now)
    if message.get("kind") == "fault" and drive.screenshot is None:
        drive.screenshot = await _screenshot(page)
        if message.get("held"):
            return [resume_call(False)]
    return []


async def _drain(page: Page, collector: Collector) -> None:
    while True:
        try:
            method, params = page.events.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel):
            return
        for call, args in collector.feed(method, params):
            await page.connection.send(call, args, page.session)


def _not_loaded(
    scene: str, settings: RunSettings, collector: Collector, browser: Browser, seconds: float
) -> SmokeReport:
    """The game page itself did not load (no document, so no probe): only CDP can say so."""
    error = {"code": "E_SMOKE_LOAD", "message": collector.load_error or "the game page did not load.", "frame": 0}
    verdict = {"errors": [error], "frames": {"drawn": 0}, "firstFrameOk": False}
    return _report(scene, settings, {"verdict": verdict}, browser, seconds)


def _report(
    scene: str, settings: RunSettings, outcome: dict[str, Any], browser: Browser, seconds: float
) -> SmokeReport:
    verdict = outcome["verdict"]
    given = outcome.get("timings")
    timings: dict[str, Any] = given if isinstance(given, dict) else {}
    steps = [float(s) for s in timings.get("steps", []) if isinstance(s, int | float)]
    load = timings.get("loadMs")
    report = from_verdict(scene, verdict, settings.frames)
    report.scripts = list(settings.scripts)
    game = outcome.get("game")
    report.game = game if isinstance(game, dict) else None
    report.timings = {
        "compile": None,
        "load": ms(float(load)) if isinstance(load, int | float) else None,
        "firstFrame": ms(steps[0]) if steps else 0,
        "step": step_stats(steps),
        "total": ms(seconds * 1000),
    }
    report.notes = [
        f"Browser run: the game page {scene_url(settings.base_url, scene)} in headless {browser.product}"
        f" ({browser.how}).",
        NO_INPUT_NOTE,
    ]
    summary = verdict.get("summary")
    if isinstance(summary, str):
        clock = (verdict.get("frames") or {}).get("clock", 0)
        report.notes.insert(1, f"The game page: {summary} in {clock} animation frames.")
    return report
