"""One scene run in the game page (docs/smoke.md, "A run").

A fresh browser context and page; the page script (``page.js``) installed before the page's own
scripts; ``/?scene=<res path>`` opened; CDP events fed to the :class:`Collector` until the page
says its frames are done (or it fails to load, crashes, or ``--timeout`` passes); then the
game's snapshot, the step timings and the stacks mapped through the page's source maps.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import trio

from pix3net.devserver.front.vite import find_vite
from pix3net.smoke._browser import Browser, Page
from pix3net.smoke._cdp import CdpError, Gone
from pix3net.smoke._collect import BINDING, Collector
from pix3net.smoke._loads import compile_advice
from pix3net.smoke._sources import SourceMaps
from pix3tools.smoke import Failure, SmokeReport, ms, step_stats, timeout_failure

__all__ = ["PageSource", "RunSettings", "open_game_page", "page_script", "run_scene", "scene_url"]

TERMINATE_SECONDS = 2.0  # for Runtime.terminateExecution on a page stuck in a loop
COLLECT_SECONDS = 5.0  # the end-of-run evaluate, when nothing else bounds it
# encodeURIComponent leaves these unescaped; quote() would escape them.
_URI_COMPONENT_SAFE = "!*'()"
NO_INPUT_NOTE = "Nothing was tapped or clicked: input received no events during the run."


def page_script(frames: int) -> str:
    text = resources.files("pix3net.smoke").joinpath("page.js").read_text(encoding="utf-8")
    return text.replace("__PIX3_SMOKE_FRAMES__", str(frames))


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


async def open_game_page(browser: Browser, frames: int) -> Page:
    """A fresh context and page, ready for a scene: domains on, the binding and the page script in.

    Nothing here depends on the scene, so it is done ahead of it (``_pages.PagePool``).
    """
    page = await browser.open_page()
    setup: tuple[tuple[str, dict[str, Any]], ...] = (
        ("Runtime.enable", {}),
        ("Page.enable", {}),
        ("Network.enable", {}),
        ("Inspector.enable", {}),
        ("Log.enable", {}),  # the browser's own console: a script refused for its type (docs/smoke.md)
        ("Runtime.addBinding", {"name": BINDING}),
        ("Page.addScriptToEvaluateOnNewDocument", {"source": page_script(frames)}),
    )
    try:
        await page.connection.call_many(setup, page.session)  # one round trip instead of six
    except BaseException:
        await page.close()
        raise
    return page


async def run_scene(
    browser: Browser, scene: str, settings: RunSettings, sources: SourceMaps, pages: PageSource | None = None
) -> SmokeReport | Failure:
    """Run one scene; every outcome is a report or a failure, and the page's context is gone after.

    ``pages`` gives a page made ready ahead (else one is opened now); the timeout counts from here.
    """
    started = time.perf_counter()
    collector = Collector(settings.origin, settings.frames, advice=settings.advice)
    outcome: dict[str, Any] | None = None
    page: Page | None = None
    with trio.move_on_after(settings.timeout) as deadline:
        try:
            page = await pages() if pages is not None else await open_game_page(browser, settings.frames)
            outcome = await _drive(page, scene, settings, collector)
        except Gone as gone:
            return Failure("E_SMOKE_CRASH", f"Chrome went away during the run: {gone}.", scene)
        except CdpError as error:
            return Failure("E_SMOKE_CRASH", f"Chrome refused the run: {error}.", scene)
        finally:
            if page is not None and deadline.cancel_called:
                await _terminate(page)
            if page is not None:
                await page.close()
    if deadline.cancelled_caught:
        return timeout_failure(scene, settings.timeout, settings.frames)
    if collector.crashed:
        return Failure(
            "E_SMOKE_CRASH", f"the renderer running the game page crashed during frame {collector.frame}.", scene
        )
    collector.finish(outcome)
    await sources.map_stacks(collector.errors, settings.origin)
    return _report(scene, settings, collector, outcome, browser, time.perf_counter() - started)


async def _terminate(page: Page) -> None:
    """Stop the page's script (a loop never yields): Chrome interrupts it from outside."""
    with trio.CancelScope(shield=True), trio.move_on_after(TERMINATE_SECONDS), contextlib.suppress(Gone):
        await page.connection.send("Runtime.terminateExecution", {}, page.session)


async def _drive(page: Page, scene: str, settings: RunSettings, collector: Collector) -> dict[str, Any] | None:
    collector.document_frame = page.target_id
    width, height = (max(1, round(v)) for v in settings.viewport)
    url = scene_url(settings.base_url, scene)
    collector.page_url = url
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
    _, navigation = await page.connection.call_many(
        [("Emulation.setDeviceMetricsOverride", metrics), ("Page.navigate", {"url": url})], page.session
    )
    if isinstance(navigation, dict) and navigation.get("errorText"):
        collector.navigation_failed(url, str(navigation["errorText"]))
        return None
    await _follow(page, collector)
    if not collector.done:
        return None
    with trio.move_on_after(COLLECT_SECONDS):
        result = await page.call(
            "Runtime.evaluate",
            {"expression": "globalThis.__pix3SmokeCollect()", "awaitPromise": True, "returnByValue": True},
        )
        _drain(page, collector)
        value = (result or {}).get("result", {}).get("value")
        return value if isinstance(value, dict) else None
    return None


async def _follow(page: Page, collector: Collector) -> None:
    """Feed the page's events to the collector until the run ends one way or another."""
    async for method, params in page.events:
        collector.feed(method, params)
        if collector.finished:
            return
    raise Gone(page.connection.gone or "the connection to Chrome was closed")


def _drain(page: Page, collector: Collector) -> None:
    while True:
        try:
            method, params = page.events.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel):
            return
        collector.feed(method, params)


def _report(
    scene: str,
    settings: RunSettings,
    collector: Collector,
    outcome: dict[str, Any] | None,
    browser: Browser,
    seconds: float,
) -> SmokeReport:
    outcome = outcome or {}
    steps = [float(s) for s in outcome.get("steps", []) if isinstance(s, int | float)]
    load = outcome.get("loadMs")
    report = SmokeReport(
        scene=scene,
        frames=collector.frame if collector.loaded else 0,
        frames_requested=settings.frames,
        first_frame_ok=collector.first_frame_ok(),
        errors=collector.errors,
        warnings=collector.warnings,
        scripts=list(settings.scripts),
        game=outcome.get("game") if isinstance(outcome.get("game"), dict) else None,
        log_count=collector.log_count,
        log_lines=collector.log_lines,
    )
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
    return report
