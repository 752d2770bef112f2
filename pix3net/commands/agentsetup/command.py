"""`pix3 agent-setup [claude|codex|pi] [--repair] [--remote] [--usage-statistics] [--cdp-port <n>]
[--project <dir>]` (docs/agent-setup.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from pix3net.commands.agentsetup.known import (
    AGENTS,
    CLAUDE,
    CODEX,
    PI,
    Agent,
    Refused,
    default_targets,
    read_project_file,
)
from pix3net.commands.agentsetup.mcpentry import Outcome, drift_qualifier, install
from pix3net.commands.agentsetup.mcplaunch import (
    CHROME_DEVTOOLS_MCP_VERSION,
    config_path,
    mcp_launch,
    write_config,
    ws_endpoint,
)
from pix3tools.core import pix3_home
from pix3tools.core.argv import Option, Project, Syntax, tcp_port
from pix3tools.core.ports import CDP_PORT
from pix3tools.core.runner import Call, run

__all__ = ["SYNTAX", "main"]

SYNTAX = Syntax(
    "agent-setup",
    flags=("--repair", "--remote", "--usage-statistics"),
    options=(
        Option("--project", missing="--project needs a directory", stop="-", equals=False),
        # The port takes the next token whatever it is: `--cdp-port --repair` is a bad port.
        Option("--cdp-port", missing="--cdp-port needs a port", stop=None, equals=False, convert=tcp_port),
    ),
    words=None,
    choices=tuple(AGENTS),
    unknown='agent-setup takes claude, codex or pi, not "{arg}"',
    project=Project(),
)


def _display(path: Path, home: Path) -> str:
    """``~/.pix3/…`` for the default home, the real path otherwise."""
    default = Path.home() / ".pix3"
    try:
        return "~/.pix3/" + path.relative_to(default).as_posix() if home == default else str(path)
    except ValueError:
        return str(path)


def _recorded_port(home: Path) -> int | None:
    from pix3net.daemon.chromerecord import read_record

    record = read_record(home)
    return record.port if record is not None else None


def _outcome_line(outcome: Outcome, repair_cmd: str) -> str:
    label, file = outcome.agent.label, outcome.agent.file
    if outcome.action == "written":
        return f"  {label}: wrote {file}"
    if outcome.action == "unchanged":
        return f"  {label}: {file} is up to date"
    if outcome.action == "repaired" and outcome.backup_has_token:
        return (
            f"  {label}: repaired {file} (previous copy in {outcome.backup}, mode 0600 — it holds the CDP token:"
            " delete it)"
        )
    if outcome.action == "repaired":
        return f"  {label}: repaired {file} (previous copy in {outcome.backup})"
    qualifier = drift_qualifier(outcome.current or "")
    return f"  {label}: {file} has a different pix3-browser entry{qualifier} — run `{repair_cmd}` to rewrite it"


def _notes(targets: list[Agent], launch_line: str) -> list[str]:
    lines: list[str] = []
    if CODEX in targets:
        lines.append(
            "Codex reads .codex/config.toml only in a project it trusts (or copy the table into"
            " ~/.codex/config.toml for every project)."
        )
        lines.append(
            "Codex's sandbox must be allowed to reach 127.0.0.1: approve it once when Codex asks"
            " (nothing here changes sandbox settings)."
        )
    if CLAUDE in targets:
        lines.append(
            "Claude Code picks .mcp.json up from the project (approve it when asked); for every project"
            f" at once: `claude mcp add --scope user pix3-browser -- {launch_line}`."
        )
    if PI in targets:
        lines.append(
            "pi reads .pi/mcp.json itself (MCP is built in since pi 0.99; no adapter), but only in a project it"
            " trusts: start pi here and trust the project when it asks (or type /trust; the decision is kept in"
            " ~/.pi/agent/trust.json), or run `pi --approve` to trust it for one session. Then start a new pi session."
        )
    return lines


def main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run(SYNTAX, argv, _setup, cwd=cwd, out=out, err=err)


def _setup(call: Call) -> int:
    root, out, err = call.project, call.out, call.err
    remote, repair, cdp_port = call.args.flag("--remote"), call.args.flag("--repair"), call.args.get("--cdp-port", int)
    home = pix3_home(os.environ)
    if remote:
        from pix3net.commands.agentsetup.remotecheck import remote_endpoint

        found = remote_endpoint(home, cdp_port, out=out, err=err)
        if found is None:
            return 1
        port, token = found
        where = "the SSH forward of your machine's CDP proxy"
    else:
        from pix3net.commands.agentsetup.remotecheck import local_endpoint
        from pix3net.wire.token import ensure_token

        token = ensure_token(home)
        recorded = _recorded_port(home)
        port = cdp_port if cdp_port is not None else recorded or CDP_PORT
        if not local_endpoint(port, token, recorded, err=err):
            return 1
        where = "the CDP proxy of pix3 editor" + (", the port it recorded" if port != CDP_PORT else "")
    targets = list(dict.fromkeys(AGENTS[t] for t in call.args.words)) if call.args.words else default_targets(root)
    # Each agent's `--config` file names it in the endpoint; written before the project files,
    # also when they drift.
    paths = {agent: config_path(home, agent.client, remote=remote) for agent in targets}
    actions = {agent: write_config(paths[agent], port, token, agent.client) for agent in targets}
    statistics = call.args.flag("--usage-statistics")
    launches = {agent: mcp_launch(paths[agent], usage_statistics=statistics) for agent in targets}
    try:
        for agent in targets:  # a link where a project file or its folder should be: nothing is written
            read_project_file(root, agent)
        outcomes = [install(root, agent, launches[agent], repair=repair) for agent in targets]
    except Refused as refused:
        err.write(f"pix3 agent-setup: {refused.message} Nothing was written in the project.\n")
        return 1
    repair_cmd = "pix3 agent-setup --remote --repair" if remote else "pix3 agent-setup --repair"
    lines = [f"pix3-browser: chrome-devtools-mcp {CHROME_DEVTOOLS_MCP_VERSION} at {ws_endpoint(port)} — {where}"]
    for agent, outcome in zip(targets, outcomes, strict=True):
        lines += [
            f"  {agent.label}: {launches[agent].line()}",
            f"    ({_display(paths[agent], home)} (0600, {actions[agent]}) holds the endpoint"
            f" {ws_endpoint(port, agent.client)} and its token; no token in the project or on a command line)",
            _outcome_line(outcome, repair_cmd),
        ]
    if "updated" in actions.values() or any(o.action in ("written", "repaired") for o in outcomes):
        lines += [
            "",
            "A Claude Code, Codex or pi session that is already running does not see this: start a new thread.",
        ]
    notes = _notes(targets, launches[CLAUDE].line() if CLAUDE in launches else "")
    if notes:
        lines += ["", *notes]
    out.write("\n".join(lines) + "\n")
    return 1 if any(o.action == "drift" for o in outcomes) else 0
