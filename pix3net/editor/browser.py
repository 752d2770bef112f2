"""The Chrome step of `pix3 editor`: choose the port, reuse our proxy or start the owner, and make
sure the editor tab is really there (docs/editor.md, "The flow", step 9; docs/cdp-proxy.md,
"Port inspection").

A missing tab is always opened through the proxy (``Target.createTarget``): the profile is never
launched a second time, so no Chrome runs that its owner does not know.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import trio

from pix3net.cdp.token import ensure_token
from pix3net.chrome.control import OwnerStartError, start_owner
from pix3net.chrome.discover import find_chrome, no_chrome_message
from pix3net.chrome.state import profile_dir, read_record
from pix3net.editor import _cdp

TAB_WAIT_S = 10.0  # a launched or created tab shows up in /json/list well within this
TAB_POLL_S = 0.1


class ChromeStepError(RuntimeError):
    """What `pix3 editor: ` prints on stderr before exiting 1."""


@dataclass(frozen=True)
class ChromeResult:
    port: int
    token: str


def display_home_path(home: Path, name: str) -> str:
    """``~/.pix3/<name>`` for the default home (the reference's wording), the real path otherwise."""
    if home == Path.home() / ".pix3":
        return f"~/.pix3/{name}"
    return str(home / name)


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


async def _open_and_check(port: int, token: str, url: str, headless: bool) -> None:
    try:
        await _cdp.open_tab(port, token, url, new_window=not headless)
    except Exception as exc:
        raise ChromeStepError(f"could not open the editor in the running Chrome: {exc}") from exc
    if not await _wait_for_tab(port, token, url, TAB_WAIT_S):
        raise ChromeStepError(
            f"could not open the editor in the running Chrome: no tab at {url} in the proxy's /json/list"
            f" on port {port} after Target.createTarget"
        )


async def chrome_step(
    home: Path,
    editor_url: str,
    *,
    preferred: int,
    headless: bool,
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
    emit: Callable[[str], None] = print,
) -> ChromeResult:
    """Launch or reuse Chrome behind the proxy with the editor tab open; lines go to ``emit``."""
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
    endpoint = f"ws://127.0.0.1:{choice.port}/pix3"
    if choice.kind == "ours":
        if any(page.startswith(editor_url) for page in choice.pages):
            how = "the editor tab is open there"
        else:
            await _open_and_check(choice.port, token, editor_url, headless)
            how = "opened the editor in a new window"
        emit(f"Chrome:     {choice.browser or 'unknown browser'} already behind {endpoint}; {how}.")
        return ChromeResult(choice.port, token)
    profile = str(profile_dir(home, env))
    try:
        await start_owner(
            home, chrome=binary, port=choice.port, profile=profile, url=editor_url, headless=headless, env=env
        )
    except OwnerStartError as exc:
        raise ChromeStepError(str(exc)) from exc
    # A binary that ignores --app (a headless shell) still gets its tab: check, open if missing.
    if not await _wait_for_tab(choice.port, token, editor_url, TAB_WAIT_S / 2):
        await _open_and_check(choice.port, token, editor_url, headless)
    emit(
        f"Chrome:     launched behind the CDP proxy {endpoint}"
        f" (token in {display_home_path(home, 'cdp-token')}; profile {profile})"
    )
    return ChromeResult(choice.port, token)
