"""The editor page's Agents view (`pix3_agents` and the Agents panel; docs/editor.md, "Watching
the agents"): what the proxy pushes into the editor tab through a session of its own. Pure: the
expressions it evaluates there, the reading of the page's answer, and the body it pushes.

The page holds no token and asks nothing over HTTP. The proxy looks at the editor tab once a
second (:data:`LOOK_SECONDS`) with :data:`ASK_EXPRESSION`; only when the page says it wants the
agents (its panel is open, or a `pix3_agents` call waits) does the proxy compute the facts of
`/json/pix3/watch`, take a thumbnail of each client's tabs and push them with
:func:`push_expression`. The page may also queue kicks (its panel's button), done as
`pix3 editor --kick` does them.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "ASK_EXPRESSION",
    "LOOK_SECONDS",
    "THUMBNAIL_QUALITY",
    "THUMBNAIL_SECONDS",
    "THUMBNAIL_WIDTH",
    "page_body",
    "push_expression",
    "read_ask",
    "thumbnail_clip",
]

# How often the proxy looks at the editor tab: the issue's "at most one thumbnail a second per
# tab", and a panel that follows the agents at the pace of `pix3 editor --watch`.
LOOK_SECONDS = 1.0
# A thumbnail a person can tell tabs apart by, small enough that three of them a second stay a
# few tens of KiB through the pipe (the bound: at most 320 px wide).
THUMBNAIL_WIDTH = 320
THUMBNAIL_QUALITY = 60
# A tab that does not paint within this (a hung renderer, a background tab of a headed Chrome)
# shows no thumbnail this second rather than holding the others.
THUMBNAIL_SECONDS = 1.0
# Kicks the page may queue per look: a panel's clicks, never a flood.
MAX_KICKS = 8

# Non-enumerable functions the page defines (main.js); a page without them (not the editor page,
# or one that has not loaded yet) answers null.
ASK_EXPRESSION = (
    "typeof window.__PIX3_AGENTS_ASK__ === 'function' ? window.__PIX3_AGENTS_ASK__() : null"
)


def read_ask(result: Any) -> tuple[bool, list[int]]:
    """The page's answer to :data:`ASK_EXPRESSION` (a ``Runtime.evaluate`` result, by value):
    whether it wants the agents, and the client numbers it asks to end. Anything else: (False, [])."""
    value = result.get("result", {}).get("value") if isinstance(result, dict) else None
    if not isinstance(value, dict):
        return False, []
    kicks = value.get("kicks")
    numbers = [
        k for k in (kicks if isinstance(kicks, list) else []) if isinstance(k, int) and not isinstance(k, bool) and k > 0
    ]
    return value.get("wanted") is True, numbers[:MAX_KICKS]


def thumbnail_clip(metrics: Any) -> dict[str, float] | None:
    """``Page.captureScreenshot``'s clip for a tab's visible part, scaled to at most
    :data:`THUMBNAIL_WIDTH` wide, from its ``Page.getLayoutMetrics``; None when they are unusable."""
    view = metrics.get("cssVisualViewport") if isinstance(metrics, dict) else None
    if not isinstance(view, dict):
        return None
    width, height = view.get("clientWidth"), view.get("clientHeight")
    x, y = view.get("pageX", 0), view.get("pageY", 0)
    if not all(isinstance(v, int | float) for v in (width, height, x, y)) or width <= 0 or height <= 0:
        return None
    return {"x": x, "y": y, "width": width, "height": height, "scale": min(1.0, THUMBNAIL_WIDTH / width)}


# What of the watch answer reaches the page: the facts a person compares at a glance. The recent
# calls stay with `pix3 editor --watch` (the page's view never turns their recording on).
_CLIENT_FACTS = ("client", "name", "userAgent", "since", "keep", "calls", "errors", "lastMethod", "lastAgoMs")


def page_body(watched: dict[str, Any], thumbnails: dict[str, str | None], editor: str | None) -> dict[str, Any]:
    """The body pushed to the page: per client its facts and tabs (``thumbnail``: a JPEG data URL
    or null), and whether the editor tab answered. ``watched``: the watch answer."""
    clients = []
    for client in watched.get("clients", []):
        facts = {key: client.get(key) for key in _CLIENT_FACTS}
        facts["callsPerSecond"] = client.get("callsPerSecond")
        facts["tabs"] = [
            {
                "title": tab.get("title", ""),
                "url": tab.get("url", ""),
                "editor": tab.get("targetId") == editor,
                "thumbnail": thumbnails.get(tab.get("targetId", "")),
            }
            for tab in client.get("tabs", [])
        ]
        clients.append(facts)
    tab = watched.get("editorTab")
    return {"clients": clients, "editorTab": {"answering": True} if tab is not None else None}


def push_expression(body: dict[str, Any]) -> str:
    """The expression that hands ``body`` to the page: JSON text as a string literal, parsed and
    checked by the page (never evaluated as code)."""
    return f"window.__PIX3_OWNER_AGENTS__({json.dumps(json.dumps(body, separators=(',', ':')))})"
