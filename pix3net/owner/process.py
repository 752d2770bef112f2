"""`pix3 __chrome-owner '<json>'`: the process that owns Chrome through its pipe and serves the proxy.

See docs/chrome-owner.md, "The owner process".

It lives exactly as long as Chrome. Chrome gone (closed, crashed, ``Browser.close``) → the proxy
closes its clients (1001), the record goes, exit 0. The owner gone (even SIGKILLed) → Chrome's
pipe closes and Chrome exits by itself. One nursery; Chrome is SIGKILLed on every other way out.

Exit codes: 0 Chrome is gone (or a signal asked us to stop); 2 bad options; 3 Chrome did not
answer ``Browser.getVersion``; 4 the proxy cannot listen.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, cast

import trio

from pix3net.daemon import ready
from pix3net.daemon.chromerecord import PROXY_PROTOCOL, ChromeRecord, remove_record, write_record
from pix3net.owner.chrome.diagnose import launch_failure, profile_holder
from pix3net.owner.chrome.launch import ChromeProcess, adopt
from pix3net.owner.chrome.spawn import RawChrome
from pix3net.owner.options import OwnerOptions
from pix3net.owner.proxy.channel import ChromeChannel
from pix3net.owner.start import (
    EXIT_BAD_OPTIONS,
    EXIT_CANNOT_LISTEN,
    EXIT_NOT_READY,
    EXIT_OK,
    EXIT_PROXY_FAILED,
    Log,
    launch,
    make_log,
    parse_options,
)
from pix3net.wire.token import ensure_token
from pix3tools.core.timestamps import iso_time

__all__ = [
    "EXIT_BAD_OPTIONS",
    "EXIT_CANNOT_LISTEN",
    "EXIT_NOT_READY",
    "EXIT_OK",
    "EXIT_PROXY_FAILED",
    "make_log",
    "own_chrome",
    "parse_options",
    "run_owner",
    "wait_ready",
]

# Readiness, the wait for an exit status, and Browser.close's grace before SIGKILL.
READY_SECONDS = 20.0
EXIT_REASON_SECONDS = 2.0
CLOSE_GRACE_SECONDS = 3.0
# Our own calls on the pipe use id 0: the proxy's counter starts at 1, so a late answer to one
# of ours can never be taken for a client's.
OWN_CALL_ID = 0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class ServeProxy(Protocol):
    def __call__(
        self,
        channel: ChromeChannel,
        *,
        token: str,
        port: int,
        home: Path,
        log: Log,
        task_status: trio.TaskStatus[int] = ...,
        editor_url: str = ...,
    ) -> Awaitable[None]: ...


def not_ready_lines(why: str, options: OwnerOptions, chrome: ChromeProcess, env: Mapping[str, str]) -> list[str]:
    """The log entries of a launch that did not answer: what Chrome said, then the cause, last
    (`pix3 editor` leads its error with the owner's last entry)."""
    tail = list(chrome.stderr_tail)
    holder = profile_holder(options.profile)
    if holder == chrome.pid:
        holder = None  # our own Chrome, not reaped yet
    cause = launch_failure(
        why,
        profile=options.profile,
        headless=options.headless,
        exit_code=chrome.exit_code,
        stderr_tail=tail,
        env=env,
        holder=holder,
    )
    return (["Chrome said:\n" + "\n".join(tail)] if tail else []) + [cause]


async def _call(channel: ChromeChannel, method: str) -> dict[str, Any] | None:
    """One of the owner's own calls; the reply (None if Chrome is gone first)."""
    await channel.send(json.dumps({"id": OWN_CALL_ID, "method": method}).encode())
    while True:
        try:
            raw = await channel.receive()
        except trio.EndOfChannel:
            return None
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == OWN_CALL_ID:
            return message


async def wait_ready(chrome: ChromeProcess) -> tuple[str | None, str]:
    """Readiness: ``(product, "")`` once Chrome answers ``Browser.getVersion``, else ``(None, why)``."""
    with trio.move_on_after(READY_SECONDS):
        reply = await _call(chrome.channel, "Browser.getVersion")
        if reply is not None:
            result = reply.get("result")
            product = result.get("product") if isinstance(result, dict) else None
            return (product if isinstance(product, str) else "Chrome"), ""
        # The pipe closed: give the exit status a moment to arrive, it says more.
        with trio.move_on_after(EXIT_REASON_SECONDS):
            await chrome.exited.wait()
        return None, f"Chrome exited before it answered ({chrome.exit_description})"
    return None, f"Chrome did not answer within {int(READY_SECONDS * 1000)} ms"


class _Stopper:
    """SIGTERM/SIGINT/SIGHUP: ``Browser.close`` over the pipe, SIGKILL after 3 s; a second signal kills at once."""

    def __init__(self, chrome: ChromeProcess, log: Log) -> None:
        self.chrome = chrome
        self.log = log
        self.requested = False

    async def run(self, nursery: trio.Nursery, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
            task_status.started()
            async for signum in signals:
                if self.requested:
                    self.chrome.kill()
                    continue
                self.requested = True
                self.log(f"{signal.Signals(signum).name}: closing Chrome")
                nursery.start_soon(self._close)

    async def _close(self) -> None:
        message = json.dumps({"id": OWN_CALL_ID, "method": "Browser.close"}).encode()
        async with trio.open_nursery() as nursery:
            # A hung Chrome with a full pipe: the send waits (a message is never cut in half, so
            # it cannot be cancelled) and must not hold the grace and the kill, which ends it.
            nursery.start_soon(self.chrome.channel.send, message)
            with trio.move_on_after(CLOSE_GRACE_SECONDS):
                await self.chrome.exited.wait()
            self.chrome.kill()


async def run_owner(
    options: OwnerOptions,
    *,
    home: Path,
    log: Log,
    serve: ServeProxy,
    launched: RawChrome | None = None,
    ready_fd: int | None = None,
) -> int:
    """The owner's life (docs/chrome-owner.md, "The owner process", steps 1–7); returns the exit code.

    ``launched``: steps 1–2 already done before trio was imported (:func:`start.launch`).
    """
    raw = launch(options, home, log) if launched is None else launched
    if isinstance(raw, int):
        return raw
    token = ensure_token(home)
    chrome = adopt(raw)
    try:
        async with trio.open_nursery() as nursery:
            code = await _own(
                chrome, options, token=token, home=home, log=log, serve=serve, nursery=nursery, ready_fd=ready_fd
            )
            nursery.cancel_scope.cancel()
        return code
    finally:
        chrome.kill()


async def _own(
    chrome: ChromeProcess,
    options: OwnerOptions,
    *,
    token: str,
    home: Path,
    log: Log,
    serve: ServeProxy,
    nursery: trio.Nursery,
    ready_fd: int | None = None,
) -> int:
    nursery.start_soon(chrome.pump_stderr)
    nursery.start_soon(chrome.reap)
    stopper = _Stopper(chrome, log)
    await nursery.start(stopper.run, nursery)

    product, why = await wait_ready(chrome)
    if product is None:
        if stopper.requested:
            log(f"Chrome is gone ({chrome.exit_description})")
            return EXIT_OK
        chrome.kill()
        with trio.move_on_after(EXIT_REASON_SECONDS):  # its last words
            await chrome.stderr_closed.wait()
        for entry in not_ready_lines(why, options, chrome, os.environ):
            log(entry)
        return EXIT_NOT_READY

    proxy_done = trio.Event()
    listening = False
    failure: list[str] = []

    async def serve_then_signal(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        def started(bound: int) -> None:
            nonlocal listening
            listening = True
            task_status.started(bound)

        try:
            status = cast("trio.TaskStatus[int]", _Started(started))  # only ``started(port)`` is called
            await serve(
                chrome.channel,
                token=token,
                port=options.port,
                home=home,
                log=log,
                task_status=status,
                editor_url=options.url,
            )
        except Exception as error:
            if not listening:
                raise  # the start's own failure: cannot listen (below)
            # A failure of the proxy itself (a bug): Chrome is closed, the record removed, and
            # the log says why, instead of a traceback and a record naming a dead proxy.
            failure.append(f"the CDP proxy failed ({type(error).__name__}: {error}); closing Chrome")
            log(failure[0])
            chrome.kill()
        finally:
            proxy_done.set()

    try:
        port: int = await nursery.start(serve_then_signal)
    except OSError as exc:
        chrome.kill()
        log(f"cannot listen on 127.0.0.1:{options.port}: {exc}")
        return EXIT_CANNOT_LISTEN

    write_record(
        home,
        ChromeRecord(
            port=port,
            profile=options.profile,
            started_at=iso_time(),
            editor_url=options.url,
            owner_pid=os.getpid(),
            chrome_pid=chrome.pid,
            proxy=PROXY_PROTOCOL,
        ),
    )
    log(f"{product} (pid {chrome.pid}) behind ws://127.0.0.1:{port}/pix3")
    ready.say_ready(ready_fd)

    # The proxy returns once the pipe ends: Chrome closed it, or its process exited (the reaper
    # then ends the channel). Either way Chrome is gone or about to be.
    await proxy_done.wait()
    with trio.move_on_after(EXIT_REASON_SECONDS):
        await chrome.exited.wait()
    log(f"Chrome is gone ({chrome.exit_description})")
    remove_record(home, os.getpid())
    return EXIT_PROXY_FAILED if failure else EXIT_OK


class _Started:
    """A task status that lets the caller know the proxy listens before passing the port on."""

    def __init__(self, started: Callable[[int], None]) -> None:
        self.started = started


async def _serve_proxy(
    channel: ChromeChannel,
    *,
    token: str,
    port: int,
    home: Path,
    log: Log,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
    editor_url: str = "",
) -> None:
    from pix3net.owner.proxy.transport import serve_proxy

    await serve_proxy(
        channel,
        token=token,
        port=port,
        home=home,
        log=log,
        task_status=task_status,
        editor_url=editor_url,
        watchdog=True,  # the owner watches the editor tab and its game (docs/chrome-owner.md)
    )


def own_chrome(
    options: OwnerOptions, home: Path, log: Log, launched: RawChrome | None = None, ready_fd: int | None = None
) -> int:
    """Run the owner in this process until Chrome is gone (the body of ``pix3 __chrome-owner``);
    ``ready_fd``: the parent's readiness pipe (`pix3net.daemon.ready`), told once ``chrome.json`` is written."""
    return trio.run(
        lambda: run_owner(options, home=home, log=log, serve=_serve_proxy, launched=launched, ready_fd=ready_fd)
    )
