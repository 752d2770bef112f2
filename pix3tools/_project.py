"""Which project a file tool works on, and the folder to name when there is none (spec/cli.md §1.5).

The lookup itself is ``pix3net.home.resolve_project``; this adds the start folder each command's
"no project" message names, so the commands differ only in their wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pix3net.home import resolve_project

__all__ = ["ProjectLookup", "lookup_project"]


@dataclass(frozen=True)
class ProjectLookup:
    root: Path | None
    start: Path
    """``--project``'s folder (resolved against cwd), else cwd: where the search began."""
    explicit: bool

    @property
    def where(self) -> str:
        """The start folder, plus ``or any parent folder`` when the search went upward."""
        return str(self.start) if self.explicit else f"{self.start} or any parent folder"


def lookup_project(cwd: Path, explicit: str | None) -> ProjectLookup:
    start = (cwd / explicit).resolve() if explicit is not None else cwd.resolve()
    return ProjectLookup(resolve_project(cwd, explicit), start, explicit is not None)
