"""The calls `pix3 editor` makes on the CDP side, in one place, in the editor's own terms: choose a
port, list the pages, open or navigate the editor tab, prove a forward.

A normal start needs no more than a few loopback requests, so they go over plain sockets
(`pix3net.clients.probe`, `pix3net.clients.cdpsocket`); `pix3net.clients.port`'s full inspection (trio) is loaded
only for a port that is neither free nor ours — another user's proxy, a 1.x Chrome, a squatter.
The token only ever goes to a port that proved it knows it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pix3net.clients import cdpsocket, probe
from pix3net.clients.cdp import CallError, proxy_path
from pix3net.wire import proof

__all__ = [
    "BLANK",
    "Choice",
    "NoPort",
    "choose",
    "location",
    "navigate",
    "open_in_first",
    "open_tab",
    "page_id",
    "page_session",
    "page_urls",
    "prove",
]


BLANK = "about:blank"  # what a Chrome launched before the dev server answered shows first
# How the proxy's views of its clients name this command's own short connections.
CLIENT_NAME = "pix3-editor"


class Choice(NamedTuple):
    port: int
    kind: str  # free | ours | legacy
    browser: str | None
    pages: list[str]
    skipped: tuple[tuple[int, str], ...] = ()
    headless: bool = False  # ours: that Chrome runs headless (it has tabs, no windows)


class NoPort(RuntimeError):
    pass


def choose(preferred: int, token: str, recorded_port: int | None) -> Choice:
    """The preferred port when nothing listens there or our proxy does; else the port the owner
    recorded when our proxy proves itself there (the preferred port is skipped, with what holds
    it); else the full inspection of the range (docs/editor.md, step 9), which decides the same
    for the first two cases."""
    if probe.refused(preferred):
        return Choice(preferred, "free", None, [])
    seen = probe.ours(preferred, token)
    if seen is not None:
        return Choice(preferred, "ours", seen.browser, seen.pages, headless=seen.headless)
    if recorded_port is not None and recorded_port != preferred:
        recorded = probe.ours(recorded_port, token)
        if recorded is not None:
            kind, detail = probe.prove(preferred, token, also=(recorded_port,))
            skipped = ((preferred, detail),) if kind == "foreign" else ()
            return Choice(recorded_port, "ours", recorded.browser, recorded.pages, skipped, recorded.headless)
    return _inspect_range(preferred, token, recorded_port)


def _inspect_range(preferred: int, token: str, recorded_port: int | None) -> Choice:
    from functools import partial

    import trio

    from pix3net.clients import port as cdp_port

    try:
        chosen = trio.run(partial(cdp_port.choose_port, token, preferred=preferred, recorded_port=recorded_port))
    except cdp_port.NoFreePort as exc:
        raise NoPort(str(exc)) from exc
    found = chosen.inspection
    seen = probe.ours(chosen.port, token) if found.kind == "ours" else None
    headless = seen is not None and seen.headless
    return Choice(chosen.port, found.kind, found.browser, list(found.pages), tuple(chosen.skipped), headless)


def page_urls(port: int, token: str) -> list[str]:
    """Page URLs of the proxy's `/json/list` (only for a port that proved it is ours)."""
    return proof.page_urls(probe.targets(port, token))


def open_tab(port: int, token: str, url: str, *, new_window: bool) -> None:
    params: dict[str, object] = {"url": url}
    if new_window:
        params["newWindow"] = True
    # keep: the tab outlives this short connection (docs/cdp-proxy.md, "Ownership and protection")
    cdpsocket.call(port, token, "Target.createTarget", params, path=proxy_path(client=CLIENT_NAME, keep=True))


def page_id(port: int, token: str, url_prefix: str) -> str | None:
    """The id of the first page whose URL starts with ``url_prefix`` (``about:blank``: the blank one)."""
    targets: list[dict[str, Any]] = probe.targets(port, token)
    for target in targets:
        url, ident = target.get("url"), target.get("id")
        if target.get("type") in (None, "page") and isinstance(url, str) and url.startswith(url_prefix):
            return ident if isinstance(ident, str) else None
    return None


def answers(port: int, token: str, target: str, seconds: float) -> bool:
    """Does the page's main thread answer a trivial evaluation within ``seconds``? (A listed tab
    may be held by a script: the owner's watchdog ends that, docs/chrome-owner.md.)"""
    params = {"expression": "1", "returnByValue": True}
    try:
        cdpsocket.call(port, token, "Runtime.evaluate", params, path=proxy_path(target), timeout=seconds)
    except CallError:
        return False
    return True


def close_target(port: int, token: str, target: str) -> bool:
    """Close a page; False when the proxy refused it (the owner's own editor tab: its watchdog
    replaces it) or it was gone."""
    try:
        cdpsocket.call(port, token, "Target.closeTarget", {"targetId": target})
    except CallError:
        return False
    return True


def navigate(port: int, token: str, target: str, url: str) -> None:
    cdpsocket.call(port, token, "Page.navigate", {"url": url}, path=proxy_path(target, client=CLIENT_NAME))


def page_session(port: int, token: str, target: str) -> cdpsocket.Session:
    """A client of one page through the proxy, kept for several calls (attached once)."""
    return cdpsocket.open_session(port, token, proxy_path(target, client=CLIENT_NAME))


def location(page: cdpsocket.Session) -> str:
    """What the page's document really is: ``location.href`` (an error page says ``chrome-error:``
    there while the target list still names the URL it failed to load); "" while it changes.
    Raises :class:`CallError` only when the page client itself is gone."""
    params = {"expression": "location.href", "returnByValue": True}
    try:
        answer = page.call("Runtime.evaluate", params)
    except CallError as exc:
        if "closed" in str(exc):
            raise
        return ""  # between documents ("Cannot find default execution context"): ask again
    value = answer.get("result", {}).get("value") if isinstance(answer, dict) else None
    return value if isinstance(value, str) else ""


def open_in_first(port: int, token: str, launched_on: str, url: str) -> bool:
    """Navigate the page Chrome was launched on (blank, or a wrong guess of the address) to ``url``:
    the window ``--app`` opened keeps its looks. False when there is no such page."""
    first = page_id(port, token, launched_on)
    if first is None:
        return False
    navigate(port, token, first, url)
    return True


def prove(port: int, token: str, *, forward: bool) -> tuple[str, str]:
    """(kind, detail) of the proof check: ``ours``, ``closed`` or ``foreign`` with its detail."""
    return probe.prove(port, token, forward=forward)
