"""The files git sees as changed in the project (docs/smoke.md, "Scene selection (no scene argument)").

``parse_porcelain`` is pure (the text of ``git status --porcelain=v1 -z`` in, project paths out);
``changed_files`` runs git. Any git failure (not installed, not a work tree, a timeout) means
"no git": selection then falls back to every top-level scene.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_TIMEOUT_S = 10.0  # each git call
GIT_MAX_OUTPUT = 64 * 1024 * 1024  # a status listing larger than this is treated as no git


def parse_porcelain(output: str, toplevel: str, real_root: str) -> list[str]:
    """Project paths (``/``-separated, relative to ``real_root``) of every staged, unstaged or
    untracked entry that still exists, unique and sorted; entries outside the project are left
    out (selection then drops those under an ignored folder).

    A rename or copy entry is followed by its old path, which is skipped; a deletion on either
    side is skipped (there is no file to reach a scene).
    """
    fields = output.split("\0")
    out: set[str] = set()
    skip_next = False
    for entry in fields:
        if skip_next:
            skip_next = False
            continue
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        if "R" in status or "C" in status:
            skip_next = True
        if "D" in status:
            continue
        rel = os.path.relpath(os.path.join(toplevel, path), real_root)
        if rel.startswith("..") or os.path.isabs(rel):
            continue
        out.add(rel.replace(os.sep, "/"))
    return sorted(out)


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 or len(done.stdout) > GIT_MAX_OUTPUT:
        return None
    return done.stdout.decode("utf-8", "replace")


def changed_files(root: Path) -> list[str] | None:
    """The changed project files, or None when the project is not in a git work tree."""
    toplevel = _git(root, "rev-parse", "--show-toplevel")
    if toplevel is None or not toplevel.strip():
        return None
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
    if status is None:
        return None
    try:
        real_root = os.path.realpath(root)
    except OSError:
        real_root = str(root)
    return parse_porcelain(status, toplevel.strip(), real_root)
