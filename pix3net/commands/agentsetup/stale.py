"""Does the project's agent config reach this proxy? The check `pix3 editor` prints
(docs/agent-setup.md, "What pix3 editor checks")."""

from __future__ import annotations

from pathlib import Path

from pix3net.commands.agentsetup.known import AGENTS, Agent, peek_project_file
from pix3net.commands.agentsetup.mcpentry import stale_files
from pix3net.commands.agentsetup.mcplaunch import Launch, config_path, config_text, mcp_launch


def _current_launches(home: Path, agent: Agent) -> list[Launch]:
    """The launches `pix3 agent-setup` writes now for ``agent``: usage statistics off (its
    default) or on."""
    path = config_path(home, agent.client)
    return [mcp_launch(path), mcp_launch(path, usage_statistics=True)]


def stale_configs(root: Path, home: Path, port: int, token: str) -> list[str]:
    """Project files whose entry is another launch, plus an agent's `--config` file's path when its
    entry is current but the file holds another port or token. Missing entries are not stale."""
    stale: list[str] = []
    configs: list[str] = []
    for agent in AGENTS.values():
        files, matching = stale_files(root, [agent], _current_launches(home, agent))
        stale += files
        if matching:
            path = config_path(home, agent.client)
            try:
                current: bytes | None = path.read_bytes()
            except OSError:
                current = None
            if current != config_text(port, token, agent.client).encode("utf-8"):
                configs.append(str(path))
    return stale + configs


def configured_files(root: Path, home: Path) -> list[str]:
    """Project files whose entry is the current local launch."""
    return [
        a.file
        for a in AGENTS.values()
        if any(a.current(peek_project_file(root, a)) == a.expected(launch) for launch in _current_launches(home, a))
    ]


def staleness_line(root: Path, home: Path, port: int, token: str) -> str | None:
    """The editor's line naming what does not reach this Chrome, or None when nothing is stale."""
    configs = {str(config_path(home, a.client)) for a in AGENTS.values()}
    stale = stale_configs(root, home, port, token)
    files = [s for s in stale if s not in configs]
    held = [s for s in stale if s in configs]
    parts: list[str] = []
    if files:
        verb = "has" if len(files) == 1 else "have"
        parts.append(
            f"{' and '.join(files)} {verb} a pix3-browser entry that does not reach this Chrome"
            " (an older launch: another port, another token, the token on its command line)"
        )
    if held:
        verb = "holds" if len(held) == 1 else "hold"
        parts.append(f"{' and '.join(held)} (what chrome-devtools-mcp reads) {verb} another port or token")
    if not parts:
        return None
    return "; ".join(parts) + ": run `pix3 agent-setup --repair`, then start a new agent thread."
