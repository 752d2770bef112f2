"""Where pix3 keeps its own files (``PIX3_HOME``) and the one way it writes a file atomically.

Pure of global state: every function takes the environment or the folder it needs, so tests pass
their own.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = ["atomic_write", "ensure_home", "pix3_home"]


def pix3_home(env: Mapping[str, str] | None = None) -> Path:
    """``PIX3_HOME`` when set and not empty, else ``~/.pix3``."""
    env = os.environ if env is None else env
    value = env.get("PIX3_HOME", "")
    if value:
        return Path(value).expanduser().resolve()
    return Path.home() / ".pix3"


def ensure_home(home: Path) -> Path:
    """Create the home folder (0700: it holds the token) and return it."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    return home


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
