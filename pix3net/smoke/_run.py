"""One scene run in the game page (docs/smoke.md, "A run").

A fresh browser context and page; the shared probe and rules (``probe.js``, ``judge.js``, the
editor page's own) installed before the page's own scripts; ``/?scene=<res path>`` opened; CDP
events fed to the :class:`Collector` until the probe says the run is over (or the page fails to
load, crashes, or ``--timeout`` passes); then the page judges itself with what only CDP saw added,
and the stacks are mapped through the page's source maps.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import trio

from pix3net.smoke._browser import Browser, Page
from pix3net.smoke._cdpconnection import CdpError, Gone
from pix3net.smoke._collect import BINDING, PAGE_SCRIPT_URL, Collector
from pix3net.smoke._loads import compile_advice
from pix3net.smoke._sources import SourceMaps
from pix3tools.core.nodemodules import find_vite
from pix3tools.smoke import Failure, SmokeReport, from_verdict, ms, step_stats, timeout_failure

__all__ = ["PageSource", "RunSettings", "open_game_page", "page_script", "run_scene", "scene_url"]

TERMINATE_SECONDS = 2.0  # for Runtime.terminateExecution on a page stuck in a loop
COLLECT_SECONDS = 5.0  # the end-of-run evaluate, when nothing else bounds it
BUSY_SECONDS = 1.0  # a page that does not answer the timeout's question this soon is stuck: terminate
# The shared probe and rules: the editor page's own files (docs/game-page.md, "The judge").
JUDGE_FILES = ("probe.js", "judge.js")
# Installs the probe with smoke's options and keeps the rules; both globals are removed again, so
# the game sees neither. `__pix3SmokeResult(ctx)` is the end of the run: the verdict with what CDP
# saw added (ctx), the step timings and the game's snapshot.
INSTALLER = """
;(() => {
  'use strict';
  const probeApi = globalThis.__PIX3_PROBE__, judgeApi = globalThis.__PIX3_JUDGE__;
  delete globalThis.__PIX3_PROBE__;
  delete globalThis.__PIX3_JUDGE__;
  const send = globalThis.__BINDING__;
  try { delete globalThis.__BINDING__; } catch (_) { /* a non-configurable binding stays visible */ }
  if (typeof send !== 'function' || !probeApi || !judgeApi) return;
  const probe = probeApi.install(globalThis, {
    holdUntilLoad: true, stopAfter: __FRAMES__, timings: true, endOnNavigation: true,
    report: (fact) => {
      if (fact.kind === 'end') send(JSON.stringify({ kind: 'end', why: fact.why, frame: fact.frame }));
      else if (fact.kind === 'beat') send(JSON.stringify(fact));
    },
  });
  Object.defineProperty(globalThis, '__pix3SmokeResult', {
    configurable: true,
    enumerable: false,
    value: async (ctx) => {
      const facts = probe.facts();
      const verdict = judgeApi.judge(facts, ctx);
      const game = ctx.timedOut === undefined ? await probe.game() : null;
      return { verdict, timings: facts.timings, game };
    },
  });
})();
//# sourceURL=__SOURCE_URL__
"""
_judge_source: str | None = None
# encodeURIComponent leaves these unescaped; quote() would escape them.
_URI_COMPONENT_SAFE = "!*'()"
NO_INPUT_NOTE = "Nothing was tapped or clicked: input received no events during the run."


def page_script(frames: int) -> str:
    """The probe and the rules, read once, and smoke's installer for ``frames`` frames."""
    global _judge_source
    if _judge_source is None:
        folder = resources.files("pix3net.devserver").joinpath("page")
        _judge_source = "\n".join(folder.joinpath(name).read_text(encoding="utf-8") for name in JUDGE_FILES)
    installer = INSTALLER.replace("__BINDING__", BINDING).replace("__FRAMES__", str(frames))
    return _judge_source + installer.replace("__SOURCE_URL__", PAGE_SCRIPT_URL)


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
    collector = Collector(settings.origin, settings.frames)
    outcome: dict[str, Any] | None = None
    page: Page | None = None
    why: str | None = None
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
                why = await _why_no_end(page, collector, settings)
            if page is not None:
                await page.close()
    if deadline.cancelled_caught:
        return timeout_failure(scene, settings.timeout, settings.frames, why)
    if collector.crashed:
        return Failure(
            "E_SMOKE_CRASH", f"the renderer running the game page crashed during frame {collector.frame}.", scene
        )
    if collector.load_failed:
        return _not_loaded(scene, settings, collector, browser, time.perf_counter() - started)
    if outcome is None:
        where = f"left for {collector.left}, which it could not stop" if collector.left else "did not answer"
        return Failure("E_SMOKE_CRASH", f"the game page {where}, so the run could not read what it saw.", scene)
    errors = outcome["verdict"].get("errors", [])
    await sources.map_stacks(errors, settings.origin)
    return _report(scene, settings, outcome, browser, time.perf_counter() - started)


