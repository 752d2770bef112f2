"""The shared Chrome's status: its owner, its editor tab and the agents connected to it, for
`pix3 editor --status [--json]` and the editor page's agent count (docs/editor.md, "Status").

Plain sockets and /proc, no trio (a status is a few loopback requests): ``chrome.json`` names the
owner; the proxy proves it knows the token before the token is sent; `GET /json/version` gives
the browser and `GET /json/pix3/status` the editor tab and the clients (docs/cdp-proxy.md,
"Status"); Chrome's resident memory is read from its process tree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pix3net.clients import probe
from pix3net.daemon.chromerecord import ChromeRecord, read_record
from pix3net.daemon.memory import chrome_memory
from pix3net.daemon.pids import port_holder
from pix3net.wire.proxypaths import STATUS_PATH
from pix3net.wire.token import read_token

MIB = 1024 * 1024


class StatusError(Exception):
    """No owner, or one that does not answer as ours: the sentence says which and what to do."""


def agent_count(home: Path) -> int:
    """How many clients the proxy of ``home`` has now (the editor page's header); raises
    :class:`StatusError`."""
    return len(_ask(home)[2].get("clients", []))


def gather(home: Path) -> dict[str, Any]:
    """The status as `--json` prints it (keys in this order); raises :class:`StatusError`."""
    record, version, status = _ask(home)
    memory = chrome_memory(record.chrome_pid) if record.chrome_pid is not None else None
    browser = version.get("Browser") if isinstance(version, dict) else None
    return {
        "chrome": {
            "pid": record.chrome_pid,
            "version": browser,
            "residentBytes": memory[0] if memory else None,
            "processes": memory[1] if memory else None,
        },
        "owner": {"pid": record.owner_pid, "port": record.port, "startedAt": record.started_at},
        "editorTab": status.get("editorTab"),
        "clients": [c for c in status.get("clients", []) if isinstance(c, dict)],
        "kept": _kept(status.get("kept")),
    }


def _kept(kept: Any) -> dict[str, list[dict[str, Any]]]:
    """What clients that left kept open (an older proxy says nothing: none)."""
    found = kept if isinstance(kept, dict) else {}
    return {
        key: [item for item in found.get(key, []) if isinstance(item, dict)] if isinstance(found.get(key), list) else []
        for key in ("targets", "contexts")
    }


def _ask(home: Path) -> tuple[ChromeRecord, Any, dict[str, Any]]:
    """The record, `/json/version` and `/json/pix3/status` of the proxy it names."""
    record, conn, auth = connect(home)
    with conn:
        try:
            version = conn.get("/json/version", auth).json()
            status = conn.get(STATUS_PATH, auth).json()
        except (OSError, probe.ProbeError) as exc:
            raise _unanswered(record, exc) from None
    if not isinstance(status, dict):
        raise StatusError(f"the CDP proxy on 127.0.0.1:{record.port} has no status (an older pix3): restart it.")
    return record, version, status


def _unanswered(record: ChromeRecord, exc: Exception) -> StatusError:
    who = port_holder(record.port)
    held = f"; the port is held by {who}" if who else ""
    return StatusError(
        f"the CDP proxy on 127.0.0.1:{record.port} (owner pid {record.owner_pid}) does not answer ({exc}{held}):"
        " `pix3 editor --stop-chrome`, then `pix3 editor`."
    )


def connect(home: Path) -> tuple[ChromeRecord, probe.Connection, dict[str, str]]:
    """The record, a kept-alive connection to the proxy it names (proved to know the token) and
    the header that carries the token; raises :class:`StatusError`."""
    record = read_record(home)
    if record is None or record.owner_pid is None:
        raise StatusError(f"no Chrome owner recorded in {home / 'chrome.json'}: start one with `pix3 editor`.")
    token = read_token(home / "cdp-token")
    if token is None:
        raise StatusError(f"no CDP token in {home / 'cdp-token'}: restart Chrome with `pix3 editor`.")
    try:
        conn, verdict = probe.proved(record.port, token, holder=port_holder)
    except (OSError, probe.ProbeError) as exc:
        raise _unanswered(record, exc) from None
    if verdict.kind != "ours":
        conn.close()
        raise StatusError(_not_ours(record, verdict.detail, verdict.relay))
    return record, conn, probe.auth(token)


def _not_ours(record: ChromeRecord, detail: str, relay: int | None) -> str:
    """The sentence for a recorded port that did not prove it is ours (the token was not sent)."""
    what = f"port {record.port} (from chrome.json) is not our CDP proxy: {detail}"
    if relay is not None:
        return f"{what}. Stop that process, then run `pix3 editor` (our proxy answers on port {relay})."
    return (
        f"{what}. Stop what holds port {record.port} if it is not yours, then run `pix3 editor` (it starts"
        " Chrome on a free port and records it)."
    )


def _who(client: dict[str, Any]) -> str:
    name, agent = client.get("name"), client.get("userAgent")
    if name and agent:
        return f"{name} ({agent})"
    return str(name or agent or "no user agent")


def text(status: dict[str, Any]) -> str:
    """The human lines."""
    chrome, owner = status["chrome"], status["owner"]
    memory = (
        f"{chrome['residentBytes'] / MIB:.0f} MiB resident in {chrome['processes']} processes"
        if chrome["residentBytes"] is not None
        else "resident memory unknown"
    )
    lines = [
        f"Chrome:     {chrome['version'] or 'unknown browser'} (pid {chrome['pid']}), {memory}",
        f"Proxy:      ws://127.0.0.1:{owner['port']}/pix3 (owner pid {owner['pid']}, since {owner['startedAt']})",
    ]
    editor = status["editorTab"]
    silent = f", not answering since {editor['silentSince']}" if editor and editor.get("silentSince") else ""
    lines.append(f"Editor tab: {editor['targetId']} {editor['url']}{silent}" if editor else "Editor tab: none")
    clients = status["clients"]
    lines.append(f"Clients:    {len(clients)}")
    for client in clients:
        where = f"page {client['page']}" if client.get("page") else "browser"
        lines.append(
            f"  #{client['client']} {client['peer']} {_who(client)}: {where}, since {client['since']},"
            f" {client['relayed']} messages{', keep' if client.get('keep') else ''}"
        )
        owned = [*client.get("targets", []), *client.get("contexts", [])]
        if owned:
            lines.append(
                f"     owns {len(client.get('targets', []))} targets {' '.join(client.get('targets', []))};"
                f" {len(client.get('contexts', []))} contexts {' '.join(client.get('contexts', []))}".rstrip()
            )
    kept = status.get("kept") or {"targets": [], "contexts": []}
    targets, contexts = kept["targets"], kept["contexts"]
    lines.append(
        f"Kept:       {len(targets)} targets, {len(contexts)} browser contexts left open by clients that left"
        " (keep=1; the oldest go past the proxy's bound)"
    )
    lines += [f"  {t.get('targetId')} {t.get('url', '')} (client #{t.get('client')})".rstrip() for t in targets]
    lines += [f"  context {c.get('browserContextId')} (client #{c.get('client')})" for c in contexts]
    return "\n".join(lines)


def as_json(status: dict[str, Any]) -> str:
    return json.dumps(status, indent=2)
