"""The flush client: `pix3 check` and `pix3 smoke` ask a running editor to write its unsaved
scenes before they read the disk (docs/devserver.md, "The flush client").

Synchronous (httpx's sync client) so the file tools can call it without trio.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pix3tools.core.devrecord import read_url

EDITOR_FLUSH_TIMEOUT_MS = 15_000
PROBE_TIMEOUT_S = 2.0
FETCH_SLACK_S = 2.0  # the HTTP call is aborted 2 s after the editor's own deadline
CODE = "E_EDITOR_UNSYNCED"

Status = Literal["skipped", "no-server", "no-editor", "flushed", "unsynced"]


@dataclass(frozen=True)
class SyncOutcome:
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


def sync_editor(root: Path, *, no_sync: bool = False, timeout_ms: int = EDITOR_FLUSH_TIMEOUT_MS) -> SyncOutcome:
    """Ask the dev server named by ``<root>/.pix3/dev.json`` to flush the editor."""
    if no_sync:
        return SyncOutcome("skipped")
    url = read_url(root)
    if url is None:
        return SyncOutcome("no-server")
    import httpx

    with httpx.Client(trust_env=False, verify=False) as client:  # loopback http: no CA bundle to load
        try:
            probe = client.get(_api(url, "hello"), timeout=PROBE_TIMEOUT_S)
        except (httpx.HTTPError, ValueError):
            return SyncOutcome("no-server", url)
        if not probe.is_success:
            return SyncOutcome("no-server", url)
        try:
            reply = client.post(
                _api(url, "flush"),
                headers={"Content-Type": "application/json", "X-Pix3": "1"},
                content=json.dumps({"timeoutMs": timeout_ms}),
                timeout=timeout_ms / 1000 + FETCH_SLACK_S,
            )
            body = reply.json()
        except httpx.TimeoutException:
            return SyncOutcome("unsynced", url, "The operation was aborted due to timeout")
        except (httpx.HTTPError, ValueError, RecursionError) as exc:
            return SyncOutcome("unsynced", url, str(exc) or type(exc).__name__)
    return read_flush_answer(body, reply.status_code, url)
