"""Flush and the sync barrier (docs/devserver.md, "Flush" and "The sync barrier").

The file table is reached through the small `Table` protocol (the file API's store provides it);
tabs through the `Hub`. Barriers run one at a time, FIFO (trio.Lock is fair); a flush is not
queued behind a running sync.
"""

from __future__ import annotations

import contextlib
import math
import re
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

import trio

from pix3net.devserver.http import ApiError, Refusal

from ._tabs import Frame, Hub

DEFAULT_TIMEOUT_MS = 10_000  # DEFAULT_SYNC_TIMEOUT_MS
MAX_TIMEOUT_MS = 120_000
FLUSH_GRACE_MS = 1_000  # the tab gets T + 1 s to answer a flush
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")
VITE_CLIENT_WARNING = (
    "/@vite/client is loaded on the editor page, so the game's full-reload can reload the editor: "
    "some module of the page imports it. `pix3 check` names the file (W_EDITOR_*)."
)
BAD_TIMEOUT = Refusal(400, "bad_request", "`timeoutMs` must be a non-negative number.")
BAD_EXPECT = Refusal(400, "bad_request", "`expect` must be an object {path: sha256}.")


class Table(Protocol):
    """What the barrier needs from the file table."""

    @property
    def seq(self) -> int: ...

    async def rescan(self) -> dict[str, str | None]:
        """Full immediate rescan; emits one `pix3:fs` frame when anything changed; returns
        ``changed`` ({path: sha} for created/modified/renamed-to files, None for deleted/from)."""
        ...

    def table_sha(self, wire: str) -> str | None: ...


def parse_timeout(body: Mapping[str, Any]) -> int:
    if "timeoutMs" not in body:
        return DEFAULT_TIMEOUT_MS
    value = body["timeoutMs"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise BAD_TIMEOUT.error()
    return int(min(value, MAX_TIMEOUT_MS))


def parse_expect(body: Mapping[str, Any], check_path: Callable[[str, str], object]) -> dict[str, str]:
    """``expect`` as {path: lower-case sha}; ``check_path(path, "expect")`` raises for a bad path."""
    if "expect" not in body or body["expect"] is None:
        return {}
    expect = body["expect"]
    if not isinstance(expect, dict):
        raise BAD_EXPECT.error()
    result: dict[str, str] = {}
    for key, value in expect.items():
        check_path(key, "expect")
        sha = value.lower() if isinstance(value, str) else None
        if sha is None or not _SHA_RE.match(sha):
            raise ApiError(400, "bad_request", f'expect["{key}"] must be a hex sha256.')
        result[key] = sha
    return result


class Barrier:
    def __init__(
        self,
        hub: Hub,
        table: Table,
        required_stamps: Callable[[dict[str, str | None]], list[str]] = lambda changed: [],
        clock: Callable[[], float] = time.monotonic,
        quiet: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext,
    ) -> None:
        """``quiet()`` is entered around the barrier's own rescan (its frames are part of the sync)."""
        self._hub = hub
        self._table = table
        self._required = required_stamps
        self._clock = clock
        self._quiet = quiet
        self._lock = trio.Lock()

    async def flush(self, timeout_ms: int) -> Frame:
        hub = self._hub
        tab = hub.find(hub.writer_id)
        if tab is None:
            return {"ok": True, "editor": bool(hub.tab_ids()), "flushed": False}
        reply = await hub.request(tab, "flush", {"timeoutMs": timeout_ms}, (timeout_ms + FLUSH_GRACE_MS) / 1000)
        result = {k: v for k, v in reply.items() if k not in ("type", "id")}
        result["ok"] = reply.get("ok") is True
        result["editor"] = True
        result["flushed"] = result["ok"]
        return result

    async def sync(self, expect: dict[str, str], timeout_ms: int, tab_id: str | None) -> Frame:
        async with self._lock:
            return await self._sync(expect, timeout_ms, tab_id)

    async def _sync(self, expect: dict[str, str], timeout_ms: int, tab_id: str | None) -> Frame:
        start = self._clock()
        hub, table = self._hub, self._table

        def elapsed_ms() -> int:
            return round((self._clock() - start) * 1000)

        if tab_id is None:
            flushed = await self.flush(timeout_ms)
            if flushed["ok"] is not True:
                return {**flushed, "ok": False, "step": "flush"}
        with self._quiet():
            changed = await table.rescan()
        seq = table.seq
        mismatch = [
            {"path": path, "expected": sha, "actual": actual}
            for path, sha in expect.items()
            if (actual := table.table_sha(path)) != sha
        ]
        base: Frame = {"rev": seq, "seq": seq, "changed": changed, "expectMismatch": mismatch}
        if mismatch:
            base["reason"] = "expect_mismatch"
        target = hub.find(tab_id) or hub.find(hub.writer_id) or hub.oldest()
        if target is None:
            return {"ok": not mismatch, **base, "editor": False, "ms": elapsed_ms()}
        payload = {"rev": seq, "changed": changed, "paths": list(changed), "policyOnly": []}
        remaining = max(0.0, timeout_ms / 1000 - (self._clock() - start))
        reply = await hub.request(target, "sync", payload, remaining)
        verdict: Frame
        if reply.get("ok") is not True:
            reason = reply.get("reason")
            verdict = {"ok": False, "reason": reason if isinstance(reason, str) else "refused"}
            verdict.update({k: v for k, v in reply.items() if k not in ("ok", "executed", "type", "id")})
            if not isinstance(reason, str):
                verdict["reason"] = "refused"
        else:
            executed = reply.get("executed")
            stamps = executed if isinstance(executed, dict) else {}
            rev = reply.get("rev")
            ack = rev if isinstance(rev, int | float) and not isinstance(rev, bool) else -1
            stale = [p for p in self._required(changed) if stamps.get(p) != changed.get(p)]
            verdict = (
                {"ok": False, "reason": "stale_modules", "paths": stale, "ackRev": ack}
                if ack < seq or stale
                else {"ok": True}
            )
        result: Frame = {**base, **verdict}
        result["ok"] = verdict["ok"] is True and not mismatch
        if verdict["ok"] is True and mismatch:
            result["reason"] = "expect_mismatch"
        result["editor"] = True
        result["tabId"] = target.tab_id
        if reply.get("viteClient") is True:
            result["viteClient"] = True
            result["warning"] = VITE_CLIENT_WARNING
        if verdict["ok"] is True and isinstance(reply.get("game"), dict):
            result["game"] = reply["game"]  # ours: a playing game took the changes live (docs/game-page.md)
        result["ms"] = elapsed_ms()
        return result
