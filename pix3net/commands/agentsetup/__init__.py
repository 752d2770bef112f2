"""`pix3 agent-setup`: the agents' chrome-devtools-mcp configs pointing at the CDP token proxy.

Public surface: the pinned launch and its `--config` file (`mcplaunch`), the agents and their project
files (`known`), one agent's install (`mcpentry`), and the staleness check `pix3 editor` prints
(`stale`). The command itself is `pix3net.commands.agentsetup.command:run`.

Modules:

- `command`: the command: which agents, repair, remote.
- `known`: the agents we configure and where each keeps its project MCP file.
- `mcplaunch`: the chrome-devtools-mcp launch every agent gets and its `--config` file.
- `mcpentry`: one agent's `pix3-browser` entry: written, unchanged, drift or repaired.
- `jsonfile`: the `mcpServers` JSON files (Claude Code, pi).
- `tomlfile`: Codex's `.codex/config.toml`.
- `remotecheck`: the forwarded port, checked by proof before anything is written.
- `remoteforward`: the remote host's side of the SSH forward.
- `stale`: does the project's agent config reach this proxy.
"""

from pix3net.commands.agentsetup.known import AGENTS, Agent
from pix3net.commands.agentsetup.mcplaunch import (
    CHROME_DEVTOOLS_MCP_VERSION,
    Launch,
    config_text,
    mcp_launch,
    write_config,
)
from pix3net.commands.agentsetup.stale import configured_files, stale_configs, staleness_line

__all__ = [
    "AGENTS",
    "CHROME_DEVTOOLS_MCP_VERSION",
    "Agent",
    "Launch",
    "config_text",
    "configured_files",
    "mcp_launch",
    "stale_configs",
    "staleness_line",
    "write_config",
]
