"""The views of the proxy's clients: what `pix3 editor --watch` asks every second, and `--kick`
(docs/cdp-proxy.md, "Watching"). Pure: fed the router, who each client is and the clocks.

Seeing costs nothing unless someone looks: the router always keeps a few counters per client
(requests, errors, the last method and when); asking for the watch body turns on the recording
of each client's recent calls, and it goes off again (the calls forgotten) when nobody has asked
for :data:`WATCH_HOLD_SECONDS`. Calls per second are measured here from the counters, between
the asks, never on the proxy's hot path.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from pix3net.owner.proxy._status import Seen, status_body
from pix3net.wire.proxypaths import KICK_PATH, WATCH_PATH
from pix3net.wire.recentcalls import Recorded
from pix3net.wire.router import Router

__all__ = ["KICK_PATH", "RATE_SECONDS", "WATCH_HOLD_SECONDS", "WATCH_PATH", "Watch"]

# The window of "calls per second": long enough to read a rate a person can compare at a glance,
# short enough that an agent that stopped shows it within the window.
RATE_SECONDS = 10.0
# The recording stays on this long after the last ask: a view asks every second, so a missed
# second or two does not lose the calls; a view that went away stops the recording soon after.
WATCH_HOLD_SECONDS = 5.0


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _call(record: Recorded, now: float) -> dict[str, Any]:
    return {
        "method": record.method,
        "target": record.target,
        "agoMs": _ms(now - record.started),
        "durationMs": None if record.duration is None else _ms(record.duration),
        "error": record.error,
        "params": record.params,
    }


class Watch:
    """What the watchers asked and the counters seen at each ask (for the rates)."""

    def __init__(self) -> None:
        self.last_asked: float | None = None
        self._samples: dict[int, deque[tuple[float, int]]] = {}

    def body(
        self,
        router: Router,
        seen: dict[int, Seen],
        now: float,
        wall: float,
        answering: bool | None = None,
        *,
        record: bool = True,
    ) -> dict[str, Any]:
        """The watch answer: the status with each client's facts. ``now``: the router's clock;
        ``wall``: the time of day (for the age of a client younger than the rate's window);
        ``answering``: whether the editor tab answered (None: not asked). Turns the recording on
        unless ``record`` is False (the editor page's view, which shows no recent calls)."""
        if record:
            self.last_asked = now
            router.recording = True
        status = status_body(router, seen)
        if status["editorTab"] is not None:
            status["editorTab"]["answering"] = answering
        for client in status["clients"]:
            number = client["client"]
            facts = router.facts(number)
            if facts is None:
                continue
            last_at = facts.pop("lastAt")
            recent = facts.pop("recent")
            client.update(facts)
            client["lastAgoMs"] = None if last_at is None else _ms(now - last_at)
            client["callsPerSecond"] = self._rate(number, facts["calls"], now, wall - seen[number].since)
            client["recent"] = [_call(r, now) for r in recent]
        for gone in set(self._samples) - {c["client"] for c in status["clients"]}:
            del self._samples[gone]
        return status

    def _rate(self, client: int, calls: int, now: float, age: float) -> float | None:
        samples = self._samples.setdefault(client, deque())
        samples.append((now, calls))
        while samples and now - samples[0][0] > RATE_SECONDS:
            samples.popleft()
        if age < RATE_SECONDS and age > 0:  # its whole life is inside the window
            return round(calls / max(age, 1.0), 1)
        first_at, first_calls = samples[0]
        if now - first_at < 1.0:
            return None  # not measured yet: the next ask has a second to compare with
        return round((calls - first_calls) / (now - first_at), 1)

    def expire(self, router: Router, now: float) -> bool:
        """Nobody asked for :data:`WATCH_HOLD_SECONDS`: the recording stops and the recent calls
        are forgotten. True when it stopped now."""
        if self.last_asked is None or now - self.last_asked < WATCH_HOLD_SECONDS:
            return False
        self.last_asked = None
        self._samples.clear()
        router.recording = False
        router.forget_recent()
        return True


def kick_number(target: str) -> int | None:
    """The client number of a kick's query (``?client=<n>``), else None."""
    query = target.split("?", 1)[1] if "?" in target else ""
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if key == "client" and value.isdigit() and len(value) < 10:
            return int(value)
    return None
