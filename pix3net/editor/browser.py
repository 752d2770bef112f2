"""The Chrome step of `pix3 editor`: choose the port, reuse our proxy or start the owner, and make
sure the editor tab is really there (docs/editor.md, the flow, step 9).

A missing tab is always opened through the proxy: the profile is never launched a second time,
so no Chrome runs that its owner does not know. When the dev server is still starting, Chrome is
launched on ``about:blank`` at the same time and the blank page is sent to the editor once the
server's record names it — the two starts overlap instead of adding up.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import trio

from pix3net.cdp.token import ensure_token
from pix3net.chrome.control import OwnerStartError, start_owner, terminate_owner
from pix3net.chrome.discover import chrome_problem, find_chrome, no_chrome_message
from pix3net.chrome.launch import launch_failure, profile_holder
from pix3net.chrome.state import profile_dir, read_record
from pix3net.editor import _cdp
from pix3net.editor.forwards import drop_gone
from pix3net.editor.reuse import display_home_path

TAB_WAIT_S = 10.0  # a launched or created tab shows up in /json/list well within this
TAB_POLL_S = 0.02


class ChromeStepError(RuntimeError):
    """What `pix3 editor: ` prints on stderr before exiting 1."""


@dataclass(frozen=True)
class ChromeResult:
    port: int
    token: str


@dataclass
class EditorUrl:
    """The editor URL: known now (a live dev server) or once the starting one answers."""

    url: str | None = None
    known: trio.Event = field(default_factory=trio.Event)

    def __post_init__(self) -> None:
        if self.url is not None:
            self.known.set()

    def set(self, url: str) -> None:
        self.url = url
        self.known.set()

    async def wait(self) -> str:
        await self.known.wait()
        assert self.url is not None
        return self.url


def legacy_message(port: int, browser: str | None, profile: str) -> str:
    return (
        f"port {port} is {browser or 'unknown browser'} started by an earlier pix3 editor with an open debugging"
        " port and no token — any local process can drive it. Close that Chrome (every window of the Pix3"
        f" profile {profile}) and run pix3 editor again: Chrome now runs behind the token proxy."
    )


async def _wait_for_tab(port: int, token: str, url: str, wait_s: float) -> bool:
    with trio.move_on_after(wait_s):
        while True:
            if any(page.startswith(url) for page in await _cdp.page_urls(port, token)):
                return True
            await trio.sleep(TAB_POLL_S)
    return False


async def _open_and_check(port: int, token: str, url: str, *, new_window: bool, blank: bool = False) -> None:
    how = "Page.navigate" if blank else "Target.createTarget"
    try:
        if not (blank and await _cdp.open_in_blank(port, token, url)):
            how = "Target.createTarget"
            await _cdp.open_tab(port, token, url, new_window=new_window)
    except Exception as exc:
        raise ChromeStepError(f"could not open the editor in the running Chrome: {exc}") from exc
    if not await _wait_for_tab(port, token, url, TAB_WAIT_S):
        raise ChromeStepError(
            f"could not open the editor in the running Chrome: no tab at {url} in the proxy's /json/list"
            f" on port {port} after {how}"
        )


async def _reuse(port: int, token: str, editor: EditorUrl, browser: str | None, pages: list[str]) -> str:
    """Our proxy runs: the tab is there, or opened (a tab in a headless Chrome, else a window)."""
    url = await editor.wait()
    if any(page.startswith(url) for page in pages):
        how = "the editor tab is open there"
    else:
        seen = await _cdp.ours(port, token)
        headless = seen is not None and seen.headless
        await _open_and_check(port, token, url, new_window=not headless)
        how = f"opened the editor in a new {'tab' if headless else 'window'}"
    return f"Chrome:     {browser or 'unknown browser'} already behind ws://127.0.0.1:{port}/pix3; {how}."


async def chrome_step(
    home: Path,
    editor: EditorUrl,
    *,
    preferred: int,
    headless: bool,
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
    emit: Callable[[str], None] = print,
    started: list[int] | None = None,
) -> ChromeResult:
    """Launch or reuse Chrome behind the proxy with the editor tab open; lines go to ``emit``.

    The pid of an owner started here is appended to ``started`` as soon as it answers, so a caller
    whose other half failed (the dev server) can stop it.
    """
    env = os.environ if env is None else env
    binary = find_chrome(env, platform)
    if binary is None:
        raise ChromeStepError(no_chrome_message(platform))
    token = ensure_token(home)
    record = read_record(home)
    try:
        choice = await _cdp.choose(preferred, token, record.port if record is not None else None)
    except _cdp.NoPort as exc:
        raise ChromeStepError(str(exc)) from exc
    for port, detail in choice.skipped:
        emit(f"Port {port}: {detail}")
    if choice.kind == "legacy":
        profile = record.profile if record is not None else str(profile_dir(home, env))
        raise ChromeStepError(legacy_message(choice.port, choice.browser, profile))
    if choice.kind == "ours":
        emit(await _reuse(choice.port, token, editor, choice.browser, choice.pages))
        return ChromeResult(choice.port, token)
    problem = chrome_problem(binary, env)
    if problem is not None:
        raise ChromeStepError(problem)
    profile = str(profile_dir(home, env))
    holder = profile_holder(profile)
    if holder is not None:
        raise ChromeStepError(
            launch_failure(
                "Chrome was not launched", profile=profile, headless=headless, exit_code=None,
                stderr_tail=(), env=env, holder=holder,
            )
        )  # fmt: skip
    drop_gone(home)  # no forward of an owner that is gone may prove through the new one
    launch_url = editor.url or _cdp.BLANK
    try:
        owner = await start_owner(
            home,
            chrome=binary,
            port=choice.port,
            profile=profile,
            url=launch_url,
            headless=headless,
            env=env,
            is_ours=_cdp.is_ours,
        )
    except OwnerStartError as exc:
        raise ChromeStepError(str(exc)) from exc
    if started is not None:
        started.append(owner.pid)
    url = await editor.wait()
    if launch_url != url:
        await _open_and_check(choice.port, token, url, new_window=not headless, blank=True)
    # A binary that ignores --app (a headless shell) still gets its tab: check, open if missing.
    elif not await _wait_for_tab(choice.port, token, url, TAB_WAIT_S / 2):
        await _open_and_check(choice.port, token, url, new_window=not headless)
    emit(
        f"Chrome:     launched behind the CDP proxy ws://127.0.0.1:{choice.port}/pix3"
        f" (token in {display_home_path(home, 'cdp-token')}; profile {profile})"
    )
    return ChromeResult(choice.port, token)


def stop_started(started: list[int]) -> None:
    """Stop the owners a failed `pix3 editor` started (its dev server never came up)."""
    for pid in started:
        terminate_owner(pid)
