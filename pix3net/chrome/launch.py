"""Chrome's command lines and its launch with the debugging pipe on fds 3 and 4.

See docs/chrome-owner.md, "Command lines" and "The pipe".

The child is started with ``os.posix_spawn``: its file actions put /dev/null on stdin and stdout,
a pipe on stderr and the two debugging pipes on fds 3 and 4. Our ends are first duplicated above
fd 9, so the two ``dup2`` calls never collide with each other or with a pipe that ``os.pipe()``
happened to return as 3 or 4 (a ``dup2(3, 3)`` would keep close-on-exec and
Chrome would lose the fd).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import sys
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import trio

from pix3net.chrome.pipe import PipeChannel, open_pipes

# The flags every pix3 Chrome gets, in the reference's order.
COMMON_FLAGS = (
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
)
# Chrome's sandbox cannot start as root (containers, CI): added only when the effective uid is 0.
NO_SANDBOX = "--no-sandbox"
# Diagnostics when Chrome does not answer: the last lines it wrote on stderr.
STDERR_TAIL_LINES = 20
# Fds at or above this are free of the 0–4 that the child's file actions write to.
_HIGH_FD = 10
# Exit-status polling where pidfd is missing (macOS); Linux waits on a pidfd instead.
_POLL_EXIT_SECONDS = 0.05


def needs_no_sandbox(euid: int | None = None) -> bool:
    return (os.geteuid() if euid is None else euid) == 0


def chrome_args(
    profile: str, url: str, *, headless: bool = False, no_sandbox: bool = False, extra: Sequence[str] = ()
) -> list[str]:
    """The owner's launch: never ``--remote-debugging-port``; headless ends with ``--headless=new <url>``.

    ``extra`` flags go before the mode (`pix3 smoke`'s private Chrome adds its quiet flags).
    """
    args = [f"--user-data-dir={profile}", "--remote-debugging-pipe", *COMMON_FLAGS]
    if no_sandbox:
        args.append(NO_SANDBOX)
    args += extra
    args += ["--headless=new", url] if headless else [f"--app={url}"]
    return args


def handoff_args(profile: str, url: str, *, no_sandbox: bool = False) -> list[str]:
    """A second project into a running windowed Chrome: no debugging flag at all."""
    return [f"--user-data-dir={profile}", *COMMON_FLAGS, *([NO_SANDBOX] if no_sandbox else []), f"--app={url}"]


def spawn_handoff(binary: str, args: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Start the handoff launch detached and forget it (Chrome's singleton takes the URL over).

    Its own session, stdio on /dev/null; never waited for (``posix_spawn``: no ``Popen`` left to warn).
    """
    devnull = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    environ = os.environ if env is None else env
    try:
        return os.posix_spawn(binary, [binary, *args], environ, file_actions=devnull, setsid=True)
    except NotImplementedError:  # no POSIX_SPAWN_SETSID here: its own process group will do
        return os.posix_spawn(binary, [binary, *args], environ, file_actions=devnull, setpgroup=0)


def describe_status(status: int) -> str:
    """``code <n|->, signal <s|->`` for a wait status (the reference's wording)."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = str(number)
        return f"code -, signal {name}"
    if os.WIFEXITED(status):
        return f"code {os.WEXITSTATUS(status)}, signal -"
    return "code -, signal -"


@dataclass
class ChromeProcess:
    """A running Chrome: its pid, the pipe, its stderr tail and its exit."""

    pid: int
    channel: PipeChannel
    _stderr_fd: int
    stderr_tail: deque[str] = field(default_factory=lambda: deque(maxlen=STDERR_TAIL_LINES))
    exit_status: int | None = None
    exited: trio.Event = field(default_factory=trio.Event)
    stderr_closed: trio.Event = field(default_factory=trio.Event)

    @property
    def exit_code(self) -> int | None:
        """The exit code when Chrome exited normally (None while it runs, or after a signal)."""
        if self.exit_status is None or not os.WIFEXITED(self.exit_status):
            return None
        return os.WEXITSTATUS(self.exit_status)

    @property
    def exit_description(self) -> str:
        return "pipe closed" if self.exit_status is None else describe_status(self.exit_status)

    def kill(self) -> None:
        """SIGKILL Chrome unless it has already been reaped (its pid could be someone else's by now)."""
        if self.exit_status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    async def reap(self) -> None:
        """Wait for Chrome to exit (the one task that reaps it): sets :attr:`exit_status` and
        :attr:`exited`, then ends the channel (a grandchild may still hold the pipe open)."""
        self.exit_status = await _wait_pid(self.pid)
        self.exited.set()
        self.channel.drain_and_close()

    async def pump_stderr(self) -> None:
        """Read Chrome's stderr until it closes, keeping the last non-empty lines."""
        stream = trio.lowlevel.FdStream(self._stderr_fd)
        partial = b""
        try:
            while chunk := await stream.receive_some(65536):
                lines = (partial + chunk).split(b"\n")
                partial = lines.pop()
                for line in lines:
                    self._keep(line)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        finally:
            self._keep(partial)
            self.stderr_closed.set()
            await stream.aclose()

    def _keep(self, line: bytes) -> None:
        text = line.decode("utf-8", "replace").rstrip()
        if text.strip():
            self.stderr_tail.append(text)


def spawn_chrome(binary: str, args: Sequence[str], env: dict[str, str] | None = None) -> ChromeProcess:
    """Start Chrome with the debugging pipe on its fds 3 (commands in) and 4 (replies out).

    Raises ``OSError`` when the binary cannot be started (missing, not executable).
    """
    (ours_write, chromes_read), (ours_read, chromes_write) = open_pipes()
    err_read, err_write = os.pipe()
    # Copies above fd 9 (close-on-exec): the dup2s below then have distinct sources and targets.
    high_read = _dup_high(chromes_read)
    high_write = _dup_high(chromes_write)
    high_err = _dup_high(err_write)
    for fd in (chromes_read, chromes_write, err_write):
        os.close(fd)
    try:
        pid = os.posix_spawn(
            binary,
            [binary, *args],
            os.environ if env is None else env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, high_err, 2),
                (os.POSIX_SPAWN_DUP2, high_read, 3),
                (os.POSIX_SPAWN_DUP2, high_write, 4),
            ],
            # Python ignores SIGPIPE and SIGXFSZ; an ignored signal stays ignored across exec.
            setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
        )
    except BaseException:
        for fd in (ours_write, ours_read, err_read):
            os.close(fd)
        raise
    finally:
        for fd in (high_read, high_write, high_err):
            os.close(fd)
    return ChromeProcess(pid=pid, channel=PipeChannel(ours_write, ours_read), _stderr_fd=err_read)


def _dup_high(fd: int) -> int:
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD)


async def _wait_pid(pid: int) -> int:
    """Wait for a child without a thread: a pidfd on Linux, short polls elsewhere."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is not None and sys.platform == "linux":
        try:
            pidfd = pidfd_open(pid)
        except OSError:
            pidfd = -1
        if pidfd >= 0:
            try:
                await trio.lowlevel.wait_readable(pidfd)
            finally:
                os.close(pidfd)
            return os.waitpid(pid, 0)[1]  # noqa: ASYNC222 (the pidfd says it exited: no wait)
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)  # noqa: ASYNC222 (WNOHANG never blocks)
        if done:
            return status
        await trio.sleep(_POLL_EXIT_SECONDS)
