"""The `mcpServers` JSON files: Claude Code's `.mcp.json` and pi's `.pi/mcp.json` (docs/agent-setup.md,
"The two file formats").

The file is re-serialised (2-space indent): other servers and top-level keys keep their values
and order, not their bytes. Comparison is exact compact JSON, so key order and extra keys count.
"""

from __future__ import annotations

import json
from typing import Any

from pix3net.commands.agentsetup.mcplaunch import SERVER_NAME, Launch

__all__ = [
    "current",
    "entry_of",
    "expected",
    "render",
]


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _load(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}  # an unparsable file is replaced (it cannot hold a working entry)
    return data if isinstance(data, dict) else {}


def entry_of(launch: Launch) -> dict[str, Any]:
    return {"command": launch.command, "args": list(launch.args)}


def expected(launch: Launch) -> str:
    return _compact(entry_of(launch))


def current(text: str | None) -> str | None:
    """The compact JSON of the file's ``pix3-browser`` entry, or None when it has none."""
    servers = _load(text).get("mcpServers")
    if not isinstance(servers, dict):
        return None
    entry = servers.get(SERVER_NAME)
    return _compact(entry) if isinstance(entry, dict) else None


def render(text: str | None, launch: Launch) -> str:
    data = _load(text)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        servers = {}
    servers[SERVER_NAME] = entry_of(launch)  # an existing key keeps its position
    data["mcpServers"] = servers
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
