"""The editor page's Agents view (`pix3_agents` and the Agents panel; docs/cdp-proxy.md, "The
editor page's Agents view"): what passes between the owner and the editor tab. Pure: the reading
of what the page asks, the body pushed and the expression that pushes it.

The page holds no token and asks nothing over HTTP. It calls the binding the watchdog's session
gave it (:data:`pix3net.owner.proxy.watchdog.AGENTS_BINDING`) with :func:`read_ask`'s JSON when it starts
or stops wanting the agents (its panel opens or closes, a `pix3_agents` call waits) and to end a
client (the panel's Kick). While it wants them, the owner pushes the facts of `/json/pix3/watch`
with a thumbnail of each client's tabs, at most once a second (:data:`PUSH_SECONDS`), each
thumbnail only when the page does not hold it yet (:class:`Held`); the push's answer says whether
the page still wants them.
"""

from __future__ import annotations

import json
from typing import Any

from pix3net.owner.proxy.watchdog import AGENTS_BINDING

__all__ = [
    "AGENTS_BINDING",
    "PUSH_SECONDS",
    "RECEIVE_FUNCTION",
    "THUMBNAIL_QUALITY",
    "THUMBNAIL_SECONDS",
    "THUMBNAIL_WIDTH",
    "Held",
    "next_shot_seconds",
    "page_body",
    "push_params",
    "read_ask",
    "read_push",
    "thumbnail_clip",
]

# The pace of the pushes while the page wants the agents: the issue's "at most one thumbnail a
# second per tab", and a panel that follows the agents as `pix3 editor --watch` does.
PUSH_SECONDS = 1.0
# A thumbnail a person can tell tabs apart by, small enough that three of them a second stay a
# few tens of KiB through the pipe (the bound: at most 320 px wide).
THUMBNAIL_WIDTH = 320
THUMBNAIL_QUALITY = 60
# A tab that does not paint within this (a hung renderer, a background tab of a headed Chrome)
# shows no thumbnail this time rather than holding the others.
THUMBNAIL_SECONDS = 1.0
# A tab whose picture came back the same is taken again less often, up to this (a still page
# costs Chrome a frame per picture: three still tabs a second more than doubled an idle Chrome's
# CPU); a tab whose title or URL changes is taken at the next push.
THUMBNAIL_MAX_SECONDS = 8.0
# A tab whose picture changed this many times in a row (an animation, a video) is taken every
# MOVING_SECONDS: still within 2 s of the page, and the picture that costs Chrome most (a new frame,
# read back and encoded) half as often (the Agents bench row: Chrome's CPU with the panel open).
MOVING_SHOTS = 3
MOVING_SECONDS = 2.0
# Kicks the page may ask for in one call: a panel's clicks, never a flood.
MAX_KICKS = 8
# What the editor page defines (main.js, not enumerable) to take a push.
RECEIVE_FUNCTION = "__PIX3_OWNER_AGENTS__"


def read_ask(payload: str) -> tuple[bool | None, list[int]]:
    """A call of the binding: ``{"wanted": bool, "kicks": [client numbers]}`` as JSON text. Returns
    whether the page wants the agents (None: it did not say) and the clients it asks to end."""
    try:
        value = json.loads(payload)
    except ValueError:
        return None, []
    if not isinstance(value, dict):
        return None, []
    wanted = value.get("wanted")
    kicks = value.get("kicks")
    numbers = [
        k
        for k in (kicks if isinstance(kicks, list) else [])
        if isinstance(k, int) and not isinstance(k, bool) and k > 0
    ]
    return (wanted if isinstance(wanted, bool) else None), numbers[:MAX_KICKS]


def next_shot_seconds(same: int, changed: int = 0) -> float:
    """How long until a tab's next picture after ``same`` pictures in a row came back unchanged
    (then 2, 4, up to :data:`THUMBNAIL_MAX_SECONDS`), or ``changed`` pictures in a row came back
    different: one a second, then every :data:`MOVING_SECONDS` from :data:`MOVING_SHOTS` on."""
    if changed >= MOVING_SHOTS:
        return MOVING_SECONDS
    return float(min(PUSH_SECONDS * 2 ** min(same, 16), THUMBNAIL_MAX_SECONDS))


