"""The tab hub as a playbook: frames in, frames out (no sockets)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import trio
import trio.testing

from pix3net.devserver.app import Frame, Hub, Tab


def drain(tab: Tab) -> list[dict[str, Any]]:
    frames = []
    while True:
        try:
            frames.append(json.loads(tab.inbox.receive_nowait()))
        except (trio.WouldBlock, trio.EndOfChannel):
            return frames


class RecordingHub(Hub):
    """Every tab welcomed with ``{"seq": 0}``; each change of the tab list noted as the tab ids."""

    def __init__(self, changes: list[str]) -> None:
        super().__init__(on_tabs_changed=lambda origin: changes.append(",".join(self.tab_ids())))

    def connect(self, origin: str | None, welcome_state: Callable[[], Frame] = lambda: {"seq": 0}) -> Tab:
        return super().connect(origin, welcome_state)


def make_hub(changes: list[str]) -> RecordingHub:
    return RecordingHub(changes)


async def test_hello_rules_and_broadcasts() -> None:
    changes: list[str] = []
    hub = make_hub(changes)
    a, b, silent = hub.connect("http://localhost:1"), hub.connect(None), hub.connect(None)
    hub.receive(a, json.dumps({"type": "hello", "tabId": "tab-a"}))
    hub.receive(a, json.dumps({"type": "hello", "tabId": "tab-z"}))  # repeated: ignored
    hub.receive(b, json.dumps({"type": "hello", "tabId": "tab-a"}))  # duplicate ids across sockets are allowed
    hub.receive(silent, json.dumps({"type": "hello", "tabId": "x" * 129}))
    hub.receive(silent, "not json")
    hub.receive(silent, "[]")
    assert [f["type"] for f in drain(a)] == ["welcome"]
    assert drain(b) == [{"type": "welcome", "tabId": "tab-a", "seq": 0}]
    assert drain(silent) == []
    assert hub.tab_ids() == ["tab-a", "tab-a"] and changes == ["tab-a", "tab-a,tab-a"]
    assert hub.newest_origin() is None  # the newest tab (b) sent no Origin
    hub.set_writer("tab-a")
    assert drain(a) == drain(b) == [{"type": "pix3:writer", "writerId": "tab-a"}]
    assert drain(silent) == []  # no hello, no broadcasts
    hub.disconnect(b)
    assert changes[-1] == "tab-a" and hub.newest_origin() == "http://localhost:1"


async def test_request_reply_timeout_and_close() -> None:
    hub = make_hub([])
    a, b = hub.connect(None), hub.connect(None)
    hub.receive(a, json.dumps({"type": "hello", "tabId": "tab-a"}))
    hub.receive(b, json.dumps({"type": "hello", "tabId": "tab-b"}))
    drain(a), drain(b)
    results: list[dict[str, Any]] = []
    async with trio.open_nursery() as nursery:

        async def ask() -> None:
            results.append(await hub.request(a, "flush", {"timeoutMs": 5}, 5))

        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        [request] = drain(a)
        assert (request["type"], request["kind"], request["timeoutMs"]) == ("request", "flush", 5)
        hub.receive(b, json.dumps({"type": "reply", "id": request["id"], "ok": True}))  # not sent to b
        hub.receive(a, json.dumps({"type": "reply", "id": "other", "ok": True}))
        await trio.testing.wait_all_tasks_blocked()
        assert results == []
        hub.receive(a, json.dumps({"type": "reply", "id": request["id"], "ok": True, "saved": []}))
    assert results == [{"type": "reply", "id": request["id"], "ok": True, "saved": []}]
    assert await hub.request(a, "sync", {}, 0) == {"ok": False, "reason": "timeout", "tabId": "tab-a"}
    async with trio.open_nursery() as nursery:

        async def ask_b() -> None:
            results.append(await hub.request(b, "sync", {}, 5))

        nursery.start_soon(ask_b)
        await trio.testing.wait_all_tasks_blocked()
        hub.close_all()
    assert results[-1] == {"ok": False, "reason": "tab_closed", "tabId": "tab-b"}
    assert await hub.request(b, "sync", {}, 5) == {"ok": False, "reason": "no_tab", "tabId": "tab-b"}
    assert await hub.request(None, "sync", {}, 5) == {"ok": False, "reason": "no_tab", "tabId": None}


async def test_a_tab_that_reads_nothing_is_dropped_not_waited_for() -> None:
    from pix3net.devserver.app import OUTBOX_FRAMES

    hub = make_hub([])
    stalled, live = hub.connect(None), hub.connect(None)
    hub.receive(stalled, json.dumps({"type": "hello", "tabId": "stalled"}))
    hub.receive(live, json.dumps({"type": "hello", "tabId": "live"}))
    for seq in range(OUTBOX_FRAMES + 1):
        hub.broadcast({"type": "pix3:fs", "seq": seq})
        if seq % 100 == 0:
            drain(live)
    assert hub.tab_ids() == ["live"] and stalled.closed.is_set()
