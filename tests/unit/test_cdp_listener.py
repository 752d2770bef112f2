"""Who makes room at the proxy's gate (docs/cdp-proxy.md, "Limits"): a connection without the token,
whatever it is doing, before anything else; then the one that waited longest for its next request;
never one serving a token holder."""

from __future__ import annotations

import pytest

from pix3net.owner.proxy.transport import Gate, Limits, Slot

# Each connection as the table gives it: "tokenless" (no request with the token yet) or "token",
# and "waiting" (for its next head) or "busy" (answering, reading a body, a WebSocket).
Kind = tuple[str, str]


def filled(kinds: list[Kind], limits: Limits) -> tuple[Gate, list[Slot]]:
    gate = Gate(limits)
    slots = []
    for trust, state in kinds:
        slot = gate.admit()
        assert isinstance(slot, Slot)
        slot.heard()  # not a first head any more: the waiting-heads rule stays out of the way
        slot.trusted = trust == "token"
        if state == "waiting":
            slot.wait(30)
        slots.append(slot)
    return gate, slots


@pytest.mark.parametrize(
    ("kinds", "evicted", "why"),
    [
        # the oldest tokenless connection goes first, even mid-answer, even before an older idle one
        (
            [("token", "waiting"), ("tokenless", "busy"), ("tokenless", "waiting")],
            1,
            "3 connections were open and this one, without the token, was the oldest",
        ),
        ([("token", "busy"), ("token", "busy"), ("tokenless", "busy")], 2, "without the token, was the oldest"),
        # only token holders: the one waiting longest for its next request
        ([("token", "busy"), ("token", "waiting"), ("token", "waiting")], 1, "and this one had waited longest"),
        # every place serves a token holder: the newcomer is refused, nobody is evicted
        ([("token", "busy"), ("token", "busy"), ("token", "busy")], None, None),
    ],
)
async def test_who_makes_room(kinds: list[Kind], evicted: int | None, why: str | None) -> None:
    gate, slots = filled(kinds, Limits(max_connections=3, max_waiting_heads=10))
    newcomer = gate.admit()
    gone = [n for n, slot in enumerate(slots) if slot.scope.cancel_called]
    if evicted is None:
        assert newcomer == "too many connections to the CDP proxy (3 open); close some and try again"
        assert gone == []
        return
    assert isinstance(newcomer, Slot)
    assert gone == [evicted]
    victim = slots[evicted]
    assert victim.evicted is not None and why is not None and victim.evicted.endswith(why)
    # only a connection between requests is told why (never in the middle of an answer)
    assert victim.evicted_waiting == (kinds[evicted][1] == "waiting")


async def test_places_come_back_as_connections_close() -> None:
    gate, slots = filled([("tokenless", "busy")] * 2, Limits(max_connections=2))
    assert isinstance(gate.admit(), Slot)  # evicts the first
    slots[0].close()
    assert gate.open == 2
    slots[1].close()
    assert gate.open == 1 and len(gate.slots) == 1
