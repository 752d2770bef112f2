"""`.pix3/dev.json`, the record a running dev server leaves for `pix3 editor`, `check`, `smoke`
and agents (docs/devserver.md, "Running it" and "The public URL"): its one home, both sides.

- Readers: :func:`read_dev_info` (a valid record as :class:`DevInfo`), :func:`read_url` (the flush
  clients' looser rule), :func:`read_object` (unchecked), :func:`parse_record`.
- The writer: :func:`build_record` / :func:`encode_record` (the reference's key order and format),
  :func:`write_record`, :func:`remove_record_if_ours`, and :class:`Record`, the record a serving
  process keeps and rewrites when it learns its public URL (:func:`public_url_of`).

Standard library only and no dataclass: `pix3 check` reads the record through ``pix3net.clients.flush``
before it starts tsc, where every import counts (docs/check.md, "Speed").
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import urlsplit

from pix3net.wire.hostrule import is_loopback_name
from pix3tools.core.private import private_folder, read_private, write_private

if TYPE_CHECKING:
    import logging

__all__ = [
    "DEV_JSON",
    "DEV_LOG",
    "DevInfo",
    "Record",
    "build_record",
    "encode_record",
    "hello_url",
    "parse_record",
    "public_url_of",
    "read_dev_info",
    "read_object",
    "read_record",
    "read_url",
    "remove_record_if_ours",
    "write_record",
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


class Record:
    """dev.json as this process wrote it; rewritten when a public URL is learnt (docs/devserver.md,
    "The public URL"). A plain class, not a dataclass (see the module's docstring)."""

    def __init__(
        self,
        root: Path,
        port: int,
        versions: dict[str, str | None],
        log: logging.Logger,
        env_public: str | None,
        started_at: str | None = None,
    ) -> None:
        from pix3tools.core.timestamps import iso_time  # only a serving process needs it

        self.root, self.port, self.versions, self.log, self.env_public = root, port, versions, log, env_public
        self.started_at = started_at if started_at is not None else iso_time()
        self.public_url: str | None = None
        self.written = False

    def write(self) -> None:
        record = build_record(
            port=self.port,
            pid=os.getpid(),
            versions=self.versions,
            started_at=self.started_at,
            public_url=self.public_url,
        )
        write_record(self.root, record)
        self.written = True

    def learn(self, newest_origin: str | None) -> None:
        if not self.written:
            return
        url = public_url_of(self.env_public, newest_origin, self.port)
        if url is None or url == self.public_url:
            return
        self.public_url = url
        self.write()
        self.log.info("the browser reaches this server at %s (dev.json publicUrl)", url)

    def remove(self) -> None:
        if self.written and remove_record_if_ours(self.root):
            self.log.info("removed .pix3/dev.json")
