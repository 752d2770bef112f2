"""`.pix3/dev.json`, the writer's side: building the record, the public-URL rule, writing it and
removing it. Readers use ``pix3tools.core.devrecord``. Key order and format are the reference's
(docs/devserver.md, "Running it" and "The public URL").
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pix3net.hosts import is_loopback_name
from pix3tools.core.devrecord import read_object
from pix3tools.core.private import private_folder, write_private


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
    if is_loopback_name(host) and port == bound_port:
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


def write_record(root: Path, record: Mapping[str, Any]) -> None:
    """A temporary file renamed over dev.json, relative to `.pix3` reached without following a link
    (a planted link at `.pix3` raises ``Refused``; one at dev.json is replaced, never written through)."""
    write_private(root, "dev.json", data=encode_record(record), durable=False)


def remove_record_if_ours(root: Path, pid: int | None = None) -> bool:
    """Delete dev.json only when it names this process; another server's record stays."""
    mine = os.getpid() if pid is None else pid
    raw = read_object(root)
    if raw is None or raw.get("pid") != mine:
        return False
    with contextlib.suppress(OSError), private_folder(root) as private:
        private.unlink("dev.json")
    return True
