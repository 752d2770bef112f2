"""The Chrome step of `pix3 editor`: choose the port, reuse our proxy or start the owner, and make
sure the editor tab is really there (docs/editor.md, "The flow", step 9).

A missing tab is always opened through the proxy: the profile is never launched a second time,
so no Chrome runs that its owner does not know. The step comes in three parts so the cold start
can overlap them with the dev server's (together.py): :func:`prepare` (port, checks, the owner
spawned — on ``about:blank`` when the editor's address is not known yet), waiting for the owner's
proof (:meth:`Prepared.check`), and :func:`finish` (the tab, once the address is known).
Plain sockets throughout (`proxycalls`): no trio on the way of a normal start.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from pix3net.clients import cdpsocket, probe
from pix3net.clients.cdp import CallError
from pix3net.commands.editor import proxycalls
from pix3net.commands.editor.forwardports import drop_gone
from pix3net.commands.editor.reuse import display_home_path, reused_lines
from pix3net.daemon import ready
from pix3net.daemon.chromerecord import profile_dir, read_record
from pix3net.owner.chrome.diagnose import launch_failure, profile_holder
from pix3net.owner.chrome.discover import chrome_problem, find_chrome, no_chrome_message
from pix3net.owner.control import QUIET_POLL_S, START_POLL_SECONDS, OwnerStartError, StartedOwner, StartingOwner
from pix3net.owner.options import OwnerOptions
from pix3net.wire.token import ensure_token

TAB_WAIT_S = 10.0  # a launched or created tab shows up in /json/list well within this
# An editor tab answers a trivial evaluation in milliseconds; one held this long by a script is
# repaired (the bound for the editor tab answering after a loop).
ANSWER_S = 3.0
# The owner's watchdog replaces a held editor tab within its bounds (2 s silent, 0.5 s to pause,
# 2 s to come back): a repaired tab answers within this.
REPAIR_S = 8.0
REPAIR_POLL_S = 0.2
TAB_POLL_S = 0.02
# The load of the tab a cold start launched is what `pix3 editor` waits for last: its document is
# asked through a page client already attached (one loopback round trip, well under 1 ms), so
# the question is asked often and the answer is not left waiting for a 20 ms tick.
LOAD_POLL_S = 0.005
CHROME_ERROR = "chrome-error:"  # the scheme of the page Chrome shows when a navigation failed
RELOAD_AFTER_S = 1.0


class ChromeStepError(RuntimeError):
    """What `pix3 editor: ` prints on stderr before exiting 1."""


class ChromeResult(NamedTuple):
    port: int
    token: str


class Prepared:
    """The Chrome step up to the launch: the port chosen, our proxy found or an owner starting.
    (Plain classes and NamedTuples on this way, no dataclasses: `pix3 editor` imports all of it
    before it spawns the owner, and a cold start waits for Chrome.)"""

    def __init__(self, home: Path, token: str, choice: proxycalls.Choice, headless: bool) -> None:
        self.home, self.token, self.choice, self.headless = home, token, choice, headless
        self.profile = ""
        self.launch_url = ""
        self.starting: StartingOwner | None = None
        self.started: StartedOwner | None = None

    def check(self) -> bool:
        """True once there is nothing to wait for (our proxy, or the owner's proof arrived)."""
        if self.starting is None or self.started is not None:
            return True
        try:
            self.started = self.starting.check(probe.proves(self.choice.port, self.token))
        except OwnerStartError as exc:
            raise ChromeStepError(str(exc)) from exc
        return self.started is not None

    def wait(self) -> None:
        while not self.check():
            pipe = self.starting.ready if self.starting is not None else None
            ready.wait([pipe], START_POLL_SECONDS if pipe is None or pipe.heard else QUIET_POLL_S)

    def stop(self) -> None:
        """The other half of the start failed: the owner started here goes (it closes Chrome)."""
        if self.starting is not None:
            self.starting.stop()


def legacy_message(port: int, browser: str | None, profile: str) -> str:
    return (
        f"port {port} is {browser or 'unknown browser'} started by an earlier pix3 editor with an open debugging"
        " port and no token — any local process can drive it. Close that Chrome (every window of the Pix3"
        f" profile {profile}) and run pix3 editor again: Chrome now runs behind the token proxy."
    )


def _wait_for_tab(port: int, token: str, url: str, wait_s: float) -> bool:
    deadline = time.monotonic() + wait_s
    while True:
        if any(page.startswith(url) for page in proxycalls.page_urls(port, token)):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(TAB_POLL_S)


def _open_and_check(port: int, token: str, url: str, *, new_window: bool, launched_on: str | None = None) -> None:
    how = "Page.navigate"
    try:
        if not (launched_on and proxycalls.open_in_first(port, token, launched_on, url)):
            how = "Target.createTarget"
            proxycalls.open_tab(port, token, url, new_window=new_window)
    except Exception as exc:
        raise ChromeStepError(f"could not open the editor in the running Chrome: {exc}") from exc
    if not _wait_for_tab(port, token, url, TAB_WAIT_S):
        raise ChromeStepError(
            f"could not open the editor in the running Chrome: no tab at {url} in the proxy's /json/list"
            f" on port {port} after {how}"
        )
    # Listed is not loaded: a new tab names its URL before its document is there, and may name
    # none for a moment after (an agent listing pages right after `pix3 editor` returned saw "").
    _loaded(port, token, url)


def _loaded(port: int, token: str, url: str) -> None:
    """Chrome was launched on ``url`` before the dev server was surely listening: the tab may show
    Chrome's error page (listed under the URL it failed to load) — then it is loaded again (again
    each second while it still shows the error: a load of ours can lose to Chrome's own retry).
    One page client asks, attached once (each attach is work for the Chrome loading the page)."""
    deadline = time.monotonic() + TAB_WAIT_S
    loaded_at: float | None = None
    page: cdpsocket.Session | None = None
    try:
        while True:
            where = ""
            if page is None and (target := proxycalls.page_id(port, token, url)) is not None:
                with contextlib.suppress(CallError):  # the page between processes: find it again
                    page = proxycalls.page_session(port, token, target)
            if page is not None:
                try:
                    where = proxycalls.location(page)
                except CallError:
                    page.close()
                    page = None
            if where.startswith(url):
                return
            now = time.monotonic()
            again = loaded_at is None or now - loaded_at >= RELOAD_AFTER_S
            if page is not None and where.startswith(CHROME_ERROR) and again:
                try:
                    page.call("Page.navigate", {"url": url})
                    loaded_at = now
                except CallError:
                    page.close()
                    page = None
            if now >= deadline:
                break
            time.sleep(LOAD_POLL_S)  # the first, empty document, or a load on its way
    except Exception as exc:
        raise ChromeStepError(f"could not open the editor in the running Chrome: {exc}") from exc
    finally:
        if page is not None:
            page.close()
    raise ChromeStepError(f"the editor tab at {url} did not load on port {port} (a Chrome error page, or nothing)")


def prepare(
    home: Path,
    url: str | None,
    *,
    preferred: int,
    headless: bool,
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
    emit: Callable[[str], None] = print,
) -> Prepared:
    """Find Chrome, choose the port, and spawn the owner when the port is free (on ``url``, or on
    ``about:blank`` while the editor's address is not known). Lines go to ``emit``."""
    env = os.environ if env is None else env
    binary = find_chrome(env, platform)
    if binary is None:
        raise ChromeStepError(no_chrome_message(platform))
    token = ensure_token(home)
    record = read_record(home)
    try:
        choice = proxycalls.choose(preferred, token, record.port if record is not None else None)
    except proxycalls.NoPort as exc:
        raise ChromeStepError(str(exc)) from exc
    for port, detail in choice.skipped:
        emit(f"Port {port}: {detail}")
    if choice.kind == "legacy":
        profile = record.profile if record is not None else str(profile_dir(home, env))
        raise ChromeStepError(legacy_message(choice.port, choice.browser, profile))
    prepared = Prepared(home, token, choice, headless)
    if choice.kind == "ours":
        return prepared
    problem = chrome_problem(binary, env)
    if problem is not None:
        raise ChromeStepError(problem)
    prepared.profile = str(profile_dir(home, env))
    holder = profile_holder(prepared.profile)
    if holder is not None:
        raise ChromeStepError(
            launch_failure(
                "Chrome was not launched", profile=prepared.profile, headless=headless, exit_code=None,
                stderr_tail=(), env=env, holder=holder,
            )
        )  # fmt: skip
    drop_gone(home)  # no forward of an owner that is gone may prove through the new one
    prepared.launch_url = url or proxycalls.BLANK
    options = OwnerOptions(binary, choice.port, prepared.profile, prepared.launch_url, headless)
    prepared.starting = StartingOwner(home, options, env)
    return prepared


def editor_tab_answers(port: int, token: str, url: str, *, headless: bool) -> str:
    """The editor tab at ``url`` is open: check that it answers, and repair it when it does not
    (the owner's own tab is replaced by its watchdog; another is closed and opened again). What
    happened, for the ``Chrome:`` line; raises :class:`ChromeStepError` when it stays silent."""
    target = proxycalls.page_id(port, token, url)
    if target is None or proxycalls.answers(port, token, target, ANSWER_S):
        return "the editor tab is open there"
    closed = proxycalls.close_target(port, token, target)
    deadline = time.monotonic() + REPAIR_S
    opened = False
    while time.monotonic() < deadline:
        now = proxycalls.page_id(port, token, url)
        if now is not None and now != target and proxycalls.answers(port, token, now, ANSWER_S):
            return f"the editor tab did not answer within {ANSWER_S:g} s, so it was opened again"
        if now is None and closed and not opened:
            proxycalls.open_tab(port, token, url, new_window=not headless)
            opened = True
        time.sleep(REPAIR_POLL_S)
    raise ChromeStepError(
        f"the editor tab at {url} on port {port} does not answer and could not be opened again:"
        " run `pix3 editor --stop-chrome`, then `pix3 editor`."
    )


def finish(prepared: Prepared, url: str, emit: Callable[[str], None] = print) -> ChromeResult:
    """The editor tab, once the owner answers and ``url`` is known; the ``Chrome:`` line."""
    choice, token = prepared.choice, prepared.token
    endpoint = f"ws://127.0.0.1:{choice.port}/pix3"
    if prepared.starting is None:  # our proxy already ran
        if any(page.startswith(url) for page in choice.pages):
            how = editor_tab_answers(choice.port, token, url, headless=choice.headless)
        else:
            _open_and_check(choice.port, token, url, new_window=not choice.headless)
            how = f"opened the editor in a new {'tab' if choice.headless else 'window'}"
        for line in reused_lines(choice.browser, choice.port, how, headless=choice.headless,
                                 asked_headless=prepared.headless):  # fmt: skip
            emit(line)
        return ChromeResult(choice.port, token)
    if prepared.launch_url != url:
        _open_and_check(choice.port, token, url, new_window=not prepared.headless, launched_on=prepared.launch_url)
    # A binary that ignores --app (a headless shell) still gets its tab: check, open if missing.
    elif not _wait_for_tab(choice.port, token, url, TAB_WAIT_S / 2):
        _open_and_check(choice.port, token, url, new_window=not prepared.headless)
    else:
        _loaded(choice.port, token, url)
    emit(
        f"Chrome:     launched behind the CDP proxy {endpoint}"
        f" (token in {display_home_path(prepared.home, 'cdp-token')}; profile {prepared.profile})"
    )
    return ChromeResult(choice.port, token)


def chrome_step(
    home: Path,
    url: str,
    *,
    preferred: int,
    headless: bool,
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
    emit: Callable[[str], None] = print,
) -> ChromeResult:
    """Launch or reuse Chrome behind the proxy with the editor tab at ``url`` open."""
    prepared = prepare(home, url, preferred=preferred, headless=headless, env=env, platform=platform, emit=emit)
    prepared.wait()
    return finish(prepared, url, emit)
