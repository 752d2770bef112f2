"""Where a script spun: a paused main thread's call frames as one line an agent can act on
(docs/reliability.md, "A game or a client that holds a main thread").

Pure, and the one place that words it: the Chrome owner's watchdog (for the editor tab and the
workbench's game frame) and `pix3 smoke` (for its own game page) both pause a script that held its
main thread, hand the ``Debugger.paused`` call frames here with the URLs their scripts were parsed
from, and a ``locate`` that knows the source maps (:func:`pix3tools.smoke.map_location`). The line
reads ``frame() at src/game.js:132:31``: the function, then the project file, line and column
(1-based) — the original source's through a map, else the path the dev server served.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pix3tools.smoke._stack import Locate

# Frames kept in a report: the top one names the loop, a few callers say how it was reached.
MAX_FRAMES = 10
ANONYMOUS = "(anonymous)"


def _frame(
    call: Any, scripts: Mapping[str, str], locate: Locate, hidden: Callable[[str], bool]
) -> dict[str, Any] | None:
    if not isinstance(call, dict):
        return None
    location = call.get("location")
    if not isinstance(location, dict):
        return None
    line, column = location.get("lineNumber"), location.get("columnNumber", 0)
    if not isinstance(line, int) or not isinstance(column, int):
        return None
    script = location.get("scriptId")
    url = scripts.get(script, "") if isinstance(script, str) else ""
    given = call.get("url")
    url = url or (given if isinstance(given, str) else "")
    if url and hidden(url):
        return None
    name = call.get("functionName")
    name = name if isinstance(name, str) and name else ANONYMOUS
    row, col = line + 1, column + 1  # CDP counts from 0, people and stacks from 1
    located = locate(url, row, col) if url else None
    if located is not None:
        url, row, col = located
    return {"functionName": name, "url": url, "line": row, "column": col}


def spin_frames(
    call_frames: Any,
    scripts: Mapping[str, str],
    locate: Locate,
    hidden: Callable[[str], bool] = lambda url: False,
) -> tuple[str | None, list[dict[str, Any]]]:
    """``(where, frames)`` of a ``Debugger.paused`` event's ``callFrames``.

    ``scripts``: scriptId → the URL ``Debugger.scriptParsed`` gave (a call frame's own ``url`` is
    deprecated and often empty); ``locate(url, line, column)`` (1-based) → the project location or
    None (then the URL is kept); ``hidden(url)``: a tool's own script, never named. ``where`` is
    the first frame with a URL (an ``eval`` without one says nothing a person can open), None
    when no frame has one; ``frames`` are the top :data:`MAX_FRAMES` with their locations mapped.
    """
    frames: list[dict[str, Any]] = []
    for call in call_frames if isinstance(call_frames, list) else []:
        frame = _frame(call, scripts, locate, hidden)
        if frame is None:
            continue
        frames.append(frame)
        if len(frames) == MAX_FRAMES:
            break
    where = next((where_text(f) for f in frames if f["url"]), None)
    return where, frames


def where_text(frame: Mapping[str, Any]) -> str:
    """``frame() at src/game.js:132:31``."""
    return f"{frame['functionName']}() at {frame['url']}:{frame['line']}:{frame['column']}"
