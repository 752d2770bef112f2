"""A client's recent calls, kept for the views of the proxy's clients only while someone watches
(docs/cdp-proxy.md, "Watching"); parameters that can carry a secret are redacted as they are kept.

Pure. The router appends a :class:`Recorded` per request while :attr:`Router.recording` is on and
fills in its duration and error when Chrome answers; nothing is copied otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_KEPT_TEXT", "RECENT_CALLS", "REDACTED", "Recorded", "redacted_params"]

# The last calls of each client a view can show: a screenful, and a bound on what watching keeps
# (100 calls of at most MAX_KEPT_TEXT each).
RECENT_CALLS = 100
# A request longer than this keeps no parameters (a screenshot upload, a script): a view shows
# what was called, not the payload.
MAX_KEPT_TEXT = 4096
# A string parameter is cut to this many characters (an expression, a URL): enough to recognise it.
MAX_SHOWN_STRING = 200
REDACTED = "<redacted>"

# Keys whose values are secrets wherever they appear: header maps and lists (their names stay,
# their values go), cookies, credentials.
_HEADER_KEYS = frozenset({"headers", "extrahttpheaders", "responseheaders"})
_SECRET_KEYS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "cookies", "set-cookie", "password", "token", "postdata"}
)
# Domains whose `value` / `entries` / `data` parameters are stored page data (localStorage items,
# IndexedDB records, cache entries, cookies being set): redacted.
_STORAGE_DOMAINS = frozenset({"DOMStorage", "Storage", "IndexedDB", "CacheStorage", "Network", "Fetch"})
_STORAGE_KEYS = frozenset({"value", "entries", "data", "body", "items"})


@dataclass(slots=True)
class Recorded:
    """One call as a view shows it. ``started`` is the router's clock; ``duration`` None: not
    answered yet."""

    method: str
    target: str | None  # the target its session is attached to; None: the browser
    started: float
    params: Any = None  # redacted; None: none given, or too long to keep
    duration: float | None = None
    error: str | None = None


def redacted_params(method: str, text: str) -> Any:
    """The request's parameters with secrets replaced by :data:`REDACTED` (``text`` is the
    client's message, already checked as a JSON object); None when there are none or the message
    is too long to keep."""
    if len(text) > MAX_KEPT_TEXT:
        return None
    try:
        params = json.loads(text).get("params")
    except (ValueError, AttributeError):
        return None
    if params is None:
        return None
    storage = method.split(".", 1)[0] in _STORAGE_DOMAINS
    return _redact(params, storage)


def _redact(value: Any, storage: bool) -> Any:
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        for key, item in value.items():
            lowered = key.lower()
            if lowered in _HEADER_KEYS:
                kept[key] = _header_names(item)
            elif lowered in _SECRET_KEYS or (storage and lowered in _STORAGE_KEYS):
                kept[key] = REDACTED
            else:
                kept[key] = _redact(item, storage)
        return kept
    if isinstance(value, list):
        return [_redact(item, storage) for item in value]
    if isinstance(value, str) and len(value) > MAX_SHOWN_STRING:
        return value[:MAX_SHOWN_STRING] + "…"
    return value


def _header_names(headers: Any) -> Any:
    """A header map or list of ``{name, value}`` with every value redacted: which headers were set
    is shown, never what they said."""
    if isinstance(headers, dict):
        return dict.fromkeys((str(k) for k in headers), REDACTED)
    if isinstance(headers, list):
        return [{"name": h.get("name"), "value": REDACTED} if isinstance(h, dict) else REDACTED for h in headers]
    return REDACTED
