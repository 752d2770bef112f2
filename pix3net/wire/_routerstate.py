"""What the router remembers (:mod:`pix3net.wire.router`): what each id it sent on the pipe stands
for, what it knows of each client, and the JSON it writes there itself.

Every command on Chrome's pipe carries an id the router allocated; the answer's id finds its
:data:`Pending` entry: a client's request to answer under the client's own id (:class:`Forward`),
one of the proxy's own calls, attaches, detaches and the steps of keeping the editor tab. Pure data.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pix3net.wire.recentcalls import RECENT_CALLS, Recorded

__all__ = [
    "Attach",
    "ClientState",
    "Discover",
    "Forward",
    "Home",
    "Leaving",
    "OwnCall",
    "Pending",
    "Quiet",
    "Reopen",
    "command",
    "error_text",
    "watched_params",
]


@dataclass
class ClientState:
    root: str | None = None
    sessions: set[str] = field(default_factory=set)
    relayed: int = 0  # messages relayed both ways (for `pix3 editor --status`)
    auto_attach: set[str] = field(default_factory=set)  # its sessions it asked Target.setAutoAttach on
    waiting: set[str] = field(default_factory=set)  # child sessions whose target waits for a debugger
    debugging: set[str] = field(default_factory=set)  # its sessions it sent Debugger.enable on
    # For the views of the clients (docs/cdp-proxy.md, "Watching"): always counted, a few
    # assignments per request; the recent calls only while someone watches.
    calls: int = 0
    errors: int = 0
    last_method: str = ""
    last_at: float = 0.0
    recent: deque[Recorded] = field(default_factory=lambda: deque(maxlen=RECENT_CALLS))


@dataclass(slots=True)
class Forward:
    client: int
    id_text: str
    watch: str = ""  # a method whose answer the ownership bookkeeping reads
    detail: str = ""  # its browser context, for Target.disposeBrowserContext
    record: Recorded | None = None  # kept for the views while someone watches


@dataclass(frozen=True)
class OwnCall:
    method: str


@dataclass(frozen=True)
class Attach:
    client: int
    method: str
    page: str | None = None
    keep: bool = False


@dataclass(frozen=True)
class Quiet:
    """Our own command whose answer is dropped (a detach, a close for a departed client)."""


@dataclass(frozen=True)
class Discover:
    """Our own ``Target.setDiscoverTargets`` on the pipe root: Chrome has reported what it had."""


@dataclass(frozen=True)
class Reopen:
    """Our own ``Target.createTarget`` of the editor tab."""

    url: str


@dataclass(frozen=True)
class Leaving:
    """Our own ``Target.setAutoAttach {autoAttach: false}`` on a departed client's session: once
    answered, every target Chrome auto-attached for it before has been reported (and let run), and
    its root is detached."""

    client: int
    root: str | None


@dataclass(frozen=True)
class Home:
    """Sending the editor tab back to the editor page: our own attach to it, then ``Page.navigate``
    on that session (``session`` set), then its detach."""

    target: str
    session: str = ""


Pending = Forward | OwnCall | Attach | Quiet | Discover | Reopen | Leaving | Home


def command(pipe_id: int, method: str, params: dict[str, Any], session: str | None = None) -> bytes:
    message: dict[str, Any] = {"id": pipe_id, "method": method, "params": params}
    if session is not None:
        message["sessionId"] = session
    return json.dumps(message, separators=(",", ":")).encode()


def watched_params(text: str) -> dict[str, Any]:
    """A watched message's params (it was checked as JSON already; small and rare)."""
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    params = value.get("params") if isinstance(value, dict) else None
    return params if isinstance(params, dict) else {}


def error_text(body: dict[str, Any]) -> str:
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return json.dumps(error)
