"""The version journal `.pix3/history/<path>/` (docs/devserver-files.md, "The version journal").

Per journaled path: `index.jsonl` (one JSON line per version, oldest first) and one raw file
per version named by its id. Readers skip torn lines; retention rewrites the index atomically
before deleting the bytes it dropped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from pix3tools.core.private import Folder, private_folder

KEEP_VERSIONS = 200
KEEP_MS = 7 * 24 * 3600 * 1000  # 7 days, the newest version always survives
VERSION_ID = re.compile(r"^\d{13}-[0-9a-f]{8}(-\d{1,4})?\Z")
SHA256 = re.compile(r"^[0-9a-f]{64}\Z")
MAX_INDEX_BYTES = 16 * 1024 * 1024  # 200 kept versions take ~50 KB; a bigger index is not ours
AUTHORS = ("editor", "external", "restore", "rejected-draft")


class History:
    """The journal of one project. Every folder and file is reached through `.pix3/history` without
    following a link: a linked folder raises ``Refused`` (an ``OSError``) and nothing is read or
    written through it. Ids read from an index are used only when they match ``VERSION_ID``."""

    def __init__(self, root: str, *, clock_ms: Callable[[], int], log: Callable[[str], None]) -> None:
        self.root = root
        self._clock_ms = clock_ms
        self._log = log

    def _folder(self, wire: str, *, create: bool = False) -> Folder:
        return private_folder(self.root, "history", *wire.split("/"), create=create)

    def _read_index(self, wire: str) -> list[dict[str, Any]]:
        try:
            with self._folder(wire) as folder:
                raw = folder.read_if_any("index.jsonl", limit=MAX_INDEX_BYTES)
        except FileNotFoundError:
            return []
        return parse_index(raw or b"")

    def entries(self, wire: str) -> list[dict[str, Any]]:
        """Newest first."""
        return list(reversed(self._read_index(wire)))

    def newest_sha(self, wire: str) -> str | None:
        index = self._read_index(wire)
        return str(index[-1]["sha256"]) if index else None

    def version(self, wire: str, version_id: str) -> tuple[bytes, dict[str, Any]] | None:
        if not VERSION_ID.match(version_id):
            return None
        for entry in self._read_index(wire):
            if entry["id"] == version_id:
                try:
                    with self._folder(wire) as folder:
                        return folder.read(version_id), entry
                except FileNotFoundError:
                    return None
        return None

    def record(self, wire: str, data: bytes, author: str, note: str | None = None) -> dict[str, Any]:
        sha = hashlib.sha256(data).hexdigest()
        index = self._read_index(wire)
        if index and index[-1]["sha256"] == sha:
            return index[-1]
        now = self._clock_ms()
        used = {e["id"] for e in index}
        version_id = base_id = f"{now:013d}-{sha[:8]}"
        counter = 0
        while version_id in used:
            counter += 1
            version_id = f"{base_id}-{counter}"
        entry: dict[str, Any] = {"id": version_id, "path": wire, "author": author, "at": now, "sha256": sha}
        entry["size"] = len(data)
        if note:
            entry["note"] = note
        with self._folder(wire, create=True) as folder:
            # A full disk leaves no half version behind: the temp goes, and the index never names it.
            folder.write(version_id, data, durable=False)
            line = json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n"
            folder.append("index.jsonl", line.encode())
            self._retain(folder, [*index, entry], now)
        return entry

    def _retain(self, folder: Folder, index: list[dict[str, Any]], now: int) -> None:
        keep = index[-KEEP_VERSIONS:]
        newest = keep[-1]
        keep = [e for e in keep if e is newest or now - int(e.get("at", 0)) <= KEEP_MS]
        if len(keep) == len(index):
            return
        kept_ids = {e["id"] for e in keep}
        body = "".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in keep)
        folder.write("index.jsonl", body.encode(), durable=False)
        for entry in index:
            if entry["id"] not in kept_ids and VERSION_ID.match(entry["id"]):
                with contextlib.suppress(OSError):
                    folder.unlink(entry["id"])


def parse_index(raw: bytes) -> list[dict[str, Any]]:
    """The well-formed lines of an index, oldest first: torn lines, and lines whose ``id`` is not a
    version id or whose ``sha256`` is not a sha256, are skipped (a planted id is never a file name)."""
    entries = []
    decode = json.JSONDecoder().decode  # on text: json.loads would sniff each line's encoding again
    for line in raw.decode("utf-8", "replace").split("\n"):
        if not line.strip():
            continue
        try:
            entry = decode(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(entry, dict):
            continue
        version_id, sha = entry.get("id"), entry.get("sha256")
        if not isinstance(version_id, str) or not VERSION_ID.match(version_id):
            continue
        if not isinstance(sha, str) or not SHA256.match(sha):
            continue
        at = entry.get("at", 0)
        if isinstance(at, bool) or not isinstance(at, int):
            continue
        entries.append(entry)
    return entries
