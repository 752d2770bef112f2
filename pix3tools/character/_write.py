"""All-or-nothing writing of a compiled character (docs/character-compile.md, "Writing: all or nothing")."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from pix3tools.character._compile import PlannedFile

__all__ = ["Action", "conflict_error", "plan_actions", "write_files"]


@dataclass(frozen=True)
class Action:
    file: PlannedFile
    action: str  # "written" | "unchanged" | "replaced" | "conflict"


def plan_actions(root: Path, files: list[PlannedFile], force: bool) -> list[Action]:
    actions = []
    for planned in files:
        target = root / planned.path
        try:
            current = target.read_bytes()
        except (FileNotFoundError, NotADirectoryError):  # a missing folder fails at write time
            actions.append(Action(planned, "written"))
            continue
        except OSError:
            current = None  # a folder or an unreadable file stands there: other content
        if current == planned.data:
            actions.append(Action(planned, "unchanged"))
        else:
            actions.append(Action(planned, "replaced" if force else "conflict"))
    return actions


def conflict_error(actions: list[Action]) -> str | None:
    conflicts = sum(1 for a in actions if a.action == "conflict")
    if not conflicts:
        return None
    return f"{conflicts} file(s) exist with other content; nothing was written (--force replaces them)."


def write_files(root: Path, actions: list[Action]) -> str | None:
    """Write every written/replaced file; None on success, else the error (nothing changed).

    Every file is first written beside its target as ``<path>.<pid>.tmp``; only when all of them
    are on disk are they renamed into place, so a full disk or a read-only folder leaves the
    project as it was.
    """
    staged: list[tuple[Path, Path]] = []
    created: list[Path] = []
    pid = os.getpid()
    try:
        for action in actions:
            if action.action not in ("written", "replaced"):
                continue
            target = root / action.file.path
            missing = [p for p in (target.parent, *target.parent.parents) if not p.exists()]
            target.parent.mkdir(parents=True, exist_ok=True)
            created.extend(reversed(missing))
            tmp = target.with_name(f"{target.name}.{pid}.tmp")
            with tmp.open("wb") as handle:
                staged.append((tmp, target))
                handle.write(action.file.data)
        for tmp, target in staged:
            os.replace(tmp, target)
    except OSError as exc:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                tmp.unlink()
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        where = exc.filename or root
        return f"could not write {where} ({exc.strerror or exc}); nothing was written."
    return None
