"""Does the project's agent config reach this proxy? The check `pix3 editor` prints
(docs/agent-setup.md, "What pix3 editor checks")."""

from __future__ import annotations

from pathlib import Path

from pix3net.agents.agents import AGENTS, peek_project_file
from pix3net.agents.install import stale_files
from pix3net.agents.launch import LOCAL_CONFIG, Launch, config_text, mcp_launch


def _current_launches(config_path: Path) -> list[Launch]:
    """The launches `pix3 agent-setup` writes now: usage statistics off (its default) or on."""
    return [mcp_launch(config_path), mcp_launch(config_path, usage_statistics=True)]


def stale_configs(root: Path, home: Path, port: int, token: str) -> list[str]:
    """Project files whose entry is another launch, plus the `--config` file's path when an entry
    is current but the file holds another port or token. Missing entries are not stale."""
    config_path = home / LOCAL_CONFIG
    stale, matching = stale_files(root, list(AGENTS.values()), _current_launches(config_path))
    if matching:
        try:
            current: bytes | None = config_path.read_bytes()
        except OSError:
            current = None
        if current != config_text(port, token).encode("utf-8"):
            stale.append(str(config_path))
    return stale


def configured_files(root: Path, home: Path) -> list[str]:
    """Project files whose entry is the current local launch."""
    launches = _current_launches(home / LOCAL_CONFIG)
    return [
        a.file
        for a in AGENTS.values()
        if any(a.current(peek_project_file(root, a)) == a.expected(launch) for launch in launches)
    ]


def staleness_line(root: Path, home: Path, port: int, token: str) -> str | None:
    """The editor's line naming what does not reach this Chrome, or None when nothing is stale."""
    config = str(home / LOCAL_CONFIG)
    stale = stale_configs(root, home, port, token)
    files = [s for s in stale if s != config]
    parts: list[str] = []
    if files:
        verb = "has" if len(files) == 1 else "have"
        parts.append(
            f"{' and '.join(files)} {verb} a pix3-browser entry that does not reach this Chrome"
            " (an older launch: another port, another token, the token on its command line)"
        )
    if config in stale:
        parts.append(f"{config} (what chrome-devtools-mcp reads) holds another port or token")
    if not parts:
        return None
    return "; ".join(parts) + ": run `pix3 agent-setup --repair`, then start a new agent thread."
