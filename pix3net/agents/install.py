"""Write one agent's `pix3-browser` entry: written, unchanged, drift or repaired.

docs/agent-setup.md, "Outcomes and exit codes" and "The two file formats".
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pix3net.agents.agents import Agent, read_text
from pix3net.agents.launch import Launch

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


def _write_project_file(path: Path, text: str) -> None:
    """Atomic (``<path>.tmp-<pid>`` + rename), keeping the file's mode when it exists."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o644
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(path.stat().st_mode)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def install(root: Path, agent: Agent, launch: Launch, *, repair: bool) -> Outcome:
    path = agent.path(root)
    text = read_text(path)
    found = agent.current(text)
    if found is None:
        _write_project_file(path, agent.render(text, launch))
        return Outcome(agent, "written")
    if found == agent.expected(launch):
        return Outcome(agent, "unchanged")
    if not repair:
        return Outcome(agent, "drift", current=found)
    _write_backup(path.with_name(path.name + ".bak"), path.read_bytes())
    _write_project_file(path, agent.render(text, launch))
    return Outcome(agent, "repaired", current=found, backup=agent.file + ".bak", backup_has_token=holds_token(text))


def holds_token(text: str | None) -> bool:
    """The file carries a CDP token: the earlier launch with ``--wsHeaders`` put it on the command line."""
    return text is not None and ("--wsHeaders" in text or "Bearer " in text)


def _write_backup(path: Path, data: bytes) -> None:
    """``<file>.bak``, 0600 whatever it held before: the copy of a token-carrying entry is a secret."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        if os.name == "posix":
            os.fchmod(handle.fileno(), 0o600)  # an old .bak may be wider
        handle.write(data)


def stale_files(root: Path, agents: list[Agent], launches: list[Launch]) -> tuple[list[str], bool]:
    """Project files whose existing entry is none of ``launches``, and whether some entry matches one."""
    stale: list[str] = []
    matching = False
    for agent in agents:
        found = agent.current(read_text(agent.path(root)))
        if found is None:
            continue
        if any(found == agent.expected(launch) for launch in launches):
            matching = True
        else:
            stale.append(agent.file)
    return stale, matching
