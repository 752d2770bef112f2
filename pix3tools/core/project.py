"""Which project a command works on, and the one message when there is none (docs/cli.md, "Entry rules").

``--project <dir>`` is resolved from the current folder the way the reference resolves a path
(lexically, symlinks kept) and used as is: no upward search, but it must hold the project file.
Without it, the nearest folder at or above the start holding a readable ``pix3project.yaml`` *file*
(a folder of that name does not count).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from pix3tools.core.pathtest import is_file

__all__ = [
    "PROJECT_FILE",
    "ProjectLookup",
    "find_project_root",
    "lookup_project",
    "no_project_message",
]

PROJECT_FILE = "pix3project.yaml"


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))


def _is_project(folder: Path) -> bool:
    candidate = folder / PROJECT_FILE
    return is_file(candidate) and os.access(candidate, os.R_OK)


def find_project_root(start: Path) -> Path | None:
    """The nearest ancestor of ``start`` (inclusive) holding a readable ``pix3project.yaml`` file."""
    here = _absolute(start)
    for folder in (here, *here.parents):
        if _is_project(folder):
            return folder
    return None


class ProjectLookup(NamedTuple):
    """The project found (or None), the folder the lookup started from, and whether it was given."""

    root: Path | None
    start: Path
    explicit: bool

    def message(self, command: str, *, parent_hint: bool | None = None) -> str:
        """The one "no project" message, a full stderr line (see :func:`no_project_message`)."""
        return no_project_message(command, self.start, searched=self.explicit is False, parent_hint=parent_hint)


def lookup_project(cwd: Path, explicit: str | None, *, start: Path | None = None) -> ProjectLookup:
    """Look the project up: ``explicit`` (``--project``) wins; else the upward search from ``start``
    (default ``cwd``)."""
    if explicit is not None:
        folder = _absolute(cwd / explicit)
        return ProjectLookup(folder if _is_project(folder) else None, folder, True)
    here = _absolute(start if start is not None else cwd)
    return ProjectLookup(find_project_root(here), here, False)


def no_project_message(command: str, start: Path, *, searched: bool, parent_hint: bool | None = None) -> str:
    """``pix3 <command>: no pix3project.yaml in <start>[ or any parent folder]. Run it inside a Pix3
    project, or pass --project <dir>.`` — the bracket when the search went upward (``parent_hint``
    overrides: gap always says it, as the reference does)."""
    hint = searched if parent_hint is None else parent_hint
    where = f"{start} or any parent folder" if hint else f"{start}"
    return f"pix3 {command}: no {PROJECT_FILE} in {where}. Run it inside a Pix3 project, or pass --project <dir>.\n"
