"""Editor tabs on `/__pix3/ws`: hello/welcome, broadcasts, request/reply, the writer id.

The transport (the Quart websocket handler in `_routes.py`) feeds frames in and drains each tab's
outbox; this module never touches a socket (docs/devserver.md,
"The editor socket").
"""

from __future__ import annotations

import itertools
import json
import math
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

TAB_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
# Frames queued for one tab before it counts as stalled and is dropped: a tab that reads
# nothing must not make the server hold every later broadcast for it.
OUTBOX_FRAMES = 4096

Frame = dict[str, Any]


@dataclass
class Tab:
    """One socket connection; ``tab_id`` is set by its accepted hello."""

    serial: int
    origin: str | None
    welcome_state: Callable[[], Frame]  # the fields of this tab's welcome beyond type and tabId
    outbox: trio.MemorySendChannel[str]
    inbox: trio.MemoryReceiveChannel[str]
    tab_id: str | None = None
    closed: trio.Event = field(default_factory=trio.Event)


@dataclass
class _Pending:
    tab: Tab
    done: trio.Event = field(default_factory=trio.Event)
    reply: Frame | None = None


class Hub:
    """Every connected tab, the writer, and requests waiting for a reply."""

    def __init__(self, on_tabs_changed: Callable[[str | None], None] = lambda newest_origin: None):
        """``on_tabs_changed(newest_origin)`` runs when a hello is accepted or such a tab leaves."""
        self._on_tabs_changed = on_tabs_changed
        self._serials = itertools.count(1)
        self._tabs: list[Tab] = []
        self._pending: dict[str, _Pending] = {}
        self.writer_id: str | None = None
        self.closing = False

    # -- connections -------------------------------------------------------------------------

    def connect(self, origin: str | None, welcome_state: Callable[[], Frame]) -> Tab:
        send, receive = trio.open_memory_channel[str](OUTBOX_FRAMES)
        tab = Tab(serial=next(self._serials), origin=origin, welcome_state=welcome_state, outbox=send, inbox=receive)
        self._tabs.append(tab)
        return tab

    def disconnect(self, tab: Tab) -> None:
        if tab not in self._tabs:
            return
        self._tabs.remove(tab)
        tab.closed.set()
        tab.outbox.close()
        for request_id, pending in list(self._pending.items()):
            if pending.tab is tab:
                self._resolve(request_id, {"ok": False, "reason": "tab_closed", "tabId": tab.tab_id})
        if tab.tab_id is not None:
            self._on_tabs_changed(self.newest_origin())

    def close_all(self) -> None:
        """Server closing: every pending request answers ``tab_closed``, every tab is dropped."""
        self.closing = True
        for tab in list(self._tabs):
            self.disconnect(tab)

    def receive(self, tab: Tab, text: str) -> None:
        """One text frame from a tab; unparsable or non-object frames are ignored (nesting too deep
        for the parser included)."""
        try:
            frame = json.loads(text)
        except (ValueError, RecursionError):
            return
        if not isinstance(frame, dict):
            return
        kind = frame.get("type")
        if kind == "hello":
            self._hello(tab, frame)
        elif kind == "reply":
            request_id = frame.get("id")
            pending = self._pending.get(request_id) if isinstance(request_id, str) else None
            if pending is not None and pending.tab is tab:
                self._resolve(request_id, frame)  # type: ignore[arg-type]

    def _hello(self, tab: Tab, frame: Frame) -> None:
        tab_id = frame.get("tabId")
        if tab.tab_id is not None or not isinstance(tab_id, str) or not TAB_ID_RE.match(tab_id):
            return
        tab.tab_id = tab_id
        self._send(tab, json.dumps({"type": "welcome", "tabId": tab_id, **tab.welcome_state()}))
        self._on_tabs_changed(self.newest_origin())

    # -- queries -----------------------------------------------------------------------------

    def tab_ids(self) -> list[str]:
        """Tabs that completed hello, oldest first."""
        return [t.tab_id for t in self._tabs if t.tab_id is not None]

    def find(self, tab_id: str | None) -> Tab | None:
        """The newest live connection that said hello with ``tab_id``."""
        if tab_id is None:
            return None
        for tab in reversed(self._tabs):
            if tab.tab_id == tab_id:
                return tab
        return None

    def oldest(self) -> Tab | None:
        return next((t for t in self._tabs if t.tab_id is not None), None)

    def newest_origin(self) -> str | None:
        """Origin of the most recently connected tab that said hello (None without Origin)."""
        ready = [t for t in self._tabs if t.tab_id is not None]
        return max(ready, key=lambda t: t.serial).origin if ready else None

    # -- sending -----------------------------------------------------------------------------

    def broadcast(self, frame: Frame) -> None:
        text = json.dumps(frame)
        for tab in list(self._tabs):
            if tab.tab_id is not None:
                self._send(tab, text)

    def _send(self, tab: Tab, text: str) -> None:
        try:
            tab.outbox.send_nowait(text)
        except trio.WouldBlock:
            self.disconnect(tab)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    async def request(self, tab: Tab | None, kind: str, payload: Frame, timeout_s: float) -> Frame:
        """Ask one tab; never raises: ``no_tab`` / ``timeout`` / ``tab_closed`` replies instead."""
        tab_id = tab.tab_id if tab is not None else None
        if tab is None or tab not in self._tabs or self.closing:
            return {"ok": False, "reason": "no_tab", "tabId": tab_id}
        request_id = str(uuid.uuid4())
        pending = _Pending(tab)
        self._pending[request_id] = pending
        self._send(tab, json.dumps({"type": "request", "id": request_id, "kind": kind, **payload}))
        with trio.move_on_after(max(0.0, timeout_s) if math.isfinite(timeout_s) else 0.0):
            await pending.done.wait()
        self._pending.pop(request_id, None)
        if pending.reply is None:
            return {"ok": False, "reason": "timeout", "tabId": tab_id}
        return pending.reply

    def _resolve(self, request_id: str, reply: Frame) -> None:
        pending = self._pending.pop(request_id, None)
        if pending is not None and pending.reply is None:
            pending.reply = reply
            pending.done.set()

    # -- writer ------------------------------------------------------------------------------

    def set_writer(self, writer_id: str) -> None:
        """Record the new writer and tell every tab (also when the id is unchanged)."""
        self.writer_id = writer_id
        self.broadcast({"type": "pix3:writer", "writerId": writer_id})
