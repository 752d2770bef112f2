"""Find, start and stop the project's dev server: the one client of its lifecycle, for `pix3
editor` (docs/editor.md, "The flow", steps 5–6) and `pix3 smoke` (docs/smoke.md, "The dev server").

A live `.pix3/dev.json` (its hello answers within 2 s) is reused; else a server is started
detached and waited for up to 15 s, until a new record answers. The server is ours
(`pix3 __dev-server`) unless the project installs the reference JS plugin, which plain Vite runs.
No trio, no HTTP library: `pix3 editor` imports this on its way to the first line it prints.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal, NamedTuple

from pix3net.clients import probe
from pix3net.daemon import ready
from pix3net.daemon.devrecord import DEV_JSON, DEV_LOG, DevInfo, read_dev_info
from pix3net.daemon.logfile import open_in, tail_lines
from pix3net.daemon.pids import pid_alive
from pix3net.devserver.front.bind import first_free_port
from pix3tools.core.nodemodules import find_installed, find_vite
from pix3tools.core.private import Refused, private_folder

PROBE_TIMEOUT_S = probe.HELLO_SECONDS  # the reference's dev-server probe
START_TIMEOUT_S = 15.0  # DEV_SERVER_START_TIMEOUT_MS
# The reference polls every 200 ms; a stat of dev.json is cheap, and every poll saved is time
# `pix3 editor` waits for nothing.
POLL_S = 0.02
# Our own server says when it is up (`pix3net.daemon.ready`): the poll is then only a safety net.
QUIET_POLL_S = 0.25
OURS = "the dev server"
STOP_WAIT_S = 5.0  # for the recorded server to remove its record; also the grace before SIGKILL
JS_PLUGIN = "@pix3/vite-plugin"
LOG_TAIL_LINES = 15  # what a failed start shows of dev.log


class DevServerError(RuntimeError):
    pass


def log_tail(root: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of ``.pix3/dev.log`` (empty when it cannot be read without
    following a link)."""
    try:
        with private_folder(root) as folder:
            fd = folder.open_read(DEV_LOG.name)
    except OSError:
        return ""
    return "\n".join(tail_lines(fd)[-lines:])


