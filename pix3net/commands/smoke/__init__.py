"""`pix3 smoke`: the game run headless in real Chrome (docs/smoke.md). The entry is ``command.main``.

What the package offers beside its command (the parts a test drives on their own):

- ``VirtualClock`` and its bounds (``CHUNK_FRAMES``, ``MAX_CHUNK_FRAMES``, ``FRAME_MS``, ``NETWORK_WAIT_S``,
  ``STALL_S``): frames faster than real time, fed CDP events, pure (``_clock``).
- ``Collector``, ``BINDING``, ``Call``: what only CDP sees of a run, pure (``_collect``).
- ``compile_advice``: what to do when the page's TypeScript reached the browser uncompiled (``_loads``).
- ``SHM_MIN_FREE``, ``profile_parent``: the shared memory a private Chrome needs and where its
  profile goes (``_headless``).
- ``workspace_prefix``: the project's path in the repository GitHub checked out, for the github
  reporter's annotations (``_report``).

Names load their module on first use (``pix3tools.core.lazy``): the command reads its
arguments before Chrome's modules are imported.

Modules:

- `command`: the command: arguments, scenes, workers, the report.
- `_headless`: the Chrome a run uses: a reused headless owner or a private one.
- `_gameserver`: the dev server that serves the game page.
- `_pages`: game pages opened ahead of their scene.
- `_scenerun`: one scene run in the game page.
- `_clock`: frames faster than real time, under Chrome's virtual time.
- `_collect`: what only CDP sees of a run.
- `_sources`: source maps of the page's scripts.
- `_loads`: TypeScript that reached the browser uncompiled.
- `_artifacts`: what `--output <dir>` writes for a scene.
- `_schedule`: the scheduler: scenes over workers, the machine's size.
- `_report`: the reporters: text, JSON, GitHub annotations, JUnit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pix3tools.core.lazy import lazy_names

if TYPE_CHECKING:
    from pix3net.commands.smoke._clock import (
        CHUNK_FRAMES,
        FRAME_MS,
        MAX_CHUNK_FRAMES,
        NETWORK_WAIT_S,
        STALL_S,
        VirtualClock,
    )
    from pix3net.commands.smoke._collect import BINDING, Call, Collector
    from pix3net.commands.smoke._headless import SHM_MIN_FREE, profile_parent
    from pix3net.commands.smoke._loads import compile_advice
    from pix3net.commands.smoke._report import workspace_prefix

_HOMES = {
    "_headless": ("SHM_MIN_FREE", "profile_parent"),
    "_clock": ("CHUNK_FRAMES", "FRAME_MS", "MAX_CHUNK_FRAMES", "NETWORK_WAIT_S", "STALL_S", "VirtualClock"),
    "_collect": ("BINDING", "Call", "Collector"),
    "_loads": ("compile_advice",),
    "_report": ("workspace_prefix",),
}

__all__ = [
    "BINDING",
    "CHUNK_FRAMES",
    "FRAME_MS",
    "MAX_CHUNK_FRAMES",
    "NETWORK_WAIT_S",
    "SHM_MIN_FREE",
    "STALL_S",
    "Call",
    "Collector",
    "VirtualClock",
    "compile_advice",
    "profile_parent",
    "workspace_prefix",
]

__getattr__ = lazy_names(__name__, _HOMES)
