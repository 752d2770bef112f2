"""Tiny projects for validate tests."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pix3tools.validate import ValidateReport, run_validate

MANIFEST = "version: 1.0.0\nprojectType: 2d\ntargetPlatform: mobile\nmetadata:\n  projectName: Fixture\n"
SVG_NS = 'xmlns="http://www.w3.org/2000/svg"'


def scene(items: str) -> str:
    """A scene file: ``version: 1.0.0``, ``root:`` and the given (already indented) items."""
    return "version: 1.0.0\nroot:\n" + items


def make(tmp: Path, files: Mapping[str, str | bytes], manifest: str = MANIFEST) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "pix3project.yaml").write_text(manifest)
    for rel, content in files.items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return tmp


def validate(root: Path, *paths: str, hydrate: bool = False) -> ValidateReport:
    return run_validate(root, [str(root / p) for p in paths] or None, hydrate=hydrate)


def diags(report: ValidateReport, code: str | None = None) -> list[dict[str, Any]]:
    return [d.to_json() for d in report.diagnostics if code is None or d.code == code]


def codes(report: ValidateReport) -> list[str]:
    return [d.code for d in report.diagnostics]


def paths(report: ValidateReport, code: str) -> list[str | None]:
    return [d.path_text for d in report.diagnostics if d.code == code]
