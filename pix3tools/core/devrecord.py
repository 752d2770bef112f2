"""Reading ``.pix3/dev.json``, the record a running dev server leaves for ``pix3 editor``, ``check``
and agents (docs/devserver.md). The dev server writes it (``pix3net.devserver.devinfo``); every
reader goes through here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from pix3tools.core.private import read_private

__all__ = [
    "DEV_JSON",
    "DEV_LOG",
    "DevInfo",
    "hello_url",
    "parse_record",
    "read_dev_info",
    "read_record",
    "read_url",
]

DEV_JSON = Path(".pix3") / "dev.json"
DEV_LOG = Path(".pix3") / "dev.log"
MAX_RECORD_BYTES = 1024 * 1024  # a record is a few hundred bytes; more is not one


class DevInfo(NamedTuple):
    """A valid record as ``pix3 editor`` reads it."""

    url: str
    editor_url: str
    pid: int
    port: int | None
    public_editor_url: str | None
    raw: dict[str, Any]


def record_object(data: bytes) -> dict[str, Any] | None:
    """The record's JSON object; None when the bytes are not JSON (or too deep) or not an object."""
    try:
        raw = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return raw if isinstance(raw, dict) else None


def parse_record(data: bytes) -> DevInfo | None:
    """Valid iff ``url`` and ``editorUrl`` are strings and ``pid`` is a number (port not checked)."""
    raw = record_object(data)
    if raw is None:
        return None
    url, editor_url, pid = raw.get("url"), raw.get("editorUrl"), raw.get("pid")
    if not isinstance(url, str) or not isinstance(editor_url, str):
        return None
    if isinstance(pid, bool) or not isinstance(pid, int | float):
        return None
    port = raw.get("port")
    public = raw.get("publicEditorUrl")
    return DevInfo(
        url=url,
        editor_url=editor_url,
        pid=int(pid),
        port=port if isinstance(port, int) and not isinstance(port, bool) else None,
        public_editor_url=public if isinstance(public, str) else None,
        raw=raw,
    )


def read_record(root: Path) -> bytes | None:
    """The bytes of ``.pix3/dev.json``; None when missing, unreadable, or reached only through a
    link (a project's ``.pix3`` is never followed through one: pix3tools.core.private)."""
    try:
        return read_private(root, "dev.json", limit=MAX_RECORD_BYTES)
    except OSError:
        return None


def read_dev_info(root: Path) -> DevInfo | None:
    """The project's record, or None when missing, unreadable or invalid."""
    data = read_record(root)
    return None if data is None else parse_record(data)


def read_object(root: Path) -> dict[str, Any] | None:
    """The project's record as a JSON object, unchecked; None when missing or not an object."""
    data = read_record(root)
    return None if data is None else record_object(data)


def read_url(root: Path) -> str | None:
    """The looser rule of the flush clients: only ``url`` must be a string."""
    url = (read_object(root) or {}).get("url")
    return url if isinstance(url, str) else None


def hello_url(url: str) -> str:
    return url + ("" if url.endswith("/") else "/") + "__pix3/api/hello"
