"""Codex's `.codex/config.toml`: our `[mcp_servers.pix3-browser]` table (docs/agent-setup.md,
"The two file formats").

No TOML round trip: the table is located by its header line and replaced as a whole, every other
byte of the file is kept. Comparison ignores blank lines, comments and indentation inside the table.
"""

from __future__ import annotations

import json
import re

from pix3net.commands.agentsetup.mcplaunch import SERVER_NAME, Launch

__all__ = [
    "HEADER",
    "STARTUP_TIMEOUT_SEC",
    "TOOL_TIMEOUT_SEC",
    "current",
    "expected",
    "render",
    "table",
]


HEADER = f"[mcp_servers.{SERVER_NAME}]"
# Codex's 60 s default is shorter than pix3_game_run; 20 s covers npx's first download.
STARTUP_TIMEOUT_SEC = 20
TOOL_TIMEOUT_SEC = 300

_LINE = re.compile(r"[^\n]*\n|[^\n]+$")


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def table(launch: Launch) -> str:
    args = ", ".join(_string(a) for a in launch.args)
    return (
        f"{HEADER}\n"
        f"command = {_string(launch.command)}\n"
        f"args = [{args}]\n"
        f"startup_timeout_sec = {STARTUP_TIMEOUT_SEC}\n"
        f"tool_timeout_sec = {TOOL_TIMEOUT_SEC}\n"
    )


def _span(lines: list[str]) -> tuple[int, int] | None:
    """[start, end) of our table: from its header to the next header (any ``[``) or the end."""
    for start, line in enumerate(lines):
        if line.strip() == HEADER:
            end = start + 1
            while end < len(lines) and not lines[end].lstrip().startswith("["):
                end += 1
            return start, end
    return None


def _normal(lines: list[str]) -> str:
    kept = (line.strip() for line in lines)
    return "\n".join(line for line in kept if line and not line.startswith("#"))


def expected(launch: Launch) -> str:
    return _normal(_lines(table(launch)))


def current(text: str | None) -> str | None:
    if not text:
        return None
    lines = _lines(text)
    span = _span(lines)
    return None if span is None else _normal(lines[span[0] : span[1]])


def render(text: str | None, launch: Launch) -> str:
    ours = table(launch)
    if not text:
        return ours
    lines = _lines(text)
    span = _span(lines)
    if span is None:
        gap = "" if text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
        return text + gap + ours
    before = "".join(lines[: span[0]])
    rest = "".join(lines[span[1] :])
    sep = "\n" if rest and _lines(rest)[0].strip() != "" else ""
    return before + ours + sep + rest
