"""`$PIX3_HOME/chrome.json`: the owner's record of the Chrome it runs (docs/chrome-owner.md,
"The record: chrome.json"), and the profile folder.

Written by the owner once its proxy listens; removed only by the owner whose pid it holds, so a
newer owner's record survives an older one's exit. The reader is tolerant: a record is usable
when ``port`` is a number and ``profile`` a string (a 1.x record lacks the pids).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pix3tools.core import atomic_write

RECORD_FILE = "chrome.json"
LOG_FILE = "chrome-owner.log"
PROFILE_DIR = "chrome"
PROXY_PROTOCOL = 1


class ChromeRecord(NamedTuple):
    """A NamedTuple, not a dataclass: the owner's first steps (before Chrome is spawned) import
    this module, and nothing heavy may be on that way."""

    port: int
    profile: str
    started_at: str | None = None
    editor_url: str | None = None
    owner_pid: int | None = None
    chrome_pid: int | None = None
    proxy: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The record's keys in the reference's order; unset optional keys are left out."""
        out: dict[str, Any] = {"port": self.port, "profile": self.profile}
        for key, value in (
            ("startedAt", self.started_at),
            ("editorUrl", self.editor_url),
            ("ownerPid", self.owner_pid),
            ("chromePid", self.chrome_pid),
            ("proxy", self.proxy),
        ):
            if value is not None:
                out[key] = value
        return out


def record_path(home: Path) -> Path:
    return home / RECORD_FILE


def log_path(home: Path) -> Path:
    return home / LOG_FILE


def write_record(home: Path, record: ChromeRecord) -> None:
    text = json.dumps(record.to_json(), indent=2) + "\n"
    atomic_write(record_path(home), text.encode("utf-8"), mode=0o644)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _int_or_none(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        return None
    return int(value)


def read_record(home: Path) -> ChromeRecord | None:
    """The record, or None when missing, unreadable or not a record (``port`` number, ``profile`` string)."""
    try:
        data = json.loads(record_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not _number(data.get("port")) or not isinstance(data.get("profile"), str):
        return None

    def text(key: str) -> str | None:
        value = data.get(key)
        return value if isinstance(value, str) else None

    return ChromeRecord(
        port=int(data["port"]),
        profile=data["profile"],
        started_at=text("startedAt"),
        editor_url=text("editorUrl"),
        owner_pid=_int_or_none(data.get("ownerPid")),
        chrome_pid=_int_or_none(data.get("chromePid")),
        proxy=_int_or_none(data.get("proxy")),
    )


def remove_record(home: Path, owner_pid: int) -> bool:
    """Remove the record only if it is this owner's (its ``ownerPid``); True when removed."""
    record = read_record(home)
    if record is None or record.owner_pid != owner_pid:
        return False
    with contextlib.suppress(FileNotFoundError):
        record_path(home).unlink()
    return True


def profile_dir(home: Path, env: Mapping[str, str]) -> Path:
    """``PIX3_CHROME_PROFILE``, else ``$PIX3_HOME/chrome``, created; ``<tmp>/pix3-chrome`` if that fails."""
    explicit = env.get("PIX3_CHROME_PROFILE", "")
    folder = Path(explicit).expanduser() if explicit else home / PROFILE_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        import tempfile

        folder = Path(tempfile.gettempdir()) / "pix3-chrome"
        folder.mkdir(parents=True, exist_ok=True)
    return Path(os.path.abspath(folder))
