"""What one validate run knows about the project: the project model, plus SVG findings and the
scripts' export index, each worked out once per run."""

from __future__ import annotations

from pathlib import Path

from pix3tools.project import Project, read_text
from pix3tools.validate._scripts import ScriptIndex, scan_scripts
from pix3tools.validate._svg import SvgFinding, inspect_svg

__all__ = ["ValidateProject"]


class ValidateProject(Project):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._svg: dict[str, list[SvgFinding]] = {}
        self._scripts: ScriptIndex | None = None

    @property
    def scripts(self) -> ScriptIndex:
        if self._scripts is None:
            self._scripts = scan_scripts(self.files)
        return self._scripts

    def case_fix(self, rel: str) -> str | None:
        """For a file that does not exist: the fix when one differs from it only in case."""
        match = self.files.case_match(rel)
        return f"the file is res://{match} (case differs)" if match else None

    def svg(self, rel: str) -> list[SvgFinding]:
        cached = self._svg.get(rel)
        if cached is None:
            cached = inspect_svg(read_text(self.root / rel) or "")
            self._svg[rel] = cached
        return cached
