"""The few calls `pix3 editor` makes on the CDP side, in one place (pix3net.cdp.port does the work).

Each is a thin adapter over the proxy package's port inspection and proxy calls, so the editor
flow reads in its own terms: choose a port, list the pages, open a tab, prove a forward.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pix3net.cdp import port as cdp_port

DEFAULT_PORT = 9333
PORT_RANGE = 6  # 9333..9339


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
        chosen = await cdp_port.choose_port(preferred, token, recorded_port=recorded_port)
    except cdp_port.NoFreePort as exc:
        raise NoPort(str(exc)) from exc
    state = chosen.state
    return Choice(
        port=chosen.port,
        kind=state.kind,
        browser=state.browser,
        pages=list(state.pages),
        skipped=[(s.port, s.detail) for s in chosen.skipped],
    )


async def page_urls(port: int, token: str) -> list[str]:
    state = await cdp_port.inspect_port(port, token)
    return list(state.pages) if state.kind == "ours" else []


async def open_tab(port: int, token: str, url: str, *, new_window: bool) -> None:
    params: dict[str, object] = {"url": url}
    if new_window:
        params["newWindow"] = True
    await cdp_port.proxy_call(port, token, "Target.createTarget", params)


async def prove(port: int, token: str, *, forward: bool) -> tuple[str, str]:
    """(kind, detail) of the proof check: ``ours``, ``closed`` or ``foreign`` with its detail."""
    result = await cdp_port.prove_cdp_proxy(port, token, forward=forward)
    return result.kind, result.detail or ""
