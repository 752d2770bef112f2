"""Conditional writes: entity-tag lists and the 412 preconditions of PUT, changeset and restore
(docs/devserver-files.md)."""

from __future__ import annotations

from ._errors import FileStale


def parse_etags(raw: str | None) -> list[str] | None:
    """An If-Match / If-None-Match list: comma-separated, `W/` and quotes stripped."""
    if raw is None:
        return None
    tags = []
    for item in raw.split(","):
        tag = item.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        tag = tag.strip('"').strip()
        if tag:
            tags.append(tag.lower() if tag != "*" else tag)
    return tags


def check_preconditions(wire: str, current: str | None, if_match: list[str] | None, create_only: bool) -> None:
    """``FileStale`` `exists` / `base_mismatch` (412; docs/devserver-files.md, "Writing a file")."""
    if create_only and current is not None:
        raise FileStale("exists", f"{wire} already exists.", path=wire, currentHash=current)
    if if_match is None:
        return
    if "*" in if_match:
        if current is None:
            raise FileStale("base_mismatch", f"{wire} does not exist.", path=wire, currentHash=None)
    elif current not in if_match:
        raise FileStale("base_mismatch", f"{wire} changed since the base you edited.", path=wire, currentHash=current)
