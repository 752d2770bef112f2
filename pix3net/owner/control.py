"""The parent's side of the owner: start it and wait until its proxy proves itself, stop it.

See docs/chrome-owner.md, "The parent's side".

`pix3 editor` calls these; the owner itself never does. The token is written before the owner
is spawned, so both sides read the same file, and it only ever travels in the owner's proxy
checks after the port has proven it knows it (``inspect_port``).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from pix3net.daemon import ready
from pix3net.daemon.chromerecord import log_path, read_record
from pix3net.daemon.logfile import tail_lines
from pix3net.daemon.pids import pid_alive
from pix3net.owner.options import OwnerOptions
from pix3net.wire.token import ensure_token

# The owner's own 20 s readiness plus 2 s (docs/chrome-owner.md, "The parent's side"). The
# reference polls every 150 ms; a refused connect costs microseconds, and the proxy is usually
# up 150–300 ms after the spawn.
START_WAIT_SECONDS = 22.0
START_POLL_SECONDS = 0.02
# The owner says on its readiness pipe when it is up (`pix3net.daemon.ready`): the poll is a safety net.
QUIET_POLL_S = 0.25
STOP_WAIT_SECONDS = 6.0
STOP_POLL_SECONDS = 0.1
LOG_TAIL_LINES = 12
# An entry of the owner's log: `<ISO time>Z [owner <pid>] <text>` (owner.make_log).
_OWNER_LINE = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+Z \[owner \d+\] ")

# `ours` → True: the port answers with the proof of our token. Injected so tests and the
# editor can pass the real `pix3net.clients.port` check (or a fake).
PortIsOurs = Callable[[int, str], Awaitable[bool]]


class OwnerStartError(Exception):
    """The owner did not come up; the message is what `pix3 editor: ` prints before exiting 1."""


class StartedOwner(NamedTuple):
    pid: int
    port: int
    log: Path


def _log_lines(log: Path) -> list[str]:
    try:
        return tail_lines(os.open(log, os.O_RDONLY | os.O_CLOEXEC))
    except OSError:
        return []


def _log_tail(log: Path) -> str:
    return "\n".join(_log_lines(log)[-LOG_TAIL_LINES:])


def exit_message(code: int, log: Path) -> str:
    """Why the owner exited, for `pix3 editor: `: its last log entry (the cause, with what to do)
    first, then the end of its log; the reference's ``the Chrome owner exited (code <n>) — …``
    when the log has no entry of the owner's."""
    lines = _log_lines(log)
    last = next((i for i in range(len(lines) - 1, -1, -1) if _OWNER_LINE.match(lines[i])), None)
    if last is None:
        return f"the Chrome owner exited (code {code}) — {log}:\n{_log_tail(log)}"
    match = _OWNER_LINE.match(lines[last])
    reason = lines[last][match.end() :] if match is not None else lines[last]
    before = "\n".join(lines[max(0, last - LOG_TAIL_LINES) : last])
    return f"{reason}\nThe Chrome owner exited (code {code}); the end of {log}:\n{before}".rstrip("\n")


def _owner_env(env: Mapping[str, str], home: Path) -> dict[str, str]:
    """The parent's environment, naming the parent's home (one token, one record) and with this
    pix3net importable by ``python -m pix3net``."""
    out = dict(env)
    out["PIX3_HOME"] = str(home)
    root = str(Path(__file__).resolve().parents[2])
    parts = [p for p in out.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in parts:
        out["PYTHONPATH"] = os.pathsep.join([root, *parts])
    return out


async def _default_is_ours(port: int, token: str) -> bool:
    from pix3net.clients.port import inspect_port

    return bool((await inspect_port(port, token)).kind == "ours")


def spawn_owner(
    home: Path, options: OwnerOptions, env: Mapping[str, str], ready_pipe: ready.Pipe | None = None
) -> tuple[int, str, Path]:
    """Truncate the log, make sure of the token, spawn the owner detached; (pid, token, log path).

    ``posix_spawn`` rather than ``subprocess``: the owner is never waited for by this process
    (it outlives `pix3 editor`), and a ``Popen`` left running warns when it is collected.
    ``ready_pipe``: the owner writes to it once its proxy listens and ``chrome.json`` is written
    (`pix3net.daemon.ready`).
    """
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    log = log_path(home)
    token = ensure_token(home)  # before the spawn: owner and parent agree on one token
    argv = [sys.executable, "-m", "pix3net", "__chrome-owner", options.to_argv()]
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)  # only the newest owner's log survives
    child_env = _owner_env(env, home)
    if ready_pipe is not None:
        ready_pipe.child_env(child_env)
        os.set_inheritable(ready_pipe.write_fd, True)  # its number stays the same in the owner
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, fd, 1),
        (os.POSIX_SPAWN_DUP2, fd, 2),
    ]
    try:
        try:  # detached: its own session, so the terminal's signals never reach it
            pid = os.posix_spawn(sys.executable, argv, child_env, file_actions=actions, setsid=True)
        except NotImplementedError:
            pid = os.posix_spawn(sys.executable, argv, child_env, file_actions=actions, setpgroup=0)
    finally:
        os.close(fd)
        if ready_pipe is not None:
            ready_pipe.spawned()
    return pid, token, log


