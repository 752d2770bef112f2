"""Chrome's command lines and its start with the debugging pipe on fds 3 and 4 — standard library
only, so the owner can launch Chrome before it imports trio and the proxy (its start then overlaps
Chrome's). See docs/chrome-owner.md, "Command lines" and "The pipe".

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
from collections.abc import Mapping, Sequence
from typing import NamedTuple

# The flags every pix3 Chrome gets, in the reference's order, then ours: WebMCP (the page's
# `document.modelContext` and the `WebMCP` CDP domain) is behind a feature flag in Chromium 156
# (docs/bridge.md, "WebMCP").
COMMON_FLAGS = (
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--enable-features=WebMCP",
)
# Chrome's sandbox cannot start as root (containers, CI): added only when the effective uid is 0.
NO_SANDBOX = "--no-sandbox"
# Fds at or above this are free of the 0–4 that the child's file actions write to.
_HIGH_FD = 10
# Chrome's pipes get a 1 MiB kernel buffer (a big message is ~30 reads instead of ~460).
PIPE_SIZE = 1024 * 1024


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


class RawChrome(NamedTuple):
    """A Chrome just started: its pid and our fds — the pipe's write end (Chrome's fd 3), its read
    end (Chrome's fd 4) and the read end of its stderr."""

    pid: int
    write_fd: int
    read_fd: int
    stderr_fd: int


def widen_pipe(fd: int, size: int = PIPE_SIZE) -> None:
    """Raise a pipe's kernel buffer (Linux; best effort, the default 64 KiB still works)."""
    setsz = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsz is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, setsz, size)


def open_pipes() -> tuple[tuple[int, int], tuple[int, int]]:
    """The two pipes of a Chrome launch: ``(ours_write, chromes_read)`` and ``(ours_read, chromes_write)``.

    Every fd is close-on-exec (PEP 446); the launcher moves Chrome's two ends to fds 3 and 4.
    """
    to_chrome_read, to_chrome_write = os.pipe()
    from_chrome_read, from_chrome_write = os.pipe()
    widen_pipe(to_chrome_write)
    widen_pipe(from_chrome_read)
    return (to_chrome_write, to_chrome_read), (from_chrome_read, from_chrome_write)


def spawn_raw(binary: str, args: Sequence[str], env: Mapping[str, str] | None = None) -> RawChrome:
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
    return RawChrome(pid, ours_write, ours_read, err_read)


def _dup_high(fd: int) -> int:
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD)
