"""The agents we configure and where each keeps its project MCP file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pix3net.agents import _json, _toml
from pix3net.agents.launch import Launch


@dataclass(frozen=True)
class Agent:
    key: str  # the command-line word
    label: str  # how the report names it
    file: str  # project-relative, POSIX separators
    current: Callable[[str | None], str | None]
    expected: Callable[[Launch], str]
    render: Callable[[str | None, Launch], str]

    def path(self, root: Path) -> Path:
        return root.joinpath(*self.file.split("/"))


CLAUDE = Agent("claude", "Claude Code", ".mcp.json", _json.current, _json.expected, _json.render)
CODEX = Agent("codex", "Codex", ".codex/config.toml", _toml.current, _toml.expected, _toml.render)
# Beyond the reference: pi reads MCP servers from `.pi/mcp.json` itself (built in since pi 0.99),
# in a project it trusts (docs/agent-setup.md), the same `{"mcpServers": {name: {command, args}}}`
# shape as Claude Code's file.
PI = Agent("pi", "pi", ".pi/mcp.json", _json.current, _json.expected, _json.render)

AGENTS: dict[str, Agent] = {a.key: a for a in (CLAUDE, CODEX, PI)}


def default_targets(root: Path) -> list[Agent]:
    """No agent named: every agent whose project file exists, else Claude Code and Codex."""
    found = [a for a in AGENTS.values() if a.path(root).is_file()]
    return found or [CLAUDE, CODEX]


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
