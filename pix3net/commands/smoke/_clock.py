"""Frames faster than real time: the game page under Chrome's virtual time (docs/smoke.md, "Faster
than real time").

What Chromium 156 does here, measured: ``Emulation.setVirtualTimePolicy`` makes the page's
``performance.now``, ``Date`` and timers virtual (an idle page's clock jumps to its next timer),
but its animation frames stay on the compositor's real 60 Hz (130 frames still took 2.4 s, their
timestamps seconds behind ``performance.now``); ``HeadlessExperimental.beginFrame`` is not offered
by a ``--headless=new`` Chrome at all ("wasn't found", also with ``--enable-begin-frame-control``);
and a page put under virtual time before it loaded never finished loading. So the page loads in
real time; at its ``load`` the page script (``_run.INSTALLER``) holds the game, this clock turns
virtual time on, and the page script then runs the game's frames on virtual timers, one every
1/60 s of virtual time: ``performance.now``, ``Date``, timers and the frames' timestamps agree.

Virtual time runs in grants (``Emulation.virtualTimeBudgetExpired`` ends each). Each grant is a
round trip through smoke, the owner's proxy, Chrome and the renderer, every one of which must get
a core: on a loaded machine (load 20 on 2 cores) one took up to 0.9 s, so 30 frames in grants of
4 (8 round trips) could not finish in a 4 s timeout where Chrome's own frames did. So grants grow:

- the first grant is ``CHUNK_FRAMES`` frames, each next one twice the last, up to
  ``MAX_CHUNK_FRAMES`` (120 frames: 6 round trips instead of 30); a request the page starts
  brings the next grant back to ``CHUNK_FRAMES``, so a game loading assets keeps short grants;
- a grant is not renewed while a request of the page is pending (for up to ``NETWORK_WAIT_S`` per
  request), so an asset asked for at frame 3 arrives a few frames later, as on a real clock,
  instead of after the last frame (one asked for in the middle of a long grant arrives at its
  end, at most ``MAX_CHUNK_FRAMES`` frames later). The browser's own requests (type ``Other``:
  the favicon Chrome fetches after ``load``) hold nothing: the game never waits on them;
- the main thread is frozen in virtual time while a task runs (``performance.now`` does not move
  inside a loop), so the probe's heartbeat cannot see a busy page: a grant that does not end
  within ``STALL_S`` of wall time means the page was busy that long (or its frames that slow), and
  the run falls back to real time, where the probe's own stall and timeout reasons hold. A loop
  that waits on the clock (``while (performance.now() < t) {}``) never ends under virtual time;
  this is how such a game still runs.

Sans-IO: :meth:`VirtualClock.feed` takes the page session's events with the wall time and returns
the CDP calls to make; :meth:`VirtualClock.tick` is called when :meth:`deadline` passes.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["CHUNK_FRAMES", "FRAME_MS", "MAX_CHUNK_FRAMES", "NETWORK_WAIT_S", "STALL_S", "VirtualClock"]

FRAME_MS = 1000 / 60  # a frame of virtual time: 60 frames a second, as headless Chrome draws
# Frames per grant: each grant is one CDP round trip (~1 ms here); 4 frames (67 ms of virtual
# time) keep an asset request made in a frame within a few frames of its answer.
CHUNK_FRAMES = 4
# The longest grant: half a second of virtual time. Measured (docs/smoke.md, "Faster than real
# time"): under load a round trip took up to 0.9 s, so 120 frames in grants of 4 could take
# longer than the frames in real time; in grants growing to 32 they take 6 round trips.
MAX_CHUNK_FRAMES = 32
BROWSER_REQUEST = "Other"  # Network.requestWillBeSent's type for what the browser fetches itself (favicon)# The probe's STALL_MS (recorder.js): a main thread busy this long is a stall there; here it ends
# virtual time for the scene. A test keeps the two equal.
STALL_S = 2.0
NETWORK_WAIT_S = 1.0  # a request pending longer is left to run beside the frames (a stream, a long poll)
RESUME = "globalThis.__pix3SmokeResume && globalThis.__pix3SmokeResume({virtual})"

Call = tuple[str, dict[str, Any]]


def resume_call(virtual: bool) -> Call:
    """The page script's hold released (and its frames made virtual, when ``virtual``)."""
    return ("Runtime.evaluate", {"expression": RESUME.format(virtual=json.dumps(virtual))})


