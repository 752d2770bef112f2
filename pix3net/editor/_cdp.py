"""The few calls `pix3 editor` makes on the CDP side, in one place (`pix3net.cdp.port` and the
light `probe` do the work).

Thin adapters, so the editor flow reads in its own terms: choose a port, list the pages, open the
editor, prove a forward. The token only ever goes to a port that proved it knows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import trio

from pix3net.cdp import port as cdp_port
from pix3net.editor import probe

BLANK = "about:blank"  # what a Chrome launched before the dev server answered shows first


@dataclass(frozen=True)
class Choice:
    port: int
    kind: str  # free | ours | legacy
    browser: str | None
    pages: list[str]
    skipped: list[tuple[int, str]] = field(default_factory=list)


class NoPort(RuntimeError):
    pass


async def choose(preferred: int, token: str, recorded_port: int | None) -> Choice:
    try:
        chosen = await cdp_port.choose_port(token, preferred=preferred, recorded_port=recorded_port)
    except cdp_port.NoFreePort as exc:
        raise NoPort(str(exc)) from exc
    found = chosen.inspection
    return Choice(chosen.port, found.kind, found.browser, list(found.pages), list(chosen.skipped))


async def ours(port: int, token: str) -> probe.Ours | None:
    """The proxy's own view (browser, user agent, tabs) once it proves the token; else None."""
    return await trio.to_thread.run_sync(probe.ours, port, token)


async def is_ours(port: int, token: str) -> bool:
    """Only the proof: how `pix3 editor` waits for an owner it started."""
    return await trio.to_thread.run_sync(partial(probe.proves, port, token))


async def page_urls(port: int, token: str) -> list[str]:
    """Page URLs of the proxy's `/json/list` (only for a port that proved it is ours)."""
    return probe.page_urls(await cdp_port.list_targets(port, token))


async def open_tab(port: int, token: str, url: str, *, new_window: bool) -> None:
    params: dict[str, object] = {"url": url}
    if new_window:
        params["newWindow"] = True
    await cdp_port.proxy_call(port, token, "Target.createTarget", params)


async def open_in_blank(port: int, token: str, url: str) -> bool:
    """Navigate the blank first page of a Chrome launched before the URL was known (the window
    ``--app`` opened keeps its looks); False when there is no such page."""
    targets: list[dict[str, Any]] = await cdp_port.list_targets(port, token)
    blank = next((t for t in targets if t.get("type") in (None, "page") and t.get("url") == BLANK), None)
    if blank is None or not isinstance(blank.get("id"), str):
        return False
    await cdp_port.proxy_call(port, token, "Page.navigate", {"url": url}, path=f"/pix3/page/{blank['id']}")
    return True


async def prove(port: int, token: str, *, forward: bool) -> tuple[str, str]:
    """(kind, detail) of the proof check: ``ours``, ``closed`` or ``foreign`` with its detail."""
    proof = await cdp_port.prove_proxy(port, token, forward=forward)
    return proof.kind, proof.detail
