"""What `pix3 editor --status` learns from the proxy: its clients, what each owns, the editor tab
(docs/cdp-proxy.md, "Status"). Pure but for reading the socket's peer when a client connects.

Served at ``GET /json/pix3/status`` with the token like every other request: a path of our own,
so the reference's ``/json/version`` and ``/json/list`` stay as they are.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from pix3net.wire.httpwire import RequestHead
from pix3net.wire.proxypaths import STATUS_PATH
from pix3net.wire.router import Router
from pix3tools.core.timestamps import iso_time

__all__ = ["STATUS_PATH", "Seen", "status_body"]
# A header's value shown in the status (a user agent is a line; anything longer is cut).
MAX_SHOWN_CHARS = 200


class _Socketed(Protocol):
    @property
    def socket(self) -> Any: ...


def _shown(value: str | None) -> str | None:
    if value is None:
        return None
    return "".join(c for c in value if c.isprintable())[:MAX_SHOWN_CHARS]


def _iso_seconds(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


@dataclass(frozen=True)
class Seen:
    """Who a client is, as it connected."""

    peer: str
    user_agent: str | None
    name: str | None  # ``?client=<name>`` on its URL
    page: str | None  # the target of a page client (/pix3/page/<id>)
    since: float

    @classmethod
    def of(cls, stream: _Socketed, head: RequestHead, name: str | None, page: str | None) -> Seen:
        peer = ""
        with contextlib.suppress(OSError, AttributeError, TypeError, ValueError):
            host, port = stream.socket.getpeername()[:2]
            peer = f"{host}:{port}"
        return cls(peer, _shown(head.get("user-agent")), name, page, time.time())


def status_body(router: Router, seen: dict[int, Seen], silent_since: float | None = None) -> dict[str, Any]:
    """The status answer: the editor tab, every open client (in the order they connected) and what
    clients that left kept open (oldest first). ``silent_since``: when the editor tab last
    answered, if the owner's watchdog finds it silent."""
    clients = []
    for number in sorted(seen):
        owned = router.status(number)
        if owned is None:  # still being attached, or gone
            continue
        who = seen[number]
        clients.append(
            {
                "client": number,
                "peer": who.peer,
                "name": who.name,
                "userAgent": who.user_agent,
                "page": who.page,
                "since": _iso_seconds(who.since),
                "relayed": owned["relayed"],
                "keep": owned["keep"],
                "targets": owned["targets"],
                "contexts": owned["contexts"],
            }
        )
    editor = router.editor
    return {
        "editorTab": {
            "targetId": editor,
            "url": router.owners.page_urls.get(editor, ""),
            "answering": silent_since is None,
            "silentSince": None if silent_since is None else iso_time(datetime.fromtimestamp(silent_since, UTC)),
        }
        if editor
        else None,
        "clients": clients,
        "kept": router.kept(),
    }
