"""The dev server that serves the game page (docs/smoke.md, "The dev server").

The live one named by ``.pix3/dev.json`` when it answers; else one started for the run, as
`pix3 editor --no-chrome` would start it (`pix3net.devserver.control`: ours, or plain Vite for a
project with the reference plugin), and stopped after the run (SIGTERM: it removes its record and
stops its Vite). It dies with this process even when this process is killed (`pids.dies_with_us`):
what a SIGKILL leaves is a stale ``.pix3/dev.json``, which every reader already treats as no server.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import trio

from pix3net.daemon.devrecord import read_dev_info
from pix3net.daemon.pids import dies_with_us
from pix3net.devserver.control import DevServerError, Starting, probe_hello, spawn_dev_server

__all__ = ["DevServerError", "game_server"]

POLL_S = 0.1


async def answers(url: str) -> bool:
    """``GET <url>__pix3/api/hello`` is 2xx within the probe time (`pix3 editor`'s own probe)."""
    return await trio.to_thread.run_sync(probe_hello, url)


async def _started(starting: Starting) -> str:
    """The started server's URL once its record answers (`Starting.poll`, off the event loop);
    woken at once by our server's pipe (ready, or gone), else every ``POLL_S``."""
    while (info := await trio.to_thread.run_sync(starting.poll)) is None:
        pipe = starting.ready
        with trio.move_on_after(POLL_S):
            if pipe is None or pipe.heard:
                await trio.sleep_forever()
            await trio.lowlevel.wait_readable(pipe.read_fd)
            pipe.hear()
    return info.url


@contextlib.asynccontextmanager
async def game_server(root: Path) -> AsyncIterator[tuple[str, bool]]:
    """``(url, started)``: the dev server's base URL, and whether this run started it."""
    info = read_dev_info(root)
    if info is not None and await answers(info.url):
        yield info.url, False
        return
    # From this (main) thread on purpose: the death signal follows the thread that spawned the
    # child. Its own process group: the terminal's Ctrl-C reaches only us, and we stop it (and its
    # Vite) as a group.
    starting = spawn_dev_server(root, None, info, preexec_fn=dies_with_us())
    try:
        yield await _started(starting), True
    finally:
        if starting.ready is not None:
            starting.ready.close()
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(starting.end)