async def _result(page: Page, ctx: dict[str, Any]) -> dict[str, Any] | None:
    """The page's verdict of itself (``__pix3SmokeResult``), or None when it cannot give one."""
    expression = f"globalThis.__pix3SmokeResult({json.dumps(ctx)})"
    result = await page.call(
        "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}
    )
    value = (result or {}).get("result", {}).get("value")
    return value if isinstance(value, dict) and isinstance(value.get("verdict"), dict) else None


async def _why_no_end(page: Page, collector: Collector, settings: RunSettings) -> str | None:
    """The timeout's reason, as the shared rules word it. The page is asked first; a page that
    does not answer within a second is busy (a loop never yields), so its script is terminated
    from outside and the same question is answered after it. None when the page cannot say."""
    answer: list[dict[str, Any] | None] = []
    asked = trio.Event()
    ctx = collector.context(settings.advice, settings.timeout)

    async def ask() -> None:
        with contextlib.suppress(Gone, CdpError):
            answer.append(await _result(page, ctx))
        asked.set()

    with trio.CancelScope(shield=True), trio.move_on_after(BUSY_SECONDS + TERMINATE_SECONDS):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            with trio.move_on_after(BUSY_SECONDS):
                await asked.wait()
            if not asked.is_set():
                with contextlib.suppress(Gone):
                    await page.connection.send("Runtime.terminateExecution", {}, page.session)
                await asked.wait()
                # The first answer came after the loop was stopped, and the heartbeat may have run
                # before it (then its facts say "idle"): ask once more, saying the page was stopped,
                # after how long and at which frame.
                first = answer[0] if answer else None
                frames = first["verdict"].get("frames") if first else None
                frame = frames.get("clock") if isinstance(frames, dict) else None
                answer.clear()
                asked = trio.Event()
                ctx["stopped"] = {"afterMs": round(BUSY_SECONDS * 1000), "frame": frame}
                nursery.start_soon(ask)
            await asked.wait()
    if not answer or answer[0] is None:
        return None
    reason = answer[0]["verdict"].get("timeout")
    return reason if isinstance(reason, str) else None


async def _drive(page: Page, scene: str, settings: RunSettings, collector: Collector) -> dict[str, Any] | None:
    collector.main_frame = page.target_id
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
    if collector.crashed:
        return None
    with trio.move_on_after(COLLECT_SECONDS):
        result = await _result(page, collector.context(settings.advice))
        await _drain(page, collector)
        return result
    return None


async def _follow(page: Page, collector: Collector) -> None:
    """Feed the page's events to the collector until the run ends one way or another."""
    async for method, params in page.events:
        for call, args in collector.feed(method, params):
            await page.connection.send(call, args, page.session)
        if collector.finished:
            return
    raise Gone(page.connection.gone or "the connection to Chrome was closed")


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
