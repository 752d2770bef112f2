"""Virtual time's grants as traces (pix3net/smoke/_clock.py, sans-IO): events in with the wall
time, CDP calls out; a busy page gives virtual time up; pending requests hold the next grant."""

from __future__ import annotations

import re
from importlib import resources

from pix3net.smoke import CHUNK_FRAMES, FRAME_MS, NETWORK_WAIT_S, STALL_S, VirtualClock

GRANT = ("Emulation.setVirtualTimePolicy", {"policy": "advance", "budget": CHUNK_FRAMES * FRAME_MS})
EXPIRED = "Emulation.virtualTimeBudgetExpired"


def test_loaded_turns_virtual_time_on_and_releases_the_game_with_virtual_frames() -> None:
    clock = VirtualClock()
    assert clock.deadline() is None  # nothing to watch before the page loaded
    grant, resume = clock.loaded(10.0)
    assert grant == GRANT
    assert resume == (
        "Runtime.evaluate",
        {"expression": "globalThis.__pix3SmokeResume && globalThis.__pix3SmokeResume(true)"},
    )
    assert clock.deadline() == 10.0 + STALL_S


def test_each_expired_grant_is_renewed_at_once_when_nothing_is_pending() -> None:
    clock = VirtualClock()
    clock.loaded(0.0)
    assert clock.feed(EXPIRED, {}, 0.01) == [GRANT]
    assert clock.feed(EXPIRED, {}, 0.02) == [GRANT]
    assert clock.grants == 3 and clock.busy_s is None


def test_a_pending_request_holds_the_next_grant_until_it_ends() -> None:
    clock = VirtualClock()
    clock.loaded(0.0)
    assert clock.feed("Network.requestWillBeSent", {"requestId": "7"}, 0.01) == []
    assert clock.feed(EXPIRED, {}, 0.02) == []  # the asset is on its way: time waits for it
    assert clock.deadline() == 0.02 + NETWORK_WAIT_S  # no stall is counted meanwhile
    assert clock.tick(0.5) == []
    assert clock.feed("Network.loadingFinished", {"requestId": "7"}, 0.6) == [GRANT]
    assert clock.feed("Network.requestWillBeSent", {"requestId": "8"}, 0.61) == []
    assert clock.feed(EXPIRED, {}, 0.62) == []
    assert clock.feed("Network.loadingFailed", {"requestId": "8"}, 0.63) == [GRANT]


def test_a_request_that_never_ends_is_left_to_run_beside_the_frames() -> None:
    clock = VirtualClock()
    clock.loaded(0.0)
    clock.feed("Network.requestWillBeSent", {"requestId": "stream"}, 0.01)
    assert clock.feed(EXPIRED, {}, 0.1) == []
    assert clock.tick(0.1 + NETWORK_WAIT_S) == [GRANT]  # waited long enough: given up on
    assert clock.feed(EXPIRED, {}, 1.2) == [GRANT]  # and never waited on again
    assert clock.busy_s is None


def test_a_grant_that_does_not_end_within_the_stall_time_gives_virtual_time_up() -> None:
    clock = VirtualClock()
    clock.loaded(5.0)
    clock.frame = 3
    assert clock.tick(5.0 + STALL_S - 0.01) == [] and clock.busy_s is None
    assert clock.tick(5.0 + STALL_S + 0.5) == []
    assert clock.busy_s == STALL_S + 0.5 and clock.busy_frame == 3
    assert clock.deadline() is None and clock.feed(EXPIRED, {}, 9.0) == []  # nothing more is granted


def test_expiries_and_requests_before_load_grant_nothing() -> None:
    clock = VirtualClock()
    assert clock.feed(EXPIRED, {}, 0.0) == []
    assert clock.feed("Network.loadingFinished", {"requestId": "1"}, 0.0) == []
    assert clock.tick(100.0) == []


def test_the_stall_time_is_the_probes() -> None:
    """One threshold: virtual time is given up exactly when the probe would call the page stalled."""
    probe = resources.files("pix3net.devserver").joinpath("page", "probe.js").read_text(encoding="utf-8")
    match = re.search(r"const STALL_MS = (\d+);", probe)
    assert match is not None
    assert int(match.group(1)) == STALL_S * 1000


def test_how_long_the_page_has_been_busy_is_the_age_of_the_running_grant() -> None:
    """At a timeout under virtual time the probe's heartbeat looks fresh (its clock stood still in
    the loop); the run tells the rules the grant's age on the wall clock instead."""
    clock = VirtualClock()
    assert clock.busy_ms(50.0) == 0  # before load: no grant
    clock.loaded(10.0)
    assert clock.busy_ms(12.5) == 2500
    clock.feed(EXPIRED, {}, 12.6)  # the grant ended, the next one began
    assert clock.busy_ms(12.7) == 100
    clock.feed("Network.requestWillBeSent", {"requestId": "1"}, 12.7)
    clock.feed(EXPIRED, {}, 12.8)  # waiting on a request: no grant runs, the page is not busy
    assert clock.busy_ms(13.5) == 0
