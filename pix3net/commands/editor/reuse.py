"""The reuse path of `pix3 editor`: everything already runs, so one probe of each daemon, no trio.

The dev server answered its ``hello`` (devserver.find_dev_server); here the proxy on the
preferred port proves it knows the token and lists the editor tab. Anything else — another
port, no proof, no tab — is the full Chrome step's business (browser.chrome_step), which
decides exactly as before: this path only answers the case where the answer cannot differ.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from pix3net.clients import probe
from pix3net.commands.editor import proxycalls
from pix3net.owner.chrome.discover import find_chrome
from pix3net.wire.token import ensure_token

# A healthy editor tab answers in milliseconds; a slower one goes the full way, which repairs it.
ANSWER_CHECK_SECONDS = 1.0
# Said when `pix3 editor` reuses a Chrome that runs headless for someone who did not ask for
# --headless: there is no window to look at, and this is how to get one (docs/editor.md, step 9).
HEADLESS_NOTE = (
    "            That Chrome runs headless, so it has no window: for one, stop it with `pix3 editor --stop-chrome`"
    " (the editor tabs of every project in it close), then run `pix3 editor` without --headless."
)


def reused_lines(browser: str | None, port: int, how: str, *, headless: bool, asked_headless: bool) -> list[str]:
    """The ``Chrome:`` line for a Chrome our proxy already runs (``(headless)`` when it is), and
    :data:`HEADLESS_NOTE` when it is headless and the user did not ask for that."""
    shown = f"{browser or 'unknown browser'}{' (headless)' if headless else ''}"
    lines = [f"Chrome:     {shown} already behind ws://127.0.0.1:{port}/pix3; {how}."]
    if headless and not asked_headless:
        lines.append(HEADLESS_NOTE)
    return lines


def reused_chrome(
    home: Path,
    editor_url: str,
    preferred: int,
    env: Mapping[str, str],
    platform: str = sys.platform,
    *,
    asked_headless: bool = False,
) -> tuple[int, str, list[str]] | None:
    """(port, token, the lines to print) when our proxy on ``preferred`` has the editor tab open."""
    if find_chrome(env, platform) is None:
        return None  # the Chrome step says "No Chrome found", as it always has
    token = ensure_token(home)
    seen = probe.ours(preferred, token)
    if seen is None or not any(page.startswith(editor_url) for page in seen.pages):
        return None
    # Open is not enough: a tab held by a script is the full step's to repair.
    target = proxycalls.page_id(preferred, token, editor_url)
    if target is None or not proxycalls.answers(preferred, token, target, ANSWER_CHECK_SECONDS):
        return None
    how = "the editor tab is open there"
    return (
        preferred,
        token,
        reused_lines(seen.browser, preferred, how, headless=seen.headless, asked_headless=asked_headless),
    )


def display_home_path(home: Path, name: str) -> str:
    """``~/.pix3/<name>`` for the default home (the reference's wording), the real path otherwise."""
    if home == Path.home() / ".pix3":
        return f"~/.pix3/{name}"
    return str(home / name)
