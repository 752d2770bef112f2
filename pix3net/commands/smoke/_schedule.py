"""`pix3 smoke`'s scheduler: the planned scenes run on one dev server and one browser, so many at a
time as the machine holds (``--workers``; unset, its usable cores and available memory decide).

The command (:mod:`pix3net.commands.smoke.command`) reads the arguments and chooses the scenes; this runs
them; :mod:`pix3net.commands.smoke._report` writes what they found.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from pix3net.commands.smoke._headless import BrowserSource
    from pix3net.commands.smoke._pages import PagePool
    from pix3net.commands.smoke._scenerun import SceneRun
    from pix3tools.smoke import RunPlan

Progress = Callable[[str], None]
Keep = Callable[["SceneRun"], None]  # what --output keeps of a scene, called as each one ends


async def run_plan(
    plan: RunPlan,
    pages: PagePool,
    browsers: BrowserSource,
    *,
    root: Path,
    frames: int,
    seconds: float,
    viewport: tuple[float, float],
    workers: int = 1,
    keep: Keep | None = None,
    progress: Progress | None = None,
) -> list[SceneRun]:
    """Run every planned scene on one dev server and one browser, ``workers`` scenes at a time
    (each in its own browser context); the results in the plan's order, whatever finished first."""
    from pix3net.commands.smoke._gameserver import DevServerError, game_server
    from pix3net.commands.smoke._headless import BrowserUnavailable
    from pix3net.commands.smoke._scenerun import RunSettings, SceneRun, run_scene
    from pix3net.commands.smoke._sources import SourceMaps
    from pix3net.wire.hostrule import game_page_url
    from pix3tools.smoke import Failure, attached_scripts

    results: list[SceneRun | None] = [None] * len(plan.scenes)
    if not plan.scenes:  # an empty shard: no dev server, no page
        return []
    project = plan.project
    try:
        async with game_server(root) as (server_url, _):
            # the game runs under the game's name, where the dev server refuses a browser its API
            base_url = game_page_url(server_url)
            browser = await browsers.get()
            sources = SourceMaps(root)
            todo = iter(enumerate(plan.scenes))  # shared by the workers: each scene is taken once

            async def worker() -> None:
                for index, scene in todo:
                    if progress is not None:
                        progress(f"pix3 smoke: {scene} ({index + 1}/{len(plan.scenes)})…")
                    if index + 1 < len(plan.scenes):
                        pages.prefetch()  # the next scene's page gets ready while this one runs
                    scripts = attached_scripts(scene, project.read) if project is not None else []
                    settings = RunSettings(
                        root=root, base_url=base_url, frames=frames, timeout=seconds, viewport=viewport, scripts=scripts
                    )
                    try:
                        done = await run_scene(
                            browser, scene, settings, sources, pages.take, mode=pages.mode, keep=keep is not None
                        )
                    except BrowserUnavailable as error:
                        done = SceneRun(Failure(error.code, error.reason, scene))
                    results[index] = done
                    if keep is not None:
                        await trio.to_thread.run_sync(keep, done)

            async with trio.open_nursery() as nursery:
                for _ in range(max(1, min(workers, len(plan.scenes)))):
                    nursery.start_soon(worker)
    except DevServerError as error:
        reason = f"could not serve the game page: {error}"
        results = [
            r or SceneRun(Failure("E_SMOKE_BUNDLE", reason, s)) for r, s in zip(results, plan.scenes, strict=True)
        ]
    except BrowserUnavailable as error:
        failed = [SceneRun(Failure(error.code, error.reason, scene)) for scene in plan.scenes]
        results = [r or f for r, f in zip(results, failed, strict=True)]
    return [
        r if r is not None else SceneRun(Failure("E_SMOKE_CRASH", "the run ended early.", s))
        for r, s in zip(results, plan.scenes, strict=True)
    ]


def machine_workers() -> int:
    """``--workers`` unset: what fits this machine (its usable cores and available memory)."""
    from pix3tools.smoke import default_workers

    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return default_workers(cores, _available_memory())


def _available_memory(meminfo: str = "/proc/meminfo") -> int | None:
    """``MemAvailable`` in bytes (Linux), None elsewhere."""
    try:
        with open(meminfo, encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
