"""All-or-nothing writing of a compiled character (docs/character-compile.md, "Writing: all or nothing").

The project is untrusted input: the targets and their folders are read and written relative to
folder descriptors, never through a link (`pix3tools.core.private`). A link where a target or one
of its folders should be is an error and nothing is written.
"""

from __future__ import annotations

import contextlib
import errno
import os
from dataclasses import dataclass
from pathlib import Path

from pix3tools.character._compile import PlannedFile
from pix3tools.core.private import Folder, Refused, open_folder, open_folder_making, remove_made

__all__ = ["Action", "conflict_error", "plan_actions", "write_files"]


@dataclass(frozen=True)
class Action:
    file: PlannedFile
    action: str  # "written" | "unchanged" | "replaced" | "conflict"


def _current(root: Path, relative: str) -> bytes | None:
    """The target's bytes; None when it or a folder on the way is missing. A link on the way, or
    anything but a regular file at the target, raises :class:`Refused`."""
    *folders, name = relative.split("/")
    try:
        with open_folder(root, folders) as folder:
            return folder.read_if_any(name)
    except (FileNotFoundError, NotADirectoryError):
        return None


def plan_actions(root: Path, files: list[PlannedFile], force: bool) -> list[Action]:
    """What each file would do; raises :class:`Refused` for a link where a target or its folder is."""
    actions = []
    for planned in files:
        try:
            current = _current(root, planned.path)
        except Refused as refused:
            if refused.errno == errno.ELOOP:
                raise
            # a file where a folder should be fails at write time; a folder or a special file at
            # the target is other content
            current = None if refused.errno == errno.ENOTDIR else b""
        if current is None:
            actions.append(Action(planned, "written"))
        elif current == planned.data:
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

    Every file is first written beside its target as ``<name>.<pid>.tmp``; only when all of them
    are on disk are they renamed into place, so a full disk, a read-only folder or a link found on
    the way leaves the project as it was.
    """
    staged: list[tuple[Folder, str, str]] = []
    created: list[list[str]] = []
    pid = os.getpid()
    try:
        try:
            for action in actions:
                if action.action not in ("written", "replaced"):
                    continue
                *parts, name = action.file.path.split("/")
                folder = open_folder_making(root, parts, created)
                temp = f"{name}.{pid}.tmp"
                staged.append((folder, temp, name))
                folder.write_new(temp, action.file.data, durable=False)
            for folder, temp, name in staged:
                folder.rename(temp, folder, name)
        except OSError as exc:
            for folder, temp, _ in staged:
                with contextlib.suppress(OSError):
                    folder.unlink(temp)
            remove_made(root, created)
            if isinstance(exc, Refused) and exc.errno == errno.ELOOP:
                return f"{exc.message} Nothing was written."
            if isinstance(exc, Refused):
                return f"could not write {exc.path} ({os.strerror(exc.errno or errno.EINVAL)}); nothing was written."
            where = exc.filename or root
            return f"could not write {where} ({exc.strerror or exc}); nothing was written."
    finally:
        for folder, _, _ in staged:
            folder.close()
    return None
