"""The few calls `pix3 editor` makes on the CDP side, in one place (`pix3net.cdp.port` does the work).

Thin adapters, so the editor flow reads in its own terms: choose a port, list the pages, open a
tab, prove a forward. The token only ever goes to a port that proved it knows it (cdp.port).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pix3net.cdp import port as cdp_port


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


async def page_urls(port: int, token: str) -> list[str]:
    """Page URLs of the proxy's `/json/list` (only for a port that proved it is ours)."""
    targets = await cdp_port.list_targets(port, token)
    return [str(t.get("url", "")) for t in targets if t.get("type") in (None, "page")]


async def open_tab(port: int, token: str, url: str, *, new_window: bool) -> None:
    params: dict[str, object] = {"url": url}
    if new_window:
        params["newWindow"] = True
    await cdp_port.proxy_call(port, token, "Target.createTarget", params)


async def prove(port: int, token: str, *, forward: bool) -> tuple[str, str]:
    """(kind, detail) of the proof check: ``ours``, ``closed`` or ``foreign`` with its detail."""
    proof = await cdp_port.prove_proxy(port, token, forward=forward)
    return proof.kind, proof.detail