def thumbnail_clip(metrics: Any) -> dict[str, float] | None:
    """``Page.captureScreenshot``'s clip for a tab's visible part, scaled to at most
    :data:`THUMBNAIL_WIDTH` wide, from its ``Page.getLayoutMetrics``; None when they are unusable."""
    view = metrics.get("cssVisualViewport") if isinstance(metrics, dict) else None
    if not isinstance(view, dict):
        return None
    values = [view.get("clientWidth"), view.get("clientHeight"), view.get("pageX", 0), view.get("pageY", 0)]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return None
    width, height, x, y = (float(v) for v in values)
    if width <= 0 or height <= 0:
        return None
    return {"x": x, "y": y, "width": width, "height": height, "scale": min(1.0, THUMBNAIL_WIDTH / width)}


# What of the watch answer reaches the page: the facts a person compares at a glance. The recent
# calls stay with `pix3 editor --watch` (the page's view never turns their recording on).
_CLIENT_FACTS = ("client", "name", "userAgent", "since", "keep", "calls", "errors", "lastMethod", "lastAgoMs")


class Held:
    """What the page holds of the thumbnails: each tab has a key (a small number, the same while the
    page wants the agents, never its target id) and the thumbnail last pushed for it. A push sends
    a tab's thumbnail only when it is not the one the page holds, so a still tab costs the page no
    picture to parse, check or decode again (docs/cdp-proxy.md, "The editor page's Agents view").

    :func:`page_body` offers; :meth:`taken` when the page took the push; :meth:`forget` when it may
    not have (a push refused or unanswered, another document): the next push sends every picture."""

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}  # target → key
        self.shown: dict[int, str | None] = {}  # key → the thumbnail the page holds
        self.offered: dict[int, str | None] = {}  # key → what the push being made carries
        self.context: int | None = None  # the page's execution context these are for
        self._next = 0

    def key(self, target: str) -> int:
        if target not in self.keys:
            self._next += 1
            self.keys[target] = self._next
        return self.keys[target]

    def taken(self) -> None:
        self.shown = self.offered
        self.offered = {}

    def forget(self) -> None:
        self.shown.clear()
        self.offered = {}


def page_body(
    watched: dict[str, Any], thumbnails: dict[str, str | None], editor: str | None, held: Held | None = None
) -> dict[str, Any]:
    """The body pushed to the page: per client its facts and tabs (``thumbnail``: a JPEG data URL
    or null), and whether the editor tab answered. ``watched``: the watch answer. With ``held``,
    each tab has a ``key`` and leaves its ``thumbnail`` out when the page holds that one already."""
    clients = []
    listed: set[str] = set()
    offered: dict[int, str | None] = {}
    for client in watched.get("clients", []):
        facts = {key: client.get(key) for key in _CLIENT_FACTS}
        facts["callsPerSecond"] = client.get("callsPerSecond")
        tabs = []
        for tab in client.get("tabs", []):
            target = tab.get("targetId", "")
            row: dict[str, Any] = {
                "title": tab.get("title", ""),
                "url": tab.get("url", ""),
                "editor": target == editor,
                "thumbnail": thumbnails.get(target),
            }
            if held is not None:
                listed.add(target)
                row["key"] = key = held.key(target)
                offered[key] = row["thumbnail"]
                if key in held.shown and held.shown[key] == row["thumbnail"]:
                    del row["thumbnail"]
            tabs.append(row)
        facts["tabs"] = tabs
        clients.append(facts)
    if held is not None:
        for gone in set(held.keys) - listed:
            del held.keys[gone]
        held.offered = offered
    tab = watched.get("editorTab")
    return {"clients": clients, "editorTab": {"answering": True} if tab is not None else None}


# What the owner calls in the page's context with the JSON text as its argument: the data is a
# value, never source, so each push compiles only this line (with the watchdog's debugger on,
# Chrome may keep the source of scripts compiled in the page: thumbnails as source could pile up).
PUSH_FUNCTION = (
    f'function (text) {{ return typeof window.{RECEIVE_FUNCTION} === "function" && '
    f"window.{RECEIVE_FUNCTION}(text) === true; }}"
)


def push_params(body: dict[str, Any], context: int) -> dict[str, Any]:
    """``Runtime.callFunctionOn``'s parameters that hand ``body`` to the page in ``context`` (the
    one the page called the binding from) as JSON text, parsed and checked by the page. Its value
    is true when the page still wants the agents; a page without the function is false."""
    return {
        "functionDeclaration": PUSH_FUNCTION,
        "executionContextId": context,
        "arguments": [{"value": json.dumps(body, separators=(",", ":"))}],
        "returnByValue": True,
    }


def read_push(result: Any) -> bool:
    """Whether the page still wants the agents, from the push's ``Runtime.callFunctionOn`` result."""
    value = result.get("result", {}).get("value") if isinstance(result, dict) else None
    return value is True
