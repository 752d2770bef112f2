"""Write one agent's `pix3-browser` entry: written, unchanged, drift or repaired.

docs/agent-setup.md, "Outcomes and exit codes" and "The two file formats".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pix3net.commands.agentsetup.known import (
    Agent,
    peek_project_file,
    read_project_file,
    write_backup,
    write_project_file,
)
from pix3net.commands.agentsetup.mcplaunch import Launch

Action = Literal["written", "unchanged", "drift", "repaired"]


@dataclass(frozen=True)
class Outcome:
    agent: Agent
    action: Action
    current: str | None = None  # the drifted entry as found (drift, repaired)
    backup: str | None = None  # project-relative, when repaired
    backup_has_token: bool = False  # the copied file carried a CDP token: it must be deleted


def drift_qualifier(current: str) -> str:
    """Name the older launches a drifted entry may be (docs/agent-setup.md, "Report")."""
    if "--browserUrl=" in current:
        return " (the P1 launch: --browserUrl at an open debugging port, no token)"
    if "--wsHeaders" in current:
        return " (an earlier launch with the CDP token on its command line and in this file)"
    return ""


def install(root: Path, agent: Agent, launch: Launch, *, repair: bool) -> Outcome:
    """Raises :class:`Refused` when a link stands where the file or one of its folders should be."""
    text = read_project_file(root, agent)
    found = agent.current(text)
    if found is None:
        write_project_file(root, agent, agent.render(text, launch))
        return Outcome(agent, "written")
    if found == agent.expected(launch):
        return Outcome(agent, "unchanged")
    if not repair:
        return Outcome(agent, "drift", current=found)
    assert text is not None  # an entry was found in it
    backup = write_backup(root, agent, text.encode("utf-8"))
    write_project_file(root, agent, agent.render(text, launch))
    return Outcome(agent, "repaired", current=found, backup=backup, backup_has_token=holds_token(text))


def holds_token(text: str | None) -> bool:
    """The file carries a CDP token: the earlier launch with ``--wsHeaders`` put it on the command line."""
    return text is not None and ("--wsHeaders" in text or "Bearer " in text)


def stale_files(root: Path, agents: list[Agent], launches: list[Launch]) -> tuple[list[str], bool]:
    """Project files whose existing entry is none of ``launches``, and whether some entry matches one."""
    stale: list[str] = []
    matching = False
    for agent in agents:
        found = agent.current(peek_project_file(root, agent))
        if found is None:
            continue
        if any(found == agent.expected(launch) for launch in launches):
            matching = True
        else:
            stale.append(agent.file)
    return stale, matching
