"""Virtual time's grants as traces (pix3net/commands/smoke/_clock.py, sans-IO): events in with the wall
time, CDP calls out; a busy page gives virtual time up; pending requests hold the next grant."""

from __future__ import annotations

import re
from importlib import resources

from pix3net.commands.smoke import CHUNK_FRAMES, FRAME_MS, MAX_CHUNK_FRAMES, NETWORK_WAIT_S, STALL_S, VirtualClock

EXPIRED = "Emulation.virtualTimeBudgetExpired"


def grant(frames: int = CHUNK_FRAMES) -> tuple[str, dict[str, object]]:
    return ("Emulation.setVirtualTimePolicy", {"policy": "advance", "budget": frames * FRAME_MS})


GRANT = grant()


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


def test_each_expired_grant_is_renewed_at_once_twice_as_long_when_nothing_is_pending() -> None:
    """Issue 25: under load (load 20 on 2 cores) one grant's round trip took up to 0.9 s; 30 frames
    in grants of 4 did not finish in a 4 s timeout. Grants grow: 120 frames in 6 round trips."""
    clock = VirtualClock()
    clock.loaded(0.0)
    sizes = [CHUNK_FRAMES]
    for step in range(6):
        [(method, params)] = clock.feed(EXPIRED, {}, 0.01 * (step + 1))
        assert method == "Emulation.setVirtualTimePolicy"
        sizes.append(round(params["budget"] / FRAME_MS))
    assert sizes == [4, 8, 16, 32, 32, 32, 32] and MAX_CHUNK_FRAMES == 32
    assert sum(sizes[:6]) >= 120  # 120 frames: the load's grant and 5 more
    assert clock.grants == 7 and clock.busy_s is None


def test_a_request_of_the_page_brings_grants_back_to_a_few_frames() -> None:
    clock = VirtualClock()
    clock.loaded(0.0)
    assert clock.feed(EXPIRED, {}, 0.01) == [grant(8)]
    assert clock.feed(EXPIRED, {}, 0.02) == [grant(16)]
    clock.feed("Network.requestWillBeSent", {"requestId": "9", "type": "Image"}, 0.03)
    assert clock.feed("Network.loadingFinished", {"requestId": "9"}, 0.04) == []  # a grant still runs
    assert clock.feed(EXPIRED, {}, 0.05) == [GRANT]  # the asset came: short grants again
    assert clock.feed(EXPIRED, {}, 0.06) == [grant(8)]


def test_the_browsers_own_requests_hold_nothing() -> None:
    """Chrome fetches the favicon after `load` (type Other); under load its answer came late, and
    it held the game's frames although the game never waits on it."""
    clock = VirtualClock()
    clock.loaded(0.0)
    assert clock.feed("Network.requestWillBeSent", {"requestId": "f", "type": "Other"}, 0.01) == []
    assert clock.feed(EXPIRED, {}, 0.02) == [grant(8)]  # not held, and the grants still grow
    assert clock.feed("Network.loadingFinished", {"requestId": "f"}, 0.5) == []


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
    assert clock.feed(EXPIRED, {}, 1.2) == [grant(8)]  # and never waited on again
    assert clock.busy_s is None


def test_a_grant_that_does_not_end_within_the_stall_time_gives_virtual_time_up() -> None:
    clock = VirtualClock()
    clock.loaded(5.0)
    assert clock.tick(5.0 + STALL_S - 0.01) == [] and clock.busy_s is None
    assert clock.tick(5.0 + STALL_S + 0.5) == []
    assert clock.busy_s == STALL_S + 0.5  # the run names the frame (the probe's beats, _collect)
    assert clock.deadline() is None and clock.feed(EXPIRED, {}, 9.0) == []  # nothing more is granted


def test_expiries_and_requests_before_load_grant_nothing() -> None:
    clock = VirtualClock()
    assert clock.feed(EXPIRED, {}, 0.0) == []
    assert clock.feed("Network.loadingFinished", {"requestId": "1"}, 0.0) == []
    assert clock.tick(100.0) == []


def test_the_stall_time_is_the_probes() -> None:
    """One threshold: virtual time is given up exactly when the probe would call the page stalled."""
    probe = resources.files("pix3net.devserver").joinpath("page", "recorder.js").read_text(encoding="utf-8")
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
