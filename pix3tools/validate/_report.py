"""Diagnostics, their order, the ``--json`` shape and the human report (docs/validate.md, "Output")."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pix3tools._diagnostic import Diagnostic
from pix3tools._js import locale_key

__all__ = ["Diagnostic", "ValidateReport", "locale_key", "sort_diagnostics"]


def sort_diagnostics(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """file (localeCompare), line (missing last), path (localeCompare, missing = ""), code."""
    return sorted(
        diagnostics,
        key=lambda d: (
            locale_key(d.file),
            (0, d.line) if d.line is not None else (1, 0),
            locale_key(d.path_text or ""),
            locale_key(d.code),
        ),
    )


@dataclass
class ValidateReport:
    """What ``pix3 validate`` found: the JSON report (``to_json``) and the human text."""

    project_root: str
    files: list[tuple[str, str]]  # (file, sha256)
    diagnostics: list[Diagnostic]
    level2: dict[str, Any]
    notes: list[str]

    @property
    def error_count(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warning_count(self) -> int:
        return len(self.diagnostics) - self.error_count

    @property
    def ok(self) -> bool:
        return self.error_count == 0

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "projectRoot": self.project_root,
            "errorCount": self.error_count,
            "warningCount": self.warning_count,
            "level2": self.level2,
            "files": [{"file": f, "sha256": h} for f, h in self.files],
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "notes": list(self.notes),
        }

    def json_text(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    def human_text(self) -> str:
        lines: list[str] = []
        for d in self.diagnostics:
            where = d.file if d.line is None else f"{d.file}:{d.line}"
            node = f" [{d.node_id}]" if d.node_id is not None else ""
            lines.append(f"{where}  {d.severity}  {d.code}{node}  {d.message}")
            if d.path_text:
                lines.append(f"    at {d.path_text}")
            if d.fix:
                lines.append(f"    fix: {d.fix}")
        lines.extend(f"note: {note}" for note in self.notes)
        state = self.level2.get("state")
        if state == "ran":
            level2 = f"level 2 hydrated {self.level2.get('filesHydrated', 0)} file(s)"
        elif state == "disabled":
            level2 = "level 2 off"
        else:
            level2 = f"level 2 skipped: {self.level2.get('reason', '')}"
        lines.append(
            f"{len(self.files)} file(s) checked, {self.error_count} error(s), {self.warning_count} warning(s); {level2}."
        )
        return "\n".join(lines) + "\n"
