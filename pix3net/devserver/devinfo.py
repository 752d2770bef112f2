"""`.pix3/dev.json`: the record a running dev server leaves for `pix3 editor`, `check` and agents.

Pure parts (building, the public-URL rule, the readers' validity rule) plus small file helpers.
Key order and format are the reference's (spec/devserver.md §1).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

DEV_JSON = Path(".pix3") / "dev.json"
DEV_LOG = Path(".pix3") / "dev.log"
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})


def iso_now(now: datetime | None = None) -> str:
    """``toISOString``: UTC, milliseconds, ``Z``."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def build_record(
    *,
    port: int,
    pid: int,
    versions: Mapping[str, str | None],
    started_at: str,
    base: str = "/",
    public_url: str | None = None,
) -> dict[str, Any]:
    url = f"http://localhost:{port}{base}"
    record: dict[str, Any] = {
        "url": url,
        "editorUrl": url + "__pix3/",
        "port": port,
        "pid": pid,
        "versions": dict(versions),
        "startedAt": started_at,
    }
    if public_url is not None:
        record["publicUrl"] = public_url
        record["publicEditorUrl"] = public_url + "__pix3/"
    return record


def encode_record(record: Mapping[str, Any]) -> bytes:
    """``JSON.stringify(info, null, 2) + "\\n"``."""
    return (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode()


def public_url_from_env(value: str, base: str = "/") -> str | None:
    """Rule 1 of ``publicUrlOf``: ``PIX3_PUBLIC_URL`` wins when set."""
    origin = _origin_of(value)
    if origin is None:
        return None
    path = urlsplit(value.strip()).path.rstrip("/")
    if path and path != base.rstrip("/"):
        return origin + path + "/"
    return origin + base


def public_url_from_origin(origin_header: str | None, bound_port: int, base: str = "/") -> str | None:
    """Rule 2: the newest tab's ``Origin``; a loopback origin on our own port says nothing new."""
    if not origin_header:
        return None
    origin = _origin_of(origin_header)
    if origin is None:
        return None
    parts = urlsplit(origin_header.strip())
    try:
        explicit = parts.port
    except ValueError:
        return None
    port = explicit if explicit is not None else (443 if parts.scheme == "https" else 80)
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    if host in _LOOPBACK_NAMES and port == bound_port:
        return None
    return origin + base


def public_url_of(env_value: str | None, newest_origin: str | None, bound_port: int, base: str = "/") -> str | None:
    if env_value:
        return public_url_from_env(env_value, base)
    return public_url_from_origin(newest_origin, bound_port, base)


def _origin_of(text: str) -> str | None:
    """``new URL(text).origin`` for http(s) URLs, else None."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    default = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{host}" + ("" if port is None or port == default else f":{port}")


@dataclass(frozen=True)
class DevInfo:
    """A valid record as `pix3 editor` reads it (``readDevInfo``)."""

    url: str
    editor_url: str
    pid: int
    port: int | None
    public_editor_url: str | None
    raw: dict[str, Any]


def parse_record(data: bytes) -> DevInfo | None:
    """Valid iff ``url`` and ``editorUrl`` are strings and ``pid`` is a number (port not checked)."""
    try:
        raw = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(raw, dict):
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


def read_dev_info(root: Path) -> DevInfo | None:
    """The project's record, or None when missing, unreadable or invalid."""
    try:
        data = (root / DEV_JSON).read_bytes()
    except OSError:
        return None
    return parse_record(data)


def read_url(root: Path) -> str | None:
    """The looser rule of the flush clients: only ``url`` must be a string."""
    try:
        raw = json.loads((root / DEV_JSON).read_bytes())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    url = raw.get("url") if isinstance(raw, dict) else None
    return url if isinstance(url, str) else None


def hello_url(url: str) -> str:
    return url + ("" if url.endswith("/") else "/") + "__pix3/api/hello"


def write_record(root: Path, record: Mapping[str, Any]) -> None:
    """Plain (non-atomic) write, as the reference; readers treat half a file as no record."""
    path = root / DEV_JSON
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_record(record))


def remove_record_if_ours(root: Path, pid: int | None = None) -> bool:
    """Delete dev.json only when it names this process; another server's record stays."""
    path = root / DEV_JSON
    mine = os.getpid() if pid is None else pid
    try:
        raw = json.loads(path.read_bytes())
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    if not isinstance(raw, dict) or raw.get("pid") != mine:
        return False
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return True
