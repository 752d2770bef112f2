"""The agents we configure and where each keeps its project MCP file."""

from __future__ import annotations

import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pix3net.commands.agentsetup import jsonfile, tomlfile
from pix3net.commands.agentsetup.mcplaunch import Launch
from pix3tools.core.private import Refused, open_folder

# A project's MCP file is a few hundred bytes; anything far larger is not one of ours.
MAX_PROJECT_FILE = 4 * 1024 * 1024


@dataclass(frozen=True)
class Agent:
    key: str  # the command-line word
    label: str  # how the report names it
    file: str  # project-relative, POSIX separators
    current: Callable[[str | None], str | None]
    expected: Callable[[Launch], str]
    render: Callable[[str | None, Launch], str]
    client: str  # the name the CDP proxy shows for its connections (`?client=`)

    def path(self, root: Path) -> Path:
        return root.joinpath(*self.file.split("/"))

    @property
    def parts(self) -> tuple[list[str], str]:
        """The folders of :attr:`file` below the project root, and its name."""
        *folders, name = self.file.split("/")
        return folders, name


CLAUDE = Agent(
    "claude", "Claude Code", ".mcp.json", jsonfile.current, jsonfile.expected, jsonfile.render, "claude-code"
)
CODEX = Agent("codex", "Codex", ".codex/config.toml", tomlfile.current, tomlfile.expected, tomlfile.render, "codex")
# Beyond the reference: pi reads MCP servers from `.pi/mcp.json` itself (built in since pi 0.99),
# in a project it trusts (docs/agent-setup.md), the same `{"mcpServers": {name: {command, args}}}`
# shape as Claude Code's file.
PI = Agent("pi", "pi", ".pi/mcp.json", jsonfile.current, jsonfile.expected, jsonfile.render, "pi")

AGENTS: dict[str, Agent] = {a.key: a for a in (CLAUDE, CODEX, PI)}


def default_targets(root: Path) -> list[Agent]:
    """No agent named: every agent whose project file exists, else Claude Code and Codex."""
    found = [a for a in AGENTS.values() if peek_project_file(root, a) is not None]
    return found or [CLAUDE, CODEX]


def read_project_file(root: Path, agent: Agent) -> str | None:
    """The agent's project file, reached without following a link (a cloned project is untrusted
    input: its `.mcp.json` may be a link to a file of the user's); None when it or its folder is
    missing, or it is not UTF-8. A link on the way raises :class:`Refused` (docs/agent-setup.md)."""
    folders, name = agent.parts
    try:
        with open_folder(root, folders) as folder:
            data = folder.read_if_any(name, limit=MAX_PROJECT_FILE)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def peek_project_file(root: Path, agent: Agent) -> str | None:
    """:func:`read_project_file` for a look only (the editor's staleness line): a link, or a file
    that cannot be read, is no entry of ours."""
    try:
        return read_project_file(root, agent)
    except OSError:
        return None


def write_project_file(root: Path, agent: Agent, text: str) -> None:
    """Replace the agent's project file with ``text``, keeping its mode: a temporary in its folder,
    then a rename, so a link planted at its name is replaced, never written through; its folders
    are made as needed and never followed through a link (:class:`Refused`)."""
    folders, name = agent.parts
    with open_folder(root, folders, create=True) as folder:
        found = folder.lstat(name)
        mode = stat.S_IMODE(found.st_mode) if found is not None and stat.S_ISREG(found.st_mode) else 0o644
        folder.write(name, text.encode("utf-8"), mode=mode, durable=False)


def write_backup(root: Path, agent: Agent, data: bytes) -> str:
    """``<file>.bak`` beside the agent's file, 0600 whatever stood there (the copy of a
    token-carrying entry is a secret); returns its project path."""
    folders, name = agent.parts
    with open_folder(root, folders, create=True) as folder:
        folder.write(name + ".bak", data, mode=0o600, durable=False)
    return agent.file + ".bak"


__all__ = [
    "AGENTS",
    "CLAUDE",
    "CODEX",
    "PI",
    "Agent",
    "Refused",
    "default_targets",
    "peek_project_file",
    "read_project_file",
    "write_backup",
    "write_project_file",
]