class VirtualClock:
    def __init__(self) -> None:
        self.on = False  # virtual time granted at least once (the page loaded)
        self.busy_s: float | None = None  # set when a grant outlived STALL_S: fall back to real time
        self.grants = 0
        self._granted_at: float | None = None  # wall time of the outstanding grant
        self._waiting_since: float | None = None  # a grant is due, held for pending requests
        self._pending: dict[str, float] = {}  # request id → wall time first waited on (0: not yet)
        self._given_up: set[str] = set()
        self._chunk = CHUNK_FRAMES  # frames in the next grant

    def _grant(self, now: float) -> list[Call]:
        self._granted_at = now
        self._waiting_since = None
        self.grants += 1
        budget = {"policy": "advance", "budget": self._chunk * FRAME_MS}
        self._chunk = min(self._chunk * 2, MAX_CHUNK_FRAMES)
        return [("Emulation.setVirtualTimePolicy", budget)]

    def loaded(self, now: float) -> list[Call]:
        """The page said it loaded and holds its game: virtual time on, the frames virtual."""
        self.on = True
        return [*self._grant(now), resume_call(True)]

    def _waiting_on(self, now: float) -> list[str]:
        waiting = []
        for request, since in self._pending.items():
            if request in self._given_up:
                continue
            if since == 0.0:
                self._pending[request] = since = now
            if now - since >= NETWORK_WAIT_S:
                self._given_up.add(request)
                continue
            waiting.append(request)
        return waiting

    def _due(self, now: float) -> list[Call]:
        """A grant is due: now, unless a request is pending."""
        if self._waiting_on(now):
            if self._waiting_since is None:
                self._waiting_since = now
            self._granted_at = None
            return []
        return self._grant(now)

    def feed(self, method: str, params: dict[str, Any], now: float) -> list[Call]:
        if method == "Network.requestWillBeSent":
            if params.get("type") == BROWSER_REQUEST:
                return []
            request = str(params.get("requestId"))
            self._pending.setdefault(request, 0.0)
            self._chunk = CHUNK_FRAMES
        elif method in ("Network.loadingFinished", "Network.loadingFailed"):
            request = str(params.get("requestId"))
            self._pending.pop(request, None)
            self._given_up.discard(request)
            if self.on and self._waiting_since is not None and not self._waiting_on(now):
                return self._grant(now)
        elif method == "Emulation.virtualTimeBudgetExpired" and self.on and self.busy_s is None:
            return self._due(now)
        return []

    def deadline(self) -> float | None:
        """The wall time at which :meth:`tick` has something to decide, if any."""
        if not self.on or self.busy_s is not None:
            return None
        if self._granted_at is not None:
            return self._granted_at + STALL_S
        if self._waiting_since is not None:
            starts = [since for request, since in self._pending.items() if request not in self._given_up]
            return min(starts, default=self._waiting_since) + NETWORK_WAIT_S
        return None

    def busy_ms(self, now: float) -> int:
        """How long the page's main thread has been busy, as far as virtual time tells: the age of
        a grant that has not ended (0 when none runs). The probe's heartbeat cannot see it: its
        clock stands still inside a task."""
        return round((now - self._granted_at) * 1000) if self.on and self._granted_at is not None else 0

    def tick(self, now: float) -> list[Call]:
        if not self.on or self.busy_s is not None:
            return []
        if self._granted_at is not None:
            if now - self._granted_at >= STALL_S:
                self.busy_s = now - self._granted_at
            return []
        if self._waiting_since is not None:
            return self._due(now)
        return []
