"""The Chrome a smoke run uses (docs/smoke.md, "The browser").

A headless Chrome owner of this ``PIX3_HOME`` that proves it knows our token is reused as one
more proxy client; every scene gets its own browser context there (created with
``disposeOnDetach``: if this process dies, the proxy detaches its session and Chrome drops the
context with it). Otherwise a private headless Chrome is launched over a pipe with the owner's
launch code, for this run only, and closed after it. Never a windowed Chrome, never a port.

The browser is sought as soon as the command knows it has a scene to run, in the background: a
private Chrome starts while the editor is flushed (and the scene argument resolved) and the dev
server is found (:meth:`BrowserSource.get` waits for it). A set is chosen before it, so a run with
nothing to run (an empty shard) starts no Chrome.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from pix3net.clients import probe
from pix3net.clients.cdp import bearer
from pix3net.clients.cdptrio import Closed, Connection, Gone, NotWebSocket, Rejected, WsClient, WsTransport
from pix3net.daemon.chromerecord import PROXY_PROTOCOL, read_record
from pix3net.owner.chrome.discover import find_chrome, no_chrome_message
from pix3net.owner.chrome.launch import ChromeProcess, chrome_args, needs_no_sandbox, spawn_chrome
from pix3net.owner.process import CLOSE_GRACE_SECONDS, wait_ready
from pix3net.wire.token import TOKEN_FILE, read_token

if TYPE_CHECKING:
    from pix3net.owner.chrome.pipe import PipeChannel

__all__ = ["Browser", "BrowserSource", "BrowserUnavailable", "Page", "PageMode", "open_browser"]

# A run must not phone home or update itself while it measures frames.
QUIET_FLAGS = ("--disable-background-networking", "--disable-component-update", "--disable-sync", "--mute-audio")
HEADLESS_MARK = "HeadlessChrome"  # in the user agent of a --headless=new Chrome
CONNECT_SECONDS = 5.0
CLOSE_PAGE_SECONDS = 5.0
PROFILE_PREFIX = "pix3-smoke-chrome-"
SHM = "/dev/shm"
SHM_MIN_FREE = 256 * 1024 * 1024  # a game's cached files go to the profile too


class PipeTransport:
    """A private Chrome's own pipe, as a transport of ``clients.cdptrio.Connection``."""

    def __init__(self, channel: PipeChannel) -> None:
        self._channel = channel

    async def send(self, text: str) -> None:
        await self._channel.send(text.encode())

    async def receive(self) -> str:
        try:
            raw = await self._channel.receive()
        except trio.EndOfChannel:
            raise Gone("Chrome closed its pipe") from None
        return raw.decode("utf-8", "replace")

    async def aclose(self) -> None:
        await self._channel.close()


