"""A running Chrome under trio: its pipe as a channel, its stderr tail, its exit (started by
``pix3net.owner.chrome.spawn``, the standard-library part of the launch; docs/chrome-owner.md, "The pipe").
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import trio

from pix3net.owner.chrome.pipe import PipeChannel
from pix3net.owner.chrome.spawn import (
    COMMON_FLAGS,
    NO_SANDBOX,
    RawChrome,
    chrome_args,
    handoff_args,
    needs_no_sandbox,
    spawn_handoff,
    spawn_raw,
)

__all__ = [
    "COMMON_FLAGS",
    "NO_SANDBOX",
    "ChromeProcess",
    "adopt",
    "chrome_args",
    "describe_status",
    "handoff_args",
    "needs_no_sandbox",
    "spawn_chrome",
    "spawn_handoff",
]

# Diagnostics when Chrome does not answer: the last lines it wrote on stderr.
STDERR_TAIL_LINES = 20
# Exit-status polling where pidfd is missing (macOS); Linux waits on a pidfd instead.
_POLL_EXIT_SECONDS = 0.05


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


def spawn_chrome(binary: str, args: Sequence[str], env: Mapping[str, str] | None = None) -> ChromeProcess:
    """Start Chrome with the debugging pipe on its fds 3 (commands in) and 4 (replies out).

    Raises ``OSError`` when the binary cannot be started (missing, not executable).
    """
    return adopt(spawn_raw(binary, args, env))


def adopt(raw: RawChrome) -> ChromeProcess:
    """A Chrome started by :func:`~pix3net.owner.chrome.spawn.spawn_raw`, now served by trio (in a run)."""
    return ChromeProcess(pid=raw.pid, channel=PipeChannel(raw.write_fd, raw.read_fd), _stderr_fd=raw.stderr_fd)


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