def probe_hello(url: str, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """``GET <url>__pix3/api/hello`` answers 2xx within the timeout (the body is not checked)."""
    return probe.hello(url, timeout)


class Found(NamedTuple):
    state: Literal["none", "live", "stale"]
    info: DevInfo | None


def find_dev_server(root: Path, probe: Callable[[str], bool] = probe_hello) -> Found:
    info = read_dev_info(root)
    if info is None:
        return Found("none", None)
    return Found("live" if probe(info.url) else "stale", info)


def uses_js_plugin(root: Path) -> bool:
    """The project installs the reference plugin: plain Vite writes dev.json, as the reference runs it."""
    return find_installed(root, f"{JS_PLUGIN}/package.json") is not None


def server_argv(root: Path, port: int | None) -> tuple[list[str], str]:
    """The detached command for this project, and how a failure names it."""
    if uses_js_plugin(root):
        vite = find_vite(root)
        node = shutil.which("node")
        if vite is None or node is None:
            raise DevServerError(
                f"No vite in {root} (node_modules/vite/bin/vite.js): run `npm install` in the project first."
            )
        extra = ["--port", str(port), "--strictPort"] if port is not None else []
        return [node, str(vite), *extra], "vite"
    extra = ["--port", str(port)] if port is not None else []
    return [sys.executable, "-m", "pix3net", "__dev-server", "--project", str(root), *extra], OURS


def predict_editor_url(root: Path, port: int | None) -> str | None:
    """Where a dev server about to start will serve the editor, so Chrome can start on it at once:
    ``--port``, else the first port from 5173 free on the loopback (the server's own rule, which
    it applies a moment later). None when plain Vite serves the project (its config decides).
    A wrong guess costs one navigation (browser.finish checks what the tab shows)."""
    if uses_js_plugin(root):
        return None
    if port is None:
        port = first_free_port()
    return f"http://localhost:{port}/__pix3/" if port is not None else None


class Starting:
    """A dev server spawned detached, not yet answering: :meth:`poll` until it does."""

    def __init__(
        self,
        root: Path,
        child: subprocess.Popen[bytes],
        name: str,
        previous: DevInfo | None,
        ready_pipe: ready.Pipe | None = None,
    ) -> None:
        self.root, self.child, self.name = root, child, name
        self.ready = ready_pipe  # our server says when it is up (plain Vite cannot: polled)
        self.old_pid = previous.pid if previous is not None else None
        self.deadline = time.monotonic() + START_TIMEOUT_S

    def poll(self, probe: Callable[[str], bool] = probe_hello) -> DevInfo | None:
        """The new record once it answers; None while starting; :class:`DevServerError` when the
        server exited or did not answer in time (a late one is stopped, not left behind)."""
        code = self.child.poll()
        info = read_dev_info(self.root)
        if info is not None and info.pid != self.old_pid and probe(info.url):
            return info
        if code is not None:
            raise DevServerError(f"{self.name} exited with code {code} (see {DEV_LOG}):\n{log_tail(self.root)}")
        if time.monotonic() >= self.deadline:
            self.stop()
            raise DevServerError(
                f"the dev server did not write {DEV_JSON} within {int(START_TIMEOUT_S * 1000)} ms"
                f" (see {DEV_LOG}):\n{log_tail(self.root)}"
            )
        return None

    def wait(self, probe: Callable[[str], bool] = probe_hello) -> DevInfo:
        while (info := self.poll(probe)) is None:
            ready.wait([self.ready], POLL_S if self.ready is None or self.ready.heard else QUIET_POLL_S)
        return info

    def stop(self) -> None:
        with contextlib.suppress(OSError):  # do not leave a half-started server behind
            if hasattr(os, "killpg"):
                os.killpg(self.child.pid, signal.SIGTERM)
            else:
                self.child.terminate()

    def end(self, grace: float = STOP_WAIT_S) -> None:
        """Stop a server started for one run (`pix3 smoke`): SIGTERM to its process group (it
        removes its record and stops its Vite), SIGKILL to what is left after ``grace``; reaped."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(OSError):
                os.killpg(self.child.pid, sig)
            try:
                self.child.wait(timeout=grace)
                return
            except subprocess.TimeoutExpired:
                continue


def _server_env() -> dict[str, str]:
    """The started server's environment: no colours in its log, and this pix3net importable by
    `python -m pix3net` from the project folder."""
    env = {**os.environ, "FORCE_COLOR": "0"}
    package_root = str(Path(__file__).resolve().parents[2])
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if package_root not in paths:
        env["PYTHONPATH"] = os.pathsep.join([package_root, *paths])
    return env


def spawn_server(
    root: Path,
    argv: list[str],
    pipe: ready.Pipe | None,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.Popen[bytes]:
    """``argv`` (``server_argv``) started in its own session in ``root``: no record of an earlier
    server left, its output in `.pix3/dev.log` (truncated: this start's only), ``pipe`` handed to
    it (`pix3net.daemon.ready`; None for plain Vite, which has none). `pix3 editor` and `pix3 smoke`.

    `.pix3` and dev.json are reached without following a link: a link where `.pix3` should be is
    a :class:`DevServerError` saying so, and nothing is started; a link or FIFO planted at dev.log
    is replaced by a file of our own, never written through (docs/reliability.md)."""
    try:
        with private_folder(root, create=True) as private:
            with contextlib.suppress(FileNotFoundError):
                private.unlink("dev.json")
            # this start's output only; a link or FIFO planted there is replaced (pix3net.daemon.logfile)
            log_file = open_in(private.fd, DEV_LOG.name)
    except Refused as exc:
        raise DevServerError(str(exc)) from None
    env = _server_env()
    if pipe is not None:
        pipe.child_env(env)
    try:
        # Append mode: the server opens the same file with O_APPEND; two offsets would overwrite.
        with log_file:
            return subprocess.Popen(
                argv,
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,  # detached: the terminal's signals never reach it
                pass_fds=(pipe.write_fd,) if pipe is not None else (),
                preexec_fn=preexec_fn,
            )
    finally:
        if pipe is not None:
            pipe.spawned()  # only the child holds the write end now


def spawn_dev_server(
    root: Path, port: int | None, previous: DevInfo | None, *, preexec_fn: Callable[[], None] | None = None
) -> Starting:
    """Start the server detached (it outlives this command unless ``preexec_fn`` ties it to this
    process: `pix3 smoke` passes `pids.dies_with_us`); returns at once."""
    argv, name = server_argv(root, port)
    pipe = ready.Pipe() if name == OURS else None
    try:
        child = spawn_server(root, argv, pipe, preexec_fn)
    except OSError as exc:
        if pipe is not None:
            pipe.close()
        raise DevServerError(f"could not start the dev server: {exc}") from None
    except BaseException:
        if pipe is not None:
            pipe.close()
        raise
    return Starting(root, child, name, previous, pipe)


def start_dev_server(
    root: Path, port: int | None, previous: DevInfo | None, probe: Callable[[str], bool] = probe_hello
) -> DevInfo:
    """Start the server detached and wait up to 15 s for a new record that answers."""
    return spawn_dev_server(root, port, previous).wait(probe)


class Stopped(NamedTuple):
    stopped: bool
    pid: int | None


def stop_dev_server(root: Path, wait_s: float = STOP_WAIT_S) -> Stopped:
    """SIGTERM to the recorded pid; a record whose process cannot be signalled is removed."""
    info = read_dev_info(root)
    if info is None:
        return Stopped(False, None)
    try:
        # 0 or a negative pid would signal a whole process group; one above Linux's PID_MAX_LIMIT
        # (2^22) is no process (a planted record: `kill` could not even take the number).
        if not 0 < info.pid <= 2**22:
            raise ProcessLookupError(info.pid)
        os.kill(info.pid, signal.SIGTERM)
    except OSError:
        with contextlib.suppress(OSError), private_folder(root) as private:
            private.unlink("dev.json")
        return Stopped(False, info.pid)
    deadline = time.monotonic() + wait_s  # the server removes its record as it goes
    while pid_alive(info.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return Stopped(True, info.pid)
