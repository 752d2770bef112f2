"""``$PIX3_HOME/cdp-forward-ports.json``: the SSH forwards the user runs now, and nothing else.

The proxy answers the forward-scope proof only for the ports in ``"ports"`` (docs/cdp-proxy.md).
A port stays there only while a live launch names it, because a listed port that nobody
forwards any more is a gift to a squatter: after the user moved the forward from R to R2
(something held R), a squatter on R relaying to R2 with ``Host: 127.0.0.1:R`` would get a valid
proof for R. So each `pix3 editor --url … [--ssh <host>] [--remote-port <n>]` records one
forward for its SSH host, replacing that host's earlier one, tied to the owner of the Chrome it
ran with; a forward whose owner is gone is dropped (at every launch and before every owner start).

File shape (0600)::

    {"ports": [9334], "forwards": [{"host": "devbox", "port": 9334, "ownerPid": 4242}]}

``host`` is the ``--ssh`` value, or null when none was given (one unnamed forward).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from pix3net.daemon.pids import pid_alive
from pix3net.wire.proof import FORWARD_PORTS_FILE
from pix3tools.core import atomic_write, ensure_home


class Forward(NamedTuple):
    host: str | None
    port: int
    owner_pid: int | None


def _port(value: object) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536
    return value if ok and isinstance(value, int) else None


def parse_forwards(text: str) -> list[Forward]:
    """The recorded forwards; an old file (``ports`` only) or a bad one records none."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    entries = data.get("forwards") if isinstance(data, dict) else None
    found: list[Forward] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        host, port, pid = entry.get("host"), _port(entry.get("port")), entry.get("ownerPid")
        if port is not None and (host is None or isinstance(host, str)):
            live = isinstance(pid, int) and not isinstance(pid, bool) and pid > 0
            found.append(Forward(host, port, pid if live and isinstance(pid, int) else None))
    return found


def render(forwards: list[Forward]) -> str:
    data = {
        "ports": sorted({f.port for f in forwards}),
        "forwards": [{"host": f.host, "port": f.port, "ownerPid": f.owner_pid} for f in forwards],
    }
    return json.dumps(data, indent=2) + "\n"


def _alive(pid: int | None) -> bool:
    return pid is not None and pid > 0 and pid_alive(pid)


def read_forwards(home: Path) -> list[Forward]:
    try:
        return parse_forwards((home / FORWARD_PORTS_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return []


def _write(home: Path, forwards: list[Forward]) -> None:
    path = home / FORWARD_PORTS_FILE
    text = render(forwards)
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    ensure_home(home)
    atomic_write(path, text.encode("utf-8"), mode=0o600)


def record_forward(home: Path, host: str | None, port: int, owner_pid: int | None) -> list[int]:
    """This launch's forward replaces its host's; forwards of owners that are gone are dropped.
    Returns the ports the proxy now proves for."""
    kept = [f for f in read_forwards(home) if f.host != host and (f.owner_pid == owner_pid or _alive(f.owner_pid))]
    forwards = [*kept, Forward(host, port, owner_pid)]
    _write(home, forwards)
    return sorted({f.port for f in forwards})


def drop_gone(home: Path) -> None:
    """Before a new owner starts: the forwards of owners that are gone go (no launch names the new
    one yet, so nothing may prove through it until one does)."""
    if (home / FORWARD_PORTS_FILE).exists():
        _write(home, [f for f in read_forwards(home) if _alive(f.owner_pid)])
