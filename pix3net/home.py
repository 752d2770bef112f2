"""Where pix3 keeps its files: PIX3_HOME, the project root, atomic writes with modes.

Pure of global state: every function takes the environment or the start folder it needs, so
tests pass their own (STYLE.md: no global state outside main()).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

PROJECT_FILE = "pix3project.yaml"


def pix3_home(env: Mapping[str, str] | None = None) -> Path:
    """``PIX3_HOME`` when set and not empty, else ``~/.pix3`` (spec/cdp.md §0)."""
    env = os.environ if env is None else env
    value = env.get("PIX3_HOME", "")
    if value:
        return Path(value).expanduser().resolve()
    return Path.home() / ".pix3"


def ensure_home(home: Path) -> Path:
    """Create the home folder (0700: it holds the token) and return it."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    return home


def find_project_root(start: Path) -> Path | None:
    """The nearest ancestor of ``start`` (inclusive) holding a readable ``pix3project.yaml`` file.

    A folder of that name does not count (spec/cli.md §1.5, §7.18).
    """
    here = start.resolve()
    for folder in (here, *here.parents):
        candidate = folder / PROJECT_FILE
        if candidate.is_file() and os.access(candidate, os.R_OK):
            return folder
    return None


def resolve_project(cwd: Path, explicit: str | None) -> Path | None:
    """``--project <dir>`` is used as given (no upward search) but must hold the project file;
    without it, the upward search from ``cwd``."""
    if explicit is not None:
        root = (cwd / explicit).resolve()
        return root if (root / PROJECT_FILE).is_file() else None
    return find_project_root(cwd)


def no_project_message(start: Path, *, explicit: bool, parent_hint: bool = True) -> str:
    """The "no project" error: names the file and the folder, says what to do."""
    where = f"{start}" if explicit or not parent_hint else f"{start} or any parent folder"
    return f"No {PROJECT_FILE} found in {where}. Run it inside a Pix3 project, or pass --project <dir>."


def atomic_write(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    Readers see the old bytes or the new ones, never half a file; the mode is set before the
    rename so a secret is never readable by others, even for an instant.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
