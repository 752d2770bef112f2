"""CDP event traces of the smoke game page, for the collector's unit tests (test_smoke_collect.py):
the events Chrome sends, built by hand, fed to a :class:`Collector`."""

from __future__ import annotations

import json
from typing import Any

from pix3net.commands.smoke import BINDING, Call, Collector

ORIGIN = "http://localhost:5173"
Event = tuple[str, dict[str, Any]]


def binding(**message: Any) -> Event:
    return "Runtime.bindingCalled", {"name": BINDING, "payload": json.dumps(message), "executionContextId": 1}


def beat(frame: int) -> Event:
    return binding(kind="beat", frame=frame)


def end(why: str, frame: int = 0) -> Event:
    return binding(kind="end", why=why, frame=frame)


def request(url: str, ident: str) -> Event:
    return "Network.requestWillBeSent", {"requestId": ident, "type": "Script", "request": {"url": url}}


def response(url: str, status: int, ident: str = "r1") -> Event:
    return "Network.responseReceived", {
        "requestId": ident,
        "type": "Script",
        "response": {"url": url, "status": status},
    }


def navigated(loader: str, url: str = f"{ORIGIN}/", frame_id: str = "TARGET", parent: str | None = None) -> Event:
    frame: dict[str, Any] = {"id": frame_id, "loaderId": loader, "url": url}
    if parent is not None:
        frame["parentId"] = parent
    return "Page.frameNavigated", {"frame": frame, "type": "Navigation"}


def play(*events: Event, frames: int = 120) -> tuple[Collector, list[Call]]:
    """The collector after ``events``, and every call it asked for on the way."""
    collector = Collector(ORIGIN, frames)
    collector.main_frame = "TARGET"
    calls: list[Call] = []
    for method, params in events:
        calls += collector.feed(method, params)
    return collector, calls
