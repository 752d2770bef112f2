"""`pix3 agent-setup`: the agents' chrome-devtools-mcp configs pointing at the CDP token proxy.

Public surface: the pinned launch and its `--config` file (`mcplaunch`), the agents and their project
files (`known`), one agent's install (`mcpentry`), and the staleness check `pix3 editor` prints
(`stale`). The command itself is `pix3net.commands.agentsetup.command:run`.
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
