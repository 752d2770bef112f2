"""CDP event traces of the smoke game page, for the collector's unit tests (test_smoke_collect.py,
test_smoke_loads.py): the events Chrome sends, built by hand, fed to a :class:`Collector`."""

from __future__ import annotations

import json
from typing import Any

from pix3net.smoke._collect import BINDING, Collector

ORIGIN = "http://localhost:5173"


def binding(**message: Any) -> tuple[str, dict[str, Any]]:
    return "Runtime.bindingCalled", {"name": BINDING, "payload": json.dumps(message), "executionContextId": 1}


def frame(n: int) -> tuple[str, dict[str, Any]]:
    return binding(kind="frame", frame=n)


def console(level: str, text: str, stack: str | None = None) -> tuple[str, dict[str, Any]]:
    return binding(kind="console", level=level, frame=0, text=text, stack=stack)


def thrown(description: str, *, text: str = "Uncaught", ident: int = 1) -> tuple[str, dict[str, Any]]:
    return "Runtime.exceptionThrown", {
        "timestamp": 1.0,
        "exceptionDetails": {
            "exceptionId": ident,
            "text": text,
            "exception": {"type": "object", "subtype": "error", "className": "Error", "description": description},
        },
    }


def response(url: str, status: int, kind: str, request: str = "r1", frame_id: str = "F") -> tuple[str, dict[str, Any]]:
    return "Network.responseReceived", {
        "requestId": request,
        "type": kind,
        "frameId": frame_id,
        "response": {"url": url, "status": status},
    }


def play(*events: tuple[str, dict[str, Any]], frames: int = 120) -> Collector:
    collector = Collector(ORIGIN, frames)
    collector.document_frame = "TARGET"
    for method, params in events:
        collector.feed(method, params)
    return collector
