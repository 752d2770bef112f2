"""A gap record: normalise, serialise, append with one O_APPEND write, read back (docs/gap.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from pix3tools.core.private import private_folder, read_private
from pix3tools.core.timestamps import iso_time

GAPS_FILE = ".pix3/gaps.jsonl"
# The order is a contract: the kit lists the kinds in this order.
KINDS: tuple[str, ...] = ("capability", "tool", "node", "doc", "other")
# The reference's limits: a summary is one short line, the rest goes in detail.
MAX_SUMMARY = 200
MAX_DETAIL = 4000
MAX_CONTEXT = 500

_WHITESPACE = re.compile(r"\s+")


class GapError(ValueError):
    """A record that cannot be written; the message is what the user reads."""


def _one_line(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def detect_agent(env: Mapping[str, str]) -> str | None:
    """The agent running us, from its environment; ``None`` when nothing says."""
    if env.get("CLAUDECODE") == "1":
        return "claude-code"
    if any(name.startswith("CODEX_") for name in env):
        return "codex"
    if env.get("PI_CODING_AGENT") or env.get("AI_AGENT") == "pi":
        return "pi"
    return None


def build_record(
    *,
    now: datetime,
    kind: str,
    summary: str,
    detail: str | None = None,
    context: str | None = None,
    agent: str | None = None,
) -> dict[str, str]:
    """The record, keys in the contract's order; optional keys absent, never null."""
    if kind not in KINDS:
        raise GapError(f'--kind is one of {", ".join(KINDS)}, not "{kind}"')
    line = _one_line(summary)
    if not line:
        raise GapError(f'say what was missing: pix3 gap "<summary>" --kind {kind}')
    if len(line) > MAX_SUMMARY:
        raise GapError(f"the summary is {len(line)} characters; at most {MAX_SUMMARY} (put the rest in --detail)")
    if detail is not None and len(detail) > MAX_DETAIL:
        raise GapError(f"--detail is {len(detail)} characters; at most {MAX_DETAIL}")
    where = _one_line(context) if context is not None else ""
    if len(where) > MAX_CONTEXT:
        raise GapError(f"--context is {len(where)} characters; at most {MAX_CONTEXT}")
    record: dict[str, str] = {"ts": iso_time(now)}
    if agent:
        record["agent"] = agent
    record["kind"] = kind
    record["summary"] = line
    kept = detail.strip() if detail is not None else ""
    if kept:
        record["detail"] = kept
    if where:
        record["context"] = where
    return record


def serialise(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def append_record(root: Path, record: Mapping[str, Any]) -> Path:
    """Append one line with a single ``write`` on an ``O_APPEND`` descriptor.

    POSIX appends each ``write`` at the end atomically with respect to other appenders, so two
    agents recording at once never interleave inside a line; no lock is taken. `.pix3` and the
    file are reached without following a link (``Refused`` names a planted one).
    """
    with private_folder(root, create=True) as folder:
        folder.append("gaps.jsonl", (serialise(record) + "\n").encode("utf-8"))
    return root / GAPS_FILE


def read_records(root: Path) -> list[dict[str, Any]]:
    """Every well-formed record, oldest first; blank, torn or foreign lines are skipped.
    ``Refused`` when `.pix3` or the file is a link."""
    raw = read_private(root, "gaps.jsonl")
    if raw is None:
        return []
    records: list[dict[str, Any]] = []
    for line in raw.decode("utf-8", errors="replace").split("\n"):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("summary"), str) and isinstance(value.get("kind"), str):
            records.append(value)
    return records


def list_line(record: Mapping[str, Any]) -> str:
    agent = record.get("agent")
    who = f"[{agent}] " if isinstance(agent, str) and agent else ""
    return f"{record.get('ts', '')}  {record['kind']:<10} {who}{record['summary']}"
