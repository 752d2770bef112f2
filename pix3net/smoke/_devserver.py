"""The dev server that serves the game page (docs/smoke.md, "The dev server").

The live one named by ``.pix3/dev.json`` when it answers; else one started for the run, as
`pix3 editor --no-chrome` would start it (ours, or plain Vite for a project with the reference
plugin), and stopped after the run (SIGTERM: it removes its record and stops its Vite). It dies
with this process even when this process is killed (``PR_SET_PDEATHSIG`` on Linux). That signal
is SIGKILL: the kernel sends the death signal once per thread of the child that inherited it, and
a second SIGTERM would cut the server's own shutdown short anyway; what a SIGKILL leaves is a
stale ``.pix3/dev.json``, which every reader already treats as no server.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import trio

from pix3net import ready
from pix3net.editor.devserver import (
    OURS,
    START_TIMEOUT_S,
    DevServerError,
    log_tail,
    probe_hello,
    server_argv,
    spawn_server,
)
from pix3net.pids import dies_with_us
from pix3tools.core.devrecord import DEV_LOG, read_dev_info

__all__ = ["DevServerError", "game_server"]

POLL_S = 0.1
STOP_GRACE_S = 5.0  # SIGTERM, then SIGKILL to the group


async def answers(url: str) -> bool:
    """``GET <url>__pix3/api/hello`` is 2xx within the probe time (`pix3 editor`'s own probe)."""
    return await trio.to_thread.run_sync(probe_hello, url)


def _stop(child: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group, then SIGKILL what is left; reap it."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(OSError):
            os.killpg(child.pid, sig)
        try:
            child.wait(timeout=STOP_GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.asynccontextmanager
async def game_server(root: Path) -> AsyncIterator[tuple[str, bool]]:
    """``(url, started)``: the dev server's base URL, and whether this run started it."""
    info = read_dev_info(root)
    if info is not None and await answers(info.url):
        yield info.url, False
        return
    argv, name = server_argv(root, None)
    pipe = ready.Pipe() if name == OURS else None
    try:
        # From this (main) thread on purpose: the death signal follows the thread that spawned the
        # child. Its own process group: the terminal's Ctrl-C reaches only us, and we stop it (and
        # its Vite) as a group.
        child = spawn_server(root, argv, pipe, preexec_fn=dies_with_us())
    except OSError as exc:
        if pipe is not None:
            pipe.close()
        raise DevServerError(f"could not start the dev server: {exc}") from None
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            info = read_dev_info(root)
            if info is not None and info.pid == child.pid and await answers(info.url):
                break
            code = child.poll()
            if code is not None:
                raise DevServerError(f"the dev server exited with code {code} (see {DEV_LOG}):\n{log_tail(root)}")
            if time.monotonic() >= deadline:
                raise DevServerError(
                    f"the dev server did not answer within {int(START_TIMEOUT_S * 1000)} ms"
                    f" (see {DEV_LOG}):\n{log_tail(root)}"
                )
            with trio.move_on_after(POLL_S):  # woken at once by our server's pipe (ready, or gone)
                if pipe is None or pipe.heard:
                    await trio.sleep_forever()
                await trio.lowlevel.wait_readable(pipe.read_fd)
                pipe.hear()
        yield info.url, True
    finally:
        if pipe is not None:
            pipe.close()
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_stop, child)