def _exit_code(pid: int) -> int | None:
    """The owner's exit code once it has exited (reaping it), else None."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return -1
    return os.waitstatus_to_exitcode(status) if done else None


class StartingOwner:
    """An owner spawned detached whose proxy has not proven itself yet: :meth:`check` until it has.

    The caller asks the port (with whatever client it has) and hands the answer in, so the same
    rules serve the async :func:`start_owner` and `pix3 editor`'s plain loop.
    """

    def __init__(self, home: Path, options: OwnerOptions, env: Mapping[str, str]) -> None:
        self.port = options.port
        self.ready = ready.Pipe()  # wakes the waiting parent the moment the proxy listens (or the owner dies)
        try:
            self.pid, self.token, self.log = spawn_owner(home, options, env, self.ready)
        except BaseException:
            self.ready.close()
            raise
        self.deadline = time.monotonic() + START_WAIT_SECONDS

    def check(self, proved: bool) -> StartedOwner | None:
        """``proved``: the port just answered with the proof of our token. None: keep waiting.

        Raises :class:`OwnerStartError`: the owner's last log entry (the cause) and the end of its
        log (:func:`exit_message`), or ``the CDP proxy did not come up — <log>:\n<tail>`` after a
        SIGTERM to a stuck owner.
        """
        if proved:
            return StartedOwner(pid=self.pid, port=self.port, log=self.log)
        code = _exit_code(self.pid)
        if code is not None:
            raise OwnerStartError(exit_message(code, self.log))
        if time.monotonic() >= self.deadline:
            self.stop()
            raise OwnerStartError(f"the CDP proxy did not come up — {self.log}:\n{_log_tail(self.log)}")
        return None

    def stop(self) -> None:
        terminate_owner(self.pid)


async def start_owner(
    home: Path,
    *,
    chrome: str,
    port: int,
    profile: str,
    url: str,
    headless: bool = False,
    env: Mapping[str, str] | None = None,
    is_ours: PortIsOurs | None = None,
) -> StartedOwner:
    """Spawn ``pix3 __chrome-owner`` detached and return once its proxy on ``port`` proves our token
    (:class:`StartingOwner` says how it fails). Cancelled while waiting (the caller gave up): the
    owner is sent SIGTERM too, so no Chrome is left behind that nobody asked for.
    """
    import trio

    is_ours = is_ours or _default_is_ours
    options = OwnerOptions(chrome=chrome, port=port, profile=profile, url=url, headless=headless)
    starting = StartingOwner(home, options, os.environ if env is None else env)
    pipe = starting.ready
    try:
        while True:  # the proxy's proof decides; the owner's pipe only says when to ask
            started = starting.check(await is_ours(port, starting.token))
            if started is not None:
                return started
            with trio.move_on_after(START_POLL_SECONDS):
                if pipe.heard:  # heard already: a plain poll
                    await trio.sleep_forever()
                await trio.lowlevel.wait_readable(pipe.read_fd)
                pipe.hear()
    except BaseException:
        starting.stop()
        raise
    finally:
        pipe.close()


def terminate_owner(pid: int) -> None:
    """SIGTERM an owner this process started (it closes Chrome); never waits."""
    if pid > 0 and _exit_code(pid) is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


def _alive(pid: int) -> bool:
    # Our own child would linger as a zombie that `kill(pid, 0)` still finds: reap it first.
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)
    return pid_alive(pid)


def stop_owner(home: Path, *, sleep: Callable[[float], None] = time.sleep) -> str:
    """``--stop-chrome``: SIGTERM the recorded owner and wait up to 6 s; returns the line to print.

    Never deletes the record (the owner does, when Chrome is gone). Exit code is 0 either way.
    """
    record = read_record(home)
    if record is None or record.owner_pid is None:
        return "No Chrome owner recorded in ~/.pix3/chrome.json."
    pid = record.owner_pid
    stopped = False
    try:
        # kill(0) or kill(-n) would signal whole process groups; a dead owner (a zombie its
        # parent has not reaped yet takes a signal too) is not running, not stopped by us
        if pid <= 0 or not _alive(pid):
            raise ProcessLookupError(pid)
        os.kill(pid, signal.SIGTERM)
    except OSError:
        pass
    else:
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        while True:
            if not _alive(pid):
                stopped = True
                break
            if time.monotonic() >= deadline:
                break
            sleep(STOP_POLL_SECONDS)
    if stopped:
        return f"Stopped Chrome and its CDP proxy on port {record.port} (owner pid {pid})."
    return f"The Chrome owner recorded (pid {pid}) is not running or did not stop."
