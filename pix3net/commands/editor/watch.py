"""`pix3 editor --watch --json` and `pix3 editor --kick <client>`: the agents at work in the shared
Chrome, as the owner sees them (docs/editor.md, "Watching the agents").

Plain sockets, no trio, like `--status` (`ownerstatus`): one kept-alive connection to the proxy,
proved to know the token before the token is sent; `GET /json/pix3/watch` each second
(docs/cdp-proxy.md, "Watching"); Chrome's memory from its process tree.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from pix3net.clients import probe
from pix3net.clients.ownerstatus import StatusError, connect
from pix3net.daemon.chromerecord import ChromeRecord
from pix3net.daemon.memory import chrome_memory
from pix3net.wire.proxypaths import KICK_PATH, STATUS_PATH, WATCH_PATH
from pix3tools.core.timestamps import iso_time

__all__ = ["FRAME_SECONDS", "Watcher", "kick", "stream_json"]

# One picture of the agents a second: what the issue asks of the view, and the rate at which the
# proxy's counters are worth sampling (the calls per second are over 10 s).
FRAME_SECONDS = 1.0


class Watcher:
    """A kept-alive view of one owner's proxy; :meth:`frame` is one second's picture."""

    def __init__(self, home: Path) -> None:
        self.record, self.conn, self.auth = connect(home)
        self.browser: str | None = None
        try:
            version = self.conn.get("/json/version", self.auth).json()
        except (OSError, probe.ProbeError, ValueError) as exc:
            self.close()
            raise self._lost(exc) from None
        self.browser = version.get("Browser") if isinstance(version, dict) else None

    def close(self) -> None:
        self.conn.close()

    def _lost(self, exc: Exception) -> StatusError:
        return StatusError(
            f"the CDP proxy on 127.0.0.1:{self.record.port} (owner pid {self.record.owner_pid}) stopped answering"
            f" ({exc}): `pix3 editor --status` says whether Chrome is still up."
        )

    def frame(self) -> dict[str, Any]:
        """The picture `--watch --json` prints (keys in this order); raises :class:`StatusError`."""
        try:
            answer = self.conn.get(WATCH_PATH, self.auth)
            body = answer.json()
        except (OSError, probe.ProbeError, ValueError) as exc:
            raise self._lost(exc) from None
        if answer.status != 200 or not isinstance(body, dict):
            raise StatusError(
                f"the CDP proxy on 127.0.0.1:{self.record.port} has no watch view (HTTP {answer.status}; an older"
                " pix3): `pix3 editor --stop-chrome`, then `pix3 editor`."
            )
        record: ChromeRecord = self.record
        memory = chrome_memory(record.chrome_pid) if record.chrome_pid is not None else None
        return {
            "at": iso_time(),
            "chrome": {
                "pid": record.chrome_pid,
                "version": self.browser,
                "residentBytes": memory[0] if memory else None,
                "processes": memory[1] if memory else None,
            },
            "owner": {"pid": record.owner_pid, "port": record.port, "startedAt": record.started_at},
            "editorTab": body.get("editorTab"),
            "clients": [c for c in body.get("clients", []) if isinstance(c, dict)],
        }


def stream_json(
    home: Path,
    out: TextIO,
    *,
    frames: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """One JSON object a line, a second apart, until interrupted (or ``frames`` of them); raises
    :class:`StatusError` when the owner is not there or stops answering."""
    watcher = Watcher(home)
    try:
        shown = 0
        while frames is None or shown < frames:
            started = time.monotonic()
            out.write(json.dumps(watcher.frame(), separators=(",", ":")) + "\n")
            out.flush()
            shown += 1
            if frames is None or shown < frames:
                sleep(max(0.0, FRAME_SECONDS - (time.monotonic() - started)))
    finally:
        watcher.close()


def _number(clients: list[dict[str, Any]], who: str) -> int:
    """The client ``who`` names: its number (``7`` or ``#7``) or its name, when one client has it."""
    digits = who.removeprefix("#")
    if digits.isdigit():
        return int(digits)
    named = [c["client"] for c in clients if c.get("name") == who]
    if not named:
        shown = ", ".join(f"#{c['client']} {c.get('name') or c.get('userAgent') or ''}".rstrip() for c in clients)
        raise StatusError(
            f'no client named "{who}" is connected (now: {shown or "none"}); `pix3 editor --status` lists them.'
        )
    if len(named) > 1:
        numbers = " ".join(f"#{n}" for n in named)
        raise StatusError(f'{len(named)} clients are named "{who}" ({numbers}): say which with its number.')
    return int(named[0])


def kick(home: Path, who: str) -> str:
    """End the client ``who`` names as its own disconnect would; the sentence says what happened.
    Raises :class:`StatusError`."""
    record, conn, auth = connect(home)
    with conn:
        try:
            status = conn.get(STATUS_PATH, auth).json()
            clients = [c for c in status.get("clients", []) if isinstance(c, dict)] if isinstance(status, dict) else []
            number = _number(clients, who)
            answer = conn.post(f"{KICK_PATH}?client={quote(str(number))}", auth)
            body = answer.json()
        except (OSError, probe.ProbeError, ValueError) as exc:
            raise StatusError(
                f"the CDP proxy on 127.0.0.1:{record.port} (owner pid {record.owner_pid}) does not answer ({exc}):"
                " `pix3 editor --status` says whether Chrome is still up."
            ) from None
    if answer.status == 404 and isinstance(body, dict) and str(body.get("error", "")).startswith("no client"):
        raise StatusError(f"no client #{number} is connected (it may have left): `pix3 editor --status` lists them.")
    if answer.status != 200 or not isinstance(body, dict):
        raise StatusError(
            f"the CDP proxy on 127.0.0.1:{record.port} cannot end clients (HTTP {answer.status}; an older pix3)."
        )
    name = f" ({body['name']})" if body.get("name") else ""
    return (
        f"Ended client #{number}{name}: its connection is closed and what it opened is closed within 1 s"
        " (unless it connected with keep=1)."
    )
