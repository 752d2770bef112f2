"""`pix3 agent-setup [claude|codex|pi] [--repair] [--remote] [--cdp-port <n>] [--project <dir>]` (spec/cli.md §2)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from pix3net.agents.agents import AGENTS, CLAUDE, CODEX, PI, Agent, default_targets
from pix3net.agents.install import Outcome, drift_qualifier, install
from pix3net.agents.launch import (
    CHROME_DEVTOOLS_MCP_VERSION,
    DEFAULT_CDP_PORT,
    LOCAL_CONFIG,
    REMOTE_CONFIG,
    mcp_launch,
    write_config,
    ws_endpoint,
)
from pix3net.cli._port import parse_port
from pix3net.cli.usage import command_usage, usage_error
from pix3net.home import PROJECT_FILE, pix3_home, resolve_project

NAME = "agent-setup"


@dataclass
class SetupArgs:
    targets: list[str] = field(default_factory=list)
    repair: bool = False
    remote: bool = False
    cdp_port: int | None = None
    project: str | None = None
    help: bool = False


class ArgError(ValueError):
    pass


def parse_args(argv: list[str]) -> SetupArgs:
    args = SetupArgs()
    if "--help" in argv or "-h" in argv:
        args.help = True
        return args
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in AGENTS:
            args.targets.append(token)
        elif token == "--repair":
            args.repair = True
        elif token == "--remote":
            args.remote = True
        elif token in ("--project", "--cdp-port"):
            value = argv[i + 1] if i + 1 < len(argv) else None
            if token == "--project":
                if value is None or value.startswith("-"):
                    raise ArgError("--project needs a directory")
                args.project = value
            else:
                port = None if value is None else parse_port(value)
                if port is None:
                    raise ArgError("--cdp-port needs a port")
                args.cdp_port = port
            i += 1
        else:
            raise ArgError(f'agent-setup takes claude, codex or pi, not "{token}"')
        i += 1
    return args


def _display(path: Path, home: Path) -> str:
    """``~/.pix3/…`` for the default home, the real path otherwise."""
    default = Path.home() / ".pix3"
    try:
        return "~/.pix3/" + path.relative_to(default).as_posix() if home == default else str(path)
    except ValueError:
        return str(path)


def _local_port(home: Path, given: int | None) -> int:
    if given is not None:
        return given
    from pix3net.chrome.state import read_record

    record = read_record(home)
    return record.port if record is not None else DEFAULT_CDP_PORT


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
        lines.append("pi reads .pi/mcp.json through its MCP adapter (pi-mcp-adapter); start a new pi session.")
    return lines


def run(argv: list[str], *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = parse_args(argv)
    except ArgError as exc:
        err.write(usage_error(NAME, str(exc)))
        return 2
    if args.help:
        out.write(command_usage(NAME))
        return 0
    cwd = Path.cwd()
    root = resolve_project(cwd, args.project)
    if root is None:
        start = (cwd / args.project).resolve() if args.project is not None else cwd
        where = f"{start}" if args.project is not None else f"{start} or any parent folder"
        err.write(
            f"pix3 agent-setup: no {PROJECT_FILE} in {where}. Run it inside a Pix3 project, or pass --project <dir>.\n"
        )
        return 2
    home = pix3_home(os.environ)
    if args.remote:
        from pix3net.agents.remote import remote_endpoint

        found = remote_endpoint(home, args.cdp_port, out=out, err=err)
        if found is None:
            return 1
        port, token = found
        config_path = home / REMOTE_CONFIG
        where = "the SSH forward of your machine's CDP proxy"
    else:
        from pix3net.cdp.token import ensure_token

        token = ensure_token(home)
        port = _local_port(home, args.cdp_port)
        config_path = home / LOCAL_CONFIG
        where = "the CDP proxy of pix3 editor" + (", the port it recorded" if port != DEFAULT_CDP_PORT else "")
    action = write_config(config_path, port, token)  # before the project files, also when they drift
    launch = mcp_launch(config_path)
    targets = [AGENTS[t] for t in args.targets] if args.targets else default_targets(root)
    outcomes = [install(root, agent, launch, repair=args.repair) for agent in targets]
    repair_cmd = "pix3 agent-setup --remote --repair" if args.remote else "pix3 agent-setup --repair"
    lines = [
        f"pix3-browser: {launch.line()}",
        f"  (chrome-devtools-mcp {CHROME_DEVTOOLS_MCP_VERSION}; {_display(config_path, home)} (0600, {action})"
        f" holds the endpoint {ws_endpoint(port)} — {where} — and its token;"
        " no token in the project or on a command line)",
        *(_outcome_line(o, repair_cmd) for o in outcomes),
    ]
    if action == "updated" or any(o.action in ("written", "repaired") for o in outcomes):
        lines += [
            "",
            "A Claude Code, Codex or pi session that is already running does not see this: start a new thread.",
        ]
    notes = _notes(list(dict.fromkeys(targets)), launch.line())
    if notes:
        lines += ["", *notes]
    out.write("\n".join(lines) + "\n")
    return 1 if any(o.action == "drift" for o in outcomes) else 0