class BrowserUnavailable(Exception):
    """No Chrome for the run: every scene becomes this failure (``code``, ``reason``)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True)
class PageMode:
    """How a page is prepared: frames under virtual time (else Chrome's own), and the game held
    at its first fault for a screenshot (``--output``). docs/smoke.md, "Faster than real time"."""

    virtual: bool = False
    capture: bool = False


@dataclass
class Page:
    """One scene's page: a fresh browser context and its one target (or a private Chrome's own
    first tab, ``context_id`` None), our session on it."""

    connection: Connection
    context_id: str | None
    target_id: str
    session: str
    events: trio.MemoryReceiveChannel[tuple[str, dict[str, Any]]]
    mode: PageMode = PageMode()

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.connection.call(method, params, self.session)

    async def close(self) -> None:
        """Dispose the context (its page with it), or close the first tab; shielded, bounded,
        never raises."""
        self.connection.forget(self.session)
        if self.context_id is not None:
            await _dispose(self.connection, self.context_id)
        else:
            await _bounded(self.connection, "Target.closeTarget", {"targetId": self.target_id})


async def _bounded(connection: Connection, method: str, params: dict[str, Any]) -> None:
    with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_PAGE_SECONDS), contextlib.suppress(Exception):
        await connection.call(method, params)


async def _dispose(connection: Connection, context_id: str) -> None:
    await _bounded(connection, "Target.disposeBrowserContext", {"browserContextId": context_id})


@dataclass
class Browser:
    connection: Connection
    product: str
    how: str  # for the report's note
    # A private Chrome's own first tab (about:blank, started with Chrome): the first page taken.
    first_tab: bool = False

    async def open_page(self) -> Page:
        if self.first_tab:
            self.first_tab = False
            page = await self._first_tab()
            if page is not None:
                return page
        call = self.connection.call
        context = (await call("Target.createBrowserContext", {"disposeOnDetach": True}))["browserContextId"]
        try:
            created = await call("Target.createTarget", {"url": "about:blank", "browserContextId": context})
            target = created["targetId"]
            session = (await call("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
        except BaseException:
            await _dispose(self.connection, context)
            raise
        return Page(self.connection, context, target, session, self.connection.listen(session))

    async def _first_tab(self) -> Page | None:
        """The tab a private Chrome opened at its start, when it has one: its renderer started
        with Chrome, and its profile is as fresh as a new context (nothing else ever ran in
        that Chrome). None when there is no such tab (yet): a fresh context is made instead."""
        call = self.connection.call
        infos = (await call("Target.getTargets")).get("targetInfos", [])
        tabs = [t for t in infos if isinstance(t, dict) and t.get("type") == "page" and t.get("url") == "about:blank"]
        if not tabs:
            return None
        target = str(tabs[0]["targetId"])
        session = (await call("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
        return Page(self.connection, None, target, session, self.connection.listen(session))


class BrowserSource:
    """Finds the browser in the background; :meth:`get` waits for it."""

    def __init__(self, nursery: trio.Nursery, home: Path, env: Mapping[str, str]) -> None:
        self._nursery = nursery
        self._home = home
        self._env = env
        self._ready = trio.Event()
        self._started = False
        self._browser: Browser | None = None
        self._failure: BrowserUnavailable | None = None
        self._client: WsClient | None = None
        self._chrome: ChromeProcess | None = None
        self._profile: str | None = None
        self._not_reused = ""  # why the recorded owner's port was not used, for the report's note

    def start(self) -> None:
        """Start looking for the browser (once)."""
        if not self._started:
            self._started = True
            self._nursery.start_soon(self.acquire)

    async def get(self) -> Browser:
        """The browser (looked for now if it was not yet); raises :class:`BrowserUnavailable`."""
        self.start()
        await self._ready.wait()
        if self._browser is None:
            raise self._failure or BrowserUnavailable("E_SMOKE_CRASH", "Chrome did not start.")
        return self._browser

    async def acquire(self) -> None:
        try:
            self._browser = await self._reuse_owner() or await self._launch_private()
        except BrowserUnavailable as failure:
            self._failure = failure
        except Exception as exc:  # anything else is reported the same way, as a run that could not be
            self._failure = BrowserUnavailable("E_SMOKE_CRASH", f"could not get a Chrome: {exc}")
        finally:
            self._ready.set()

    async def _reuse_owner(self) -> Browser | None:
        """A proxy client of this home's running headless owner, when it proves our token."""
        record = read_record(self._home)
        token = read_token(self._home / TOKEN_FILE)
        if record is None or token is None or record.proxy != PROXY_PROTOCOL:
            return None  # nothing to reuse: the private Chrome starts without loading the proxy client
        # the proof on a plain socket (pix3net.clients.probe): a smoke run does not pay httpx's import for one GET
        kind, detail = await trio.to_thread.run_sync(probe.prove, record.port, token)
        if kind == "closed":
            detail = await trio.to_thread.run_sync(probe.squatted, record.port)
        if kind != "ours":
            if detail:  # a squatter or a relay on the recorded port: never the token, and say so
                self._not_reused = (
                    f"; the Chrome owner recorded in chrome.json was not used: {detail} —"
                    f" stop what holds port {record.port}, then run `pix3 editor --headless` to reuse an owner"
                )
            return None
        with trio.move_on_after(CONNECT_SECONDS):
            try:
                client = await WsClient.connect(record.port, "/pix3", [bearer(token)])
            except (Rejected, Closed, NotWebSocket, OSError):
                return None
            self._client = client
            connection = Connection(WsTransport(client))
            self._nursery.start_soon(connection.run)
            try:
                version = await connection.call("Browser.getVersion")
            except Exception:
                version = None
            if isinstance(version, dict) and HEADLESS_MARK in str(version.get("userAgent", "")):
                how = f"the running Chrome owner on port {record.port}, in a fresh browser context"
                return Browser(connection, str(version.get("product", "Chrome")), how)
        # A windowed Chrome (a person's editor window) is never used; nor one that does not answer.
        await self._close_client()
        return None

    async def _launch_private(self) -> Browser:
        binary = find_chrome(self._env, sys.platform)
        if binary is None:
            raise BrowserUnavailable("E_SMOKE_UNSUPPORTED", no_chrome_message(sys.platform))
        self._profile = tempfile.mkdtemp(prefix=PROFILE_PREFIX, dir=profile_parent(self._env))
        args = chrome_args(
            self._profile, "about:blank", headless=True, no_sandbox=needs_no_sandbox(), extra=QUIET_FLAGS
        )
        # Chrome's own temporary folder (its singleton socket) inside the profile: a quick exit
        # leaves it behind, and it goes with the profile.
        env = {**self._env, "TMPDIR": self._profile}
        try:
            chrome = spawn_chrome(binary, args, env)
        except OSError as exc:
            raise BrowserUnavailable("E_SMOKE_CRASH", f"could not start Chrome ({binary}): {exc}") from None
        self._chrome = chrome
        self._nursery.start_soon(chrome.reap)
        self._nursery.start_soon(chrome.pump_stderr)
        product, why = await wait_ready(chrome)
        if product is None:
            tail = "\n".join(chrome.stderr_tail)
            raise BrowserUnavailable("E_SMOKE_CRASH", f"{why} ({binary})" + (f":\n{tail}" if tail else ""))
        connection = Connection(PipeTransport(chrome.channel))
        self._nursery.start_soon(connection.run)
        how = f"a private headless Chrome started for this run{self._not_reused}"
        return Browser(connection, product, how, first_tab=True)

    async def _close_client(self) -> None:
        if self._client is not None:
            with trio.CancelScope(shield=True):
                await self._client.aclose()
            self._client = None

    async def close(self) -> None:
        """Leave the owner (the proxy detaches us), or end the private Chrome and its profile."""
        await self._close_client()
        chrome = self._chrome
        if chrome is not None:
            with trio.CancelScope(shield=True):
                await _end_chrome(chrome)
        if self._profile is not None:
            with trio.CancelScope(shield=True):
                await _wait_children(self._profile)
            shutil.rmtree(self._profile, ignore_errors=True)


