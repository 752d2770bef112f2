"""Vite as a child of the dev server: found, started on a private loopback port, restarted.

However the dev server ends, Vite and everything Vite started end with it:

- Vite gets a process group of its own; stopping it signals the whole group.
- PR_SET_PDEATHSIG = SIGKILL kills Vite itself when this process dies, even by SIGKILL. Vite is
  spawned from the main thread: the death signal fires when the *spawning thread* exits, and
  trio's own spawner uses a worker thread that ends on its own.
- The death signal reaches only the direct child, so a reaper joins Vite's group: a `sh` blocked
  reading a pipe whose only writer is this process. When this process dies the kernel closes
  the pipe, the read returns, and the reaper kills the group (Vite's children, and itself).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import trio

from pix3net.daemon.pids import dies_with_us
from pix3net.devserver.front.bind import any_free_port
from pix3net.devserver.front.vitelink import READY_POLL_S, listening

VITE_HOST = "127.0.0.1"  # Vite listens here only (`--host`), on a port of its own
SOCKET_TABLE = Path("/proc/net/tcp")  # Linux's IPv4 socket table (`vitelink.listening`)
START_TIMEOUT_S = 30.0
STOP_GRACE_S = 3.0
BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 10.0
STABLE_RUN_S = 30.0  # a run this long resets the backoff


async def _wait_exit(proc: subprocess.Popen[bytes]) -> None:
    """Until the child exits: a pidfd where the OS has them (Linux), else a gentle poll."""
    if hasattr(os, "pidfd_open"):
        pidfd = os.pidfd_open(proc.pid)
        try:
            await trio.lowlevel.wait_readable(pidfd)
        finally:
            os.close(pidfd)
        return
    while proc.poll() is None:  # noqa: ASYNC110 - no event exists for a child of another spawner
        await trio.sleep(0.2)


async def _listens(port: int) -> bool:
    """Whether Vite's own server listens on ``port`` (`vitelink.listening`: a connect probe is
    fooled by Vite's port check). Where the kernel's table cannot be read (not Linux), whether a
    connection is accepted, and the front door waits out a refusal (`vitelink.WAIT_FOR_VITE_S`)."""
    try:
        table = await trio.to_thread.run_sync(SOCKET_TABLE.read_text)
    except OSError:
        try:
            stream = await trio.open_tcp_stream(VITE_HOST, port)
        except OSError:
            return False
        await stream.aclose()
        return True
    return listening(table, VITE_HOST, port)


@dataclass
class _Reaper:
    proc: subprocess.Popen[bytes]
    fd: int  # the pipe's only write end: closed, or this process gone, the reaper acts


@dataclass
class ViteStatus:
    """What `hello` reports about the child (ours, beyond the reference's keys)."""

    running: bool = False
    pid: int | None = None
    port: int | None = None
    starts: int = 0
    last_exit: int | None = None
    last_error: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "running": self.running,
            "pid": self.pid,
            "restarts": max(0, self.starts - 1),
            "lastExit": self.last_exit,
            "lastError": self.last_error,
        }


