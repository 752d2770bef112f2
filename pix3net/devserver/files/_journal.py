"""The version journal `.pix3/history/<path>/` (docs/devserver-files.md, "The version journal").

Per journaled path: `index.jsonl` (one JSON line per version, oldest first) and one raw file
per version named by its id. Readers skip torn lines; retention rewrites the index atomically
before deleting the bytes it dropped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
from collections.abc import Callable
from typing import Any

KEEP_VERSIONS = 200
KEEP_MS = 7 * 24 * 3600 * 1000  # 7 days, the newest version always survives
VERSION_ID = re.compile(r"^\d{13}-[0-9a-f]{8}(-\d{1,4})?$")
AUTHORS = ("editor", "external", "restore", "rejected-draft")


class History:
    def __init__(self, root: str, *, clock_ms: Callable[[], int], log: Callable[[str], None]) -> None:
        self.base = os.path.join(root, ".pix3", "history")
        self._clock_ms = clock_ms
        self._log = log

    def _dir(self, wire: str) -> str:
        return os.path.join(self.base, *wire.split("/"))

    def _read_index(self, wire: str) -> list[dict[str, Any]]:
        try:
            with open(os.path.join(self._dir(wire), "index.jsonl"), "rb") as handle:
                raw = handle.read()
        except OSError:
            return []
        entries = []
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("id"), str) and isinstance(entry.get("sha256"), str):
                entries.append(entry)
        return entries

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
                    with open(os.path.join(self._dir(wire), version_id), "rb") as handle:
                        return handle.read(), entry
                except OSError:
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
        folder = self._dir(wire)
        os.makedirs(folder, exist_ok=True)
        stored = os.path.join(folder, version_id)
        try:
            with open(stored, "wb") as handle:
                handle.write(data)
        except OSError:  # a full disk: no half version left behind (the index never names it)
            with contextlib.suppress(OSError):
                os.unlink(stored)
            raise
        line = json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n"
        with open(os.path.join(folder, "index.jsonl"), "ab") as handle:
            handle.write(line.encode())
        self._retain(wire, [*index, entry], now)
        return entry

    def _retain(self, wire: str, index: list[dict[str, Any]], now: int) -> None:
        keep = index[-KEEP_VERSIONS:]
        newest = keep[-1]
        keep = [e for e in keep if e is newest or now - int(e.get("at", 0)) <= KEEP_MS]
        if len(keep) == len(index):
            return
        kept_ids = {e["id"] for e in keep}
        folder = self._dir(wire)
        tmp = os.path.join(folder, f"index.jsonl.{secrets.token_hex(6)}.tmp")
        body = "".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in keep)
        with open(tmp, "wb") as handle:
            handle.write(body.encode())
        os.replace(tmp, os.path.join(folder, "index.jsonl"))
        for entry in index:
            if entry["id"] not in kept_ids:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, entry["id"]))
