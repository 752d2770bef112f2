"""The chrome-devtools-mcp launch every agent gets, and the `--config` file it reads
(docs/agent-setup.md, "What is written").

The launch names a file in the home folder instead of carrying the endpoint and the token: every
user of a machine can read every process's command line, and project files get committed. The
file (`cdp-mcp.json`, or `remote-cdp.json` on a Remote SSH host) is 0600 and holds both.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

# Pinned: the third-party tool category is experimental and may move in a minor release (1.11.0:
# the newest, checked end to end beside 1.10.1 in tests/e2e/test_page_mcp.py).
CHROME_DEVTOOLS_MCP_VERSION = "1.11.0"
# chrome-devtools-mcp sends usage statistics unless told not to; we tell it, unless the user asks
# for them (`pix3 agent-setup --usage-statistics`; docs/agent-setup.md, "Usage statistics").
NO_USAGE_STATISTICS = "--no-usage-statistics"
SERVER_NAME = "pix3-browser"
# One `--config` file per agent (`cdp-mcp-claude-code.json`, `remote-cdp-codex.json`): each names
# its agent in the endpoint (`?client=<name>`), so every view of the proxy's clients says which
# agent it is, not which library it uses (docs/agent-setup.md, "What is written").
LOCAL_CONFIG = "cdp-mcp-{client}.json"
REMOTE_CONFIG = "remote-cdp-{client}.json"

ConfigAction = Literal["written", "updated", "unchanged"]


@dataclass(frozen=True)
class Launch:
    """What an agent runs to start chrome-devtools-mcp: a command and its arguments."""

    command: str
    args: tuple[str, ...]

    def line(self) -> str:
        return " ".join((self.command, *self.args))


def mcp_launch(config_path: Path | str, platform: str = sys.platform, *, usage_statistics: bool = False) -> Launch:
    """The pinned launch naming ``config_path``; ``cmd /c npx …`` on Windows (npx is a .cmd there).
    ``usage_statistics``: leave chrome-devtools-mcp's own default (on) instead of turning it off."""
    args = (
        "-y",
        f"chrome-devtools-mcp@{CHROME_DEVTOOLS_MCP_VERSION}",
        "--categoryExperimentalThirdParty=true",
        "--experimentalVision=true",
        *(() if usage_statistics else (NO_USAGE_STATISTICS,)),
        f"--config={config_path}",
    )
    if platform == "win32":
        return Launch("cmd", ("/c", "npx", *args))
    return Launch("npx", args)


def ws_endpoint(port: int, client: str | None = None) -> str:
    """The proxy's browser endpoint; ``client``: the name the proxy shows for this connection."""
    return f"ws://127.0.0.1:{port}/pix3" + (f"?client={client}" if client else "")


def config_path(home: Path, client: str, *, remote: bool = False) -> Path:
    """The `--config` file of the agent named ``client`` (``claude-code``, ``codex``, ``pi``)."""
    return home / (REMOTE_CONFIG if remote else LOCAL_CONFIG).format(client=client)


def config_text(port: int, token: str, client: str | None = None) -> str:
    """The `--config` file: ``wsEndpoint`` (naming the agent) and ``wsHeaders`` (a JSON *string*:
    1.10.1 and 1.11.0 parse it)."""
    headers = json.dumps({"Authorization": f"Bearer {token}"}, separators=(",", ":"))
    return json.dumps({"wsEndpoint": ws_endpoint(port, client), "wsHeaders": headers}, indent=2) + "\n"


def _narrow(path: Path) -> None:
    with contextlib.suppress(OSError):
        if os.name == "posix" and stat.S_IMODE(path.stat().st_mode) & 0o077:
            path.chmod(0o600)


def write_config(path: Path, port: int, token: str, client: str | None = None) -> ConfigAction:
    """Write the `--config` file (0600) when its bytes differ; say what happened."""
    text = config_text(port, token, client).encode("utf-8")
    try:
        before: bytes | None = path.read_bytes()
    except OSError:
        before = None
    if before == text:
        _narrow(path)
        return "unchanged"
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _narrow(path)
    return "written" if before is None else "updated"
