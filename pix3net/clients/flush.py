"""The flush client: `pix3 check` and `pix3 smoke` ask a running editor to write its unsaved
scenes before they read the disk (docs/devserver.md, "The flush client").

Synchronous, on the standard library's HTTP client, so the file tools can call it without trio
(httpx is not imported here: with its command-line extras it costs ~80 ms at the start of every
`pix3 check` and `pix3 smoke`). Nor is ``http.client`` until a record names a server: with the
email and ssl modules it pulls in, it is ~12 ms before `pix3 check` can start tsc, for nothing
when there is no editor or ``--no-sync``; and no dataclass (``inspect`` with it, ~5 ms) —
docs/check.md, "Speed".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple
from urllib.parse import urlsplit

from pix3net.daemon.devrecord import read_url

if TYPE_CHECKING:
    import http.client

EDITOR_FLUSH_TIMEOUT_MS = 15_000
PROBE_TIMEOUT_S = 2.0
FETCH_SLACK_S = 2.0  # the HTTP call is aborted 2 s after the editor's own deadline
CODE = "E_EDITOR_UNSYNCED"

Status = Literal["skipped", "no-server", "no-editor", "flushed", "unsynced"]


class SyncOutcome(NamedTuple):
    """``status``; ``url`` of the dev server when one was asked; ``reason`` and ``message``
    (the diagnostic text) only for ``unsynced``."""

    status: Status
    url: str | None = None
    reason: str | None = None

    @property
    def message(self) -> str | None:
        if self.status != "unsynced":
            return None
        return (
            f"the Pix3 editor at {self.url} did not flush its unsaved scenes ({self.reason}); "
            "save in the editor and retry, or pass --no-sync to read the disk as it is"
        )

    @property
    def note(self) -> str | None:
        """The human note `pix3 check` prints for ``flushed``."""
        return f"editor at {self.url} flushed its unsaved scenes" if self.status == "flushed" else None


def _truthy(value: object) -> bool:
    """JavaScript's truthiness, which the reference's reading of the reply uses (an empty list or
    object is true there)."""
    if value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == value and value != 0  # NaN and 0 are false
    if isinstance(value, str):
        return value != ""
    return True


def read_flush_answer(body: object, status: int, url: str) -> SyncOutcome:
    """What a flush reply means (docs/devserver.md "The flush client"): ``ok`` exactly false →
    ``unsynced`` with ``reason`` (or `HTTP <status>` when it has none); else ``flushed`` when
    ``editor`` is true, ``no-editor`` otherwise. The HTTP status is not otherwise read."""
    reply = body if isinstance(body, dict) else {}
    if reply.get("ok") is False:
        reason = reply.get("reason")
        return SyncOutcome("unsynced", url, str(reason) if _truthy(reason) else f"HTTP {status}")
    return SyncOutcome("flushed" if _truthy(reply.get("editor")) else "no-editor", url)


def _api(url: str, route: str) -> str:
    return url + ("" if url.endswith("/") else "/") + "__pix3/api/" + route


def _request(url: str, method: str, timeout: float, body: bytes | None = None) -> tuple[int, bytes]:
    """One HTTP exchange on its own connection: ``(status, body)``. Raises ``OSError`` (a
    ``TimeoutError`` when the server took longer than ``timeout``), ``http.client.HTTPException``
    or ``ValueError`` (a URL it cannot use). No proxy from the environment, no certificate check:
    the dev server is on this machine."""
    import http.client

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http URL: {url}")
    if parts.scheme == "https":
        import ssl

        connection: http.client.HTTPConnection = http.client.HTTPSConnection(
            parts.hostname, parts.port, timeout=timeout, context=ssl._create_unverified_context()
        )
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    headers = {"Content-Type": "application/json", "X-Pix3": "1"} if body is not None else {}
    try:
        connection.request(method, (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), body, headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def flush_editor(root: Path, *, no_sync: bool = False, timeout_ms: int = EDITOR_FLUSH_TIMEOUT_MS) -> SyncOutcome:
    """Ask the dev server named by ``<root>/.pix3/dev.json`` to flush the editor."""
    if no_sync:
        return SyncOutcome("skipped")
    url = read_url(root)
    if url is None:
        return SyncOutcome("no-server")
    import http.client

    try:
        status, _ = _request(_api(url, "hello"), "GET", PROBE_TIMEOUT_S)
    except (OSError, http.client.HTTPException, ValueError):
        return SyncOutcome("no-server", url)
    if not 200 <= status < 300:
        return SyncOutcome("no-server", url)
    try:
        payload = json.dumps({"timeoutMs": timeout_ms}).encode()
        status, raw = _request(_api(url, "flush"), "POST", timeout_ms / 1000 + FETCH_SLACK_S, payload)
        body = json.loads(raw)
    except TimeoutError:
        return SyncOutcome("unsynced", url, "The operation was aborted due to timeout")
    except (OSError, http.client.HTTPException, ValueError, RecursionError) as exc:
        return SyncOutcome("unsynced", url, str(exc) or type(exc).__name__)
    return read_flush_answer(body, status, url)