def profile_parent(env: Mapping[str, str], shm: str = SHM) -> str | None:
    """Where the private profile goes: ``$TMPDIR`` when it is set; else memory (``/dev/shm``, a
    tmpfs) when it is a writable folder with room; else the system's temporary folder (None).

    Chrome writes ~200 files (SQLite databases, caches) into a new profile: on a disk their
    writes slow Chrome's start and their removal costs 50–450 ms on a busy machine, ~2 ms on a
    tmpfs (docs/smoke.md, "The browser")."""
    if env.get("TMPDIR"):
        return env["TMPDIR"]
    try:
        stats = os.statvfs(shm)
    except OSError:
        return None
    if stats.f_bavail * stats.f_frsize < SHM_MIN_FREE or not os.access(shm, os.W_OK | os.X_OK):
        return None
    return shm


async def _end_chrome(chrome: ChromeProcess) -> None:
    """SIGTERM (Chrome's quick exit: ~30 ms against ~300 ms for ``Browser.close``), then SIGKILL
    after the owner's grace period; reaped either way."""
    if chrome.exit_status is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(chrome.pid, signal.SIGTERM)
        with trio.move_on_after(CLOSE_GRACE_SECONDS):
            await chrome.exited.wait()
    if chrome.exit_status is None:
        chrome.kill()
        with trio.move_on_after(CLOSE_GRACE_SECONDS):
            await chrome.exited.wait()
    await chrome.channel.close()


def _children(marker: str) -> list[int]:
    """Pids of live processes whose environment holds ``marker`` (Chrome's helpers inherit our
    ``TMPDIR=<profile>``; the browser process itself is gone by then). Linux only; else none."""
    needle = f"TMPDIR={marker}\0".encode()
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as handle:
                    environ = handle.read() + b"\0"
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    state = handle.read().rsplit(b")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if needle in environ and state != b"Z":
                found.append(int(entry.name))
    return found


async def _wait_children(profile: str) -> None:
    """Chrome's helper processes (GPU, network, zygotes, crashpad) exit within ~50 ms of the
    browser; wait for them before removing the profile they may still write to, and end any
    that outlive the grace period."""
    with trio.move_on_after(CLOSE_GRACE_SECONDS):
        while _children(profile):  # noqa: ASYNC110 - no event tells when another process exits
            await trio.sleep(0.01)
        return
    for pid in _children(profile):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


@contextlib.asynccontextmanager
async def open_browser(home: Path, env: Mapping[str, str], *, early: bool = True) -> AsyncIterator[BrowserSource]:
    """Start looking for the browser now (``early``) or at the first :meth:`BrowserSource.get`;
    everything it started is gone when the block ends."""
    async with trio.open_nursery() as nursery:
        source = BrowserSource(nursery, home, env)
        if early:
            source.start()
        try:
            yield source
        finally:
            await source.close()
            nursery.cancel_scope.cancel()
