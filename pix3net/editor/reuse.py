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

from pix3net import probe
from pix3net.cdp.token import ensure_token
from pix3net.chrome.discover import find_chrome


def reused_chrome(
    home: Path, editor_url: str, preferred: int, env: Mapping[str, str], platform: str = sys.platform
) -> tuple[int, str, str] | None:
    """(port, token, the ``Chrome:`` line) when our proxy on ``preferred`` has the editor tab open."""
    if find_chrome(env, platform) is None:
        return None  # the Chrome step says "No Chrome found", as it always has
    token = ensure_token(home)
    seen = probe.ours(preferred, token)
    if seen is None or not any(page.startswith(editor_url) for page in seen.pages):
        return None
    line = f"Chrome:     {seen.browser} already behind ws://127.0.0.1:{preferred}/pix3; the editor tab is open there."
    return preferred, token, line


def display_home_path(home: Path, name: str) -> str:
    """``~/.pix3/<name>`` for the default home (the reference's wording), the real path otherwise."""
    if home == Path.home() / ".pix3":
        return f"~/.pix3/{name}"
    return str(home / name)
