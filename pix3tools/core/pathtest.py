"""File tests for paths a user typed, as the commands' "not found" answers need them.

``pathlib`` (Python 3.11) raises on some paths the system will not look up — a name longer
than the file system allows (``ENAMETOOLONG``), no permission on a folder on the way — where a
command must give its ordinary answer (the scene, spec or project does not exist), not a
traceback. These answer False for any path that cannot be looked up.
"""

from __future__ import annotations

import os
import stat

__all__ = ["exists", "is_dir", "is_file"]


def _mode(path: str | os.PathLike[str]) -> int | None:
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None


def exists(path: str | os.PathLike[str]) -> bool:
    return _mode(path) is not None


def is_file(path: str | os.PathLike[str]) -> bool:
    mode = _mode(path)
    return mode is not None and stat.S_ISREG(mode)


def is_dir(path: str | os.PathLike[str]) -> bool:
    mode = _mode(path)
    return mode is not None and stat.S_ISDIR(mode)
