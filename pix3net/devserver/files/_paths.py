"""Wire paths: parsing, the private `.pix3` names, and resolution without following symlinks.

docs/devserver-files.md, "Wire paths". A wire path is a POSIX path relative to the project root; it is
rejected rather than normalised. Resolution lstat()s every existing component: a symbolic link
anywhere refuses the request, so nothing is ever reached through one.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from typing import Literal

from ._errors import FileConflict, FileForbidden, FileInvalid, not_found

MAX_WIRE_PATH = 4096
RESERVED_CHILDREN = frozenset({"dev.json", "dev.log", "tmp", "tx", "history", "local"})
_DRIVE = re.compile(r"^[A-Za-z]:")
JOURNALED = re.compile(r"(^|/)locales/[^/]+\.json$")
TEMP_NAME = re.compile(r"^\..+\.pix3-tmp-[0-9a-f]+$")  # our own cross-device temps

Kind = Literal["file", "dir", "other", "none"]


def _bad(field: str, why: str) -> FileInvalid:
    return FileInvalid("bad_path", f"`{field}` is not a valid project path: {why}.", field=field)


def parse_wire_path(value: object, field: str = "path") -> str:
    """The wire path as given, or ``FileInvalid`` ``bad_path`` naming ``field`` (``FileForbidden``
    for private paths)."""
    if not isinstance(value, str) or value == "":
        raise _bad(field, "it must be a non-empty string")
    if len(value) > MAX_WIRE_PATH:
        raise _bad(field, f"longer than {MAX_WIRE_PATH} characters")
    if "\0" in value:
        raise _bad(field, "it contains a NUL character")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from JSON: no file name can hold it
            raise _bad(field, "it is not valid UTF-8 text") from None
    if "\\" in value:
        raise _bad(field, "it contains a backslash")
    if value.startswith("/"):
        raise _bad(field, "it is absolute")
    if _DRIVE.match(value):
        raise _bad(field, "it starts with a drive letter")
    for segment in value.split("/"):
        if segment == "":
            raise _bad(field, "it has an empty segment")
        if segment in (".", ".."):
            raise _bad(field, f"it has a `{segment}` segment")
        if ":" in segment:
            raise _bad(field, "a segment contains `:`")
        if segment.endswith((".", " ")):
            raise _bad(field, "a segment ends in a dot or a space")
    check_reserved(value)
    return value


def is_reserved(wire: str) -> bool:
    parts = wire.split("/")
    if parts[0].lower() != ".pix3":
        return False
    return len(parts) == 1 or parts[1].lower() in RESERVED_CHILDREN


def check_reserved(wire: str) -> None:
    if is_reserved(wire):
        raise FileForbidden("reserved_path", f"{wire} is private to the dev server.", path=wire)


def is_journaled(wire: str) -> bool:
    """Scenes, prefabs, locale tables and the project file keep a version journal."""
    if wire == "pix3project.yaml" or wire.endswith((".pix3scene", ".prefab")):
        return True
    return "locales/" in wire and JOURNALED.search(wire) is not None


def kind_of(mode: int) -> Kind:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    return "other"


def resolve(root: str, wire: str, *, allow_missing: bool = False) -> tuple[Kind, os.stat_result | None]:
    """lstat every component of ``wire`` under ``root``: its kind and final stat.

    A symlink anywhere → ``FileForbidden`` ``symlink``; a parent that is not a directory →
    ``FileConflict`` ``not_a_directory``; missing → ``FileMissing`` unless ``allow_missing`` (then
    kind ``none``).
    """
    parts = wire.split("/")
    current = root
    for index, part in enumerate(parts):
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if allow_missing:
                return "none", None
            raise not_found(wire) from None
        except NotADirectoryError:
            raise FileConflict("not_a_directory", f"A parent of {wire} is not a directory.") from None
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:
                raise _bad("path", "a segment is too long") from None
            raise
        if stat.S_ISLNK(st.st_mode):
            raise FileForbidden("symlink", f"{wire} goes through a symbolic link; the file API does not follow them.")
        if index < len(parts) - 1 and not stat.S_ISDIR(st.st_mode):
            raise FileConflict("not_a_directory", f"A parent of {wire} is not a directory.")
        if index == len(parts) - 1:
            return kind_of(st.st_mode), st
    raise AssertionError("unreachable: a wire path has at least one segment")


def missing_ancestors(root: str, wire: str) -> list[str]:
    """The wire paths of ``wire``'s parents that do not exist yet, outermost first."""
    parts = wire.split("/")[:-1]
    missing: list[str] = []
    for index in range(len(parts)):
        prefix = "/".join(parts[: index + 1])
        if missing or not os.path.lexists(os.path.join(root, prefix)):
            missing.append(prefix)
    return missing
