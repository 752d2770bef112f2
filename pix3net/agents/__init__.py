"""`pix3 agent-setup`: the agents' chrome-devtools-mcp configs pointing at the CDP token proxy.

Public surface: the pinned launch and its `--config` file (`launch`), the agents and their project
files (`agents`), one agent's install (`install`), and the staleness check `pix3 editor` prints
(`stale`). The command itself is `pix3net.agents.command:run`.
"""

from pix3net.agents.agents import AGENTS, Agent
from pix3net.agents.launch import CHROME_DEVTOOLS_MCP_VERSION, Launch, config_text, mcp_launch, write_config
from pix3net.agents.stale import configured_files, stale_configs, staleness_line

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
