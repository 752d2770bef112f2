"""The remote host's side of the SSH forward of the human's proxy (docs/agent-setup.md,
"Remote agents"): its one port and the token copied from the human's machine.

One port, configured on both sides, never "the next free one": `pix3 editor --cdp-port <n>` on the
remote host stores it in ``$PIX3_HOME/remote-forward.json`` and `agent-setup --remote` dials it.
"""

from __future__ import annotations

import json
from pathlib import Path

from pix3net.wire.token import REMOTE_TOKEN_FILE, ensure_token, read_token
from pix3tools.core import atomic_write, ensure_home
from pix3tools.core.ports import CDP_PORT

REMOTE_FORWARD_FILE = "remote-forward.json"


def stored_forward_port(home: Path) -> int | None:
    try:
        data = json.loads((home / REMOTE_FORWARD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    port = data.get("port") if isinstance(data, dict) else None
    return port if isinstance(port, int) and not isinstance(port, bool) and 0 < port < 65536 else None


def forward_port(home: Path, given: int | None) -> int:
    return given if given is not None else stored_forward_port(home) or CDP_PORT


def store_forward_port(home: Path, port: int) -> None:
    if stored_forward_port(home) != port:
        ensure_home(home)  # 0700: the token files land here too
        atomic_write(home / REMOTE_FORWARD_FILE, (json.dumps({"port": port}, indent=2) + "\n").encode())


def read_remote_token(home: Path) -> str | None:
    """The token copied here from the human's machine (narrowed to 0600 when wider), or None."""
    if read_token(home / REMOTE_TOKEN_FILE) is None:
        return None
    return ensure_token(home, REMOTE_TOKEN_FILE)