@dataclass
class Vite:
    """The supervised child. ``run`` lives in the server's nursery until cancelled."""

    root: Path
    vite_js: Path
    log: logging.Logger
    log_file: IO[bytes] | None = None
    node: str = field(default_factory=lambda: shutil.which("node") or "node")
    status: ViteStatus = field(default_factory=ViteStatus)
    _ready: trio.Event = field(default_factory=trio.Event)
    _proc: subprocess.Popen[bytes] | None = None
    _reaper: _Reaper | None = None

    async def wait_ready(self, timeout_s: float) -> int | None:
        """The port of a running Vite, waiting up to ``timeout_s`` for one."""
        with trio.move_on_after(timeout_s):
            await self._ready.wait()
        return self.status.port if self.status.running else None

    async def run(self) -> None:
        backoff = BACKOFF_FIRST_S
        try:
            while True:
                started = time.monotonic()
                await self._run_once()
                if time.monotonic() - started > STABLE_RUN_S:
                    backoff = BACKOFF_FIRST_S
                self.log.info("vite: restarting in %.1f s", backoff)
                await trio.sleep(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX_S)
        finally:
            self._stop_now()

    async def _run_once(self) -> None:
        port = any_free_port()
        argv = [self.node, str(self.vite_js), "--host", VITE_HOST, "--port", str(port), "--strictPort"]
        env = {**os.environ, "FORCE_COLOR": "0", "NO_COLOR": "1"}
        out: Any = self.log_file if self.log_file is not None else subprocess.DEVNULL
        try:
            # Blocking Popen on purpose: the death signal is tied to the spawning thread, and
            # trio's own spawner uses a worker thread that exits (module docstring).
            proc = subprocess.Popen(  # noqa: ASYNC220
                argv,
                cwd=self.root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                process_group=0,
                preexec_fn=dies_with_us(),
            )
        except OSError as exc:
            self.status.last_error = f"could not start vite: {exc}"
            self.log.error("vite: %s", self.status.last_error)
            return
        reaper = self._start_reaper(proc.pid)
        self._proc = proc
        self.status.starts += 1
        self.status.pid, self.status.port = proc.pid, port
        self.log.info("vite: started pid %d on %s:%d (%s)", proc.pid, VITE_HOST, port, self.vite_js)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._mark_ready, port, proc)
            await _wait_exit(proc)
            nursery.cancel_scope.cancel()
        code = proc.wait()
        self._proc = None
        self._kill_group(proc.pid, signal.SIGKILL)
        self._end_reaper(reaper)
        self.status.running = False
        self.status.last_exit = code
        self.status.last_error = f"vite exited with code {code}"
        self._ready = trio.Event()
        self.log.error("vite: pid %d exited with code %d (see .pix3/dev.log)", proc.pid, code)

    async def _mark_ready(self, port: int, proc: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not await _listens(port):
                await trio.sleep(READY_POLL_S)
                continue
            self.status.running = True
            self._ready.set()
            self.log.info("vite: ready on %s:%d", VITE_HOST, port)
            return
        self.log.error("vite: pid %d did not listen within %.0f s; killing it", proc.pid, START_TIMEOUT_S)
        self._kill_group(proc.pid, signal.SIGKILL)

    def _start_reaper(self, group: int) -> _Reaper | None:
        """A `sh` in Vite's process group that kills the group once this process is gone."""
        read_end, write_end = os.pipe()
        try:
            proc = subprocess.Popen(
                ["/bin/sh", "-c", "read _ignored; kill -KILL 0"],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                process_group=group,
            )
        except (OSError, subprocess.SubprocessError) as exc:  # Vite already gone, or no /bin/sh
            os.close(write_end)
            self.log.warning("vite: no reaper for group %d (%s); its children may outlive a crash", group, exc)
            return None
        finally:
            os.close(read_end)
        self._reaper = _Reaper(proc, write_end)
        return self._reaper

    def _end_reaper(self, reaper: _Reaper | None) -> None:
        if reaper is None:
            return
        if self._reaper is reaper:
            self._reaper = None
        with contextlib.suppress(OSError):
            os.close(reaper.fd)  # the reaper reads EOF and kills what is left of the group
        with contextlib.suppress(subprocess.TimeoutExpired):
            reaper.proc.wait(timeout=STOP_GRACE_S)

    def _stop_now(self) -> None:
        """Every exit path: SIGTERM the group, wait a little, then SIGKILL what is left."""
        proc = self._proc
        if proc is None:
            self._end_reaper(self._reaper)
            return
        self._proc = None
        self.status.running = False
        self._kill_group(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=STOP_GRACE_S)
        self._kill_group(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=STOP_GRACE_S)
        self._end_reaper(self._reaper)
        self.log.info("vite: stopped pid %d", proc.pid)

    @staticmethod
    def _kill_group(pgid: int, sig: int) -> None:
        try:
            os.killpg(pgid, sig)
        except OSError as exc:
            if exc.errno not in (errno.ESRCH, errno.EPERM):
                raise
