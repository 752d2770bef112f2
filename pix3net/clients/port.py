"""The client side of the proxy: prove, inspect and choose a port (docs/cdp-proxy.md, "Client
side"). A call through it is ``pix3net.clients.cdptrio.call``.

The token is never sent to a port that has not first proven it knows it: every probe starts
with a challenge and no ``Authorization`` header; only a valid ``X-Pix3-Proof`` bound to the port
dialled earns the token (a relay on that port passes on a proof for another port).
Async (trio); ``pix3 editor`` runs these inside its own ``trio.run``. Each HTTP exchange is
:mod:`pix3net.clients.probe`'s, on a plain socket in a worker thread: one HTTP client proves a port
for every command (it was httpx here, a second client with its own framing, redirects and
environment to keep off).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

import trio

from pix3net.clients.probe import PROBE_SECONDS, Answer, Connection, ProbeError, challenge
from pix3net.daemon.pids import port_holder
from pix3net.wire.proof import Verdict, page_urls
from pix3tools.core.ports import CDP_PORT, CDP_PORT_SPAN

_EDITOR_PAGE = re.compile(r"/__pix3/(?:[?#]|$)")


def is_editor_page_url(url: str) -> bool:
    return _EDITOR_PAGE.search(url) is not None


async def _get(port: int, path: str, headers: dict[str, str], seconds: float) -> Answer | None:
    """One GET to 127.0.0.1:``port`` on a plain socket (in a worker thread, so the trio loop keeps
    running), None when nothing answers HTTP within ``seconds``."""

    def get() -> Answer:
        with Connection("127.0.0.1", port, seconds) as conn:
            return conn.get(path, headers)

    try:
        return await trio.to_thread.run_sync(get, abandon_on_cancel=True)
    except (OSError, ProbeError):
        return None


def _json(answer: Answer | None) -> Any:
    """The parsed JSON of a 2xx answer, else None."""
    return answer.json() if answer is not None else None


@dataclass(frozen=True)
class _Probe:
    verdict: Verdict
    body: Any  # parsed JSON of a 2xx answer, else None


async def _probe(
    port: int, token: str | None, *, forward: bool, seconds: float, also: tuple[int, ...] = ()
) -> _Probe | None:
    """One proof request (a fresh challenge, no token); None when nothing answered HTTP."""

    def ask() -> tuple[Answer, Verdict]:
        return challenge(port, token, forward=forward, timeout=seconds, also=also)

    try:
        answer, verdict = await trio.to_thread.run_sync(ask, abandon_on_cancel=True)
    except (OSError, ProbeError):
        return None
    body = answer.json()
    return _Probe(verdict, body)


async def prove_proxy(
    port: int,
    token: str,
    *,
    forward: bool = False,
    timeout: float = PROBE_SECONDS,  # noqa: ASYNC109 - the probe's own limit (1.5 s)
) -> Verdict:
    """Does the proxy on ``port`` know ``token``? (``forward``: the forward scope of
    docs/cdp-proxy.md, "Proof", for a port reached through an SSH RemoteForward.)"""
    probe = await _probe(port, token, forward=forward, seconds=timeout)
    return probe.verdict if probe is not None else Verdict("closed")


@dataclass(frozen=True)
class PortInspection:
    kind: Literal["free", "ours", "legacy", "foreign"]
    browser: str | None = None
    pages: list[str] = field(default_factory=list)
    detail: str = ""


async def _tcp_open(port: int, seconds: float) -> bool:
    with trio.move_on_after(seconds):
        try:
            stream = await trio.open_tcp_stream("127.0.0.1", port)
        except OSError:
            return False
        await stream.aclose()
        return True
    return False


async def _get_json(port: int, path: str, token: str | None, seconds: float) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return _json(await _get(port, path, headers, seconds))


async def inspect_port(
    port: int,
    token: str | None,
    *,
    recorded_port: int | None = None,
    timeout: float = PROBE_SECONDS,  # noqa: ASYNC109 - per-probe limit (1.5 s)
) -> PortInspection:
    """free / ours / legacy / foreign, with a detail (docs/cdp-proxy.md, "Port inspection")."""
    also = (recorded_port,) if recorded_port is not None else ()
    probe = await _probe(port, token, forward=False, seconds=timeout, also=also)
    if probe is not None and probe.verdict.kind == "ours":
        version = await _get_json(port, "/json/version", token, timeout)
        listed = await _get_json(port, "/json/list", token, timeout)
        browser = version.get("Browser") if isinstance(version, dict) else None
        return PortInspection("ours", str(browser or "unknown browser"), page_urls(listed))
    if probe is not None and probe.verdict.proxy:
        return PortInspection("foreign", None, [], probe.verdict.detail)
    if probe is None or not isinstance(probe.body, dict | list):
        if await _tcp_open(port, timeout):
            who = port_holder(port)
            held = f" ({who})" if who else ""
            return PortInspection("foreign", None, [], f"port {port} is in use by something that is not Chrome{held}")
        return PortInspection("free")
    body = probe.body if isinstance(probe.body, dict) else {}
    browser = str(body.get("Browser") or "unknown browser")
    pages = page_urls(await _get_json(port, "/json/list", None, timeout))
    if any(is_editor_page_url(url) for url in pages) or port == recorded_port:
        return PortInspection("legacy", browser, pages)
    detail = f"port {port} is a {browser} that is not Pix3's ({len(pages)} page(s), none is /__pix3/)"
    return PortInspection("foreign", browser, pages, detail)


class NoFreePort(Exception):
    """Every port of the range is foreign; the message lists each port's detail."""


@dataclass(frozen=True)
class PortChoice:
    port: int
    inspection: PortInspection
    skipped: list[tuple[int, str]]


async def choose_port(
    token: str | None,
    *,
    preferred: int = CDP_PORT,
    span: int = CDP_PORT_SPAN,
    recorded_port: int | None = None,
    timeout: float = PROBE_SECONDS,  # noqa: ASYNC109 - per-probe limit (1.5 s)
) -> PortChoice:
    """The first of ``preferred..preferred+span`` that is free, ours or legacy."""
    skipped: list[tuple[int, str]] = []
    for port in range(preferred, preferred + span + 1):
        inspection = await inspect_port(port, token, recorded_port=recorded_port, timeout=timeout)
        if inspection.kind != "foreign":
            return PortChoice(port, inspection, skipped)
        skipped.append((port, inspection.detail))
    lines = "".join(f"\n  {detail}" for _, detail in skipped)
    raise NoFreePort(f"No free debugging port between {preferred} and {preferred + span}:{lines}")


async def list_targets(
    port: int,
    token: str,
    *,
    timeout: float = PROBE_SECONDS,  # noqa: ASYNC109 - per-probe limit (1.5 s)
) -> list[dict[str, Any]]:
    """The proxy's ``/json/list`` with the token (call only for a port that proved it is ours)."""
    listed = await _get_json(port, "/json/list", token, timeout)
    return [t for t in listed if isinstance(t, dict)] if isinstance(listed, list) else []
