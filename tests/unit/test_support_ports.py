"""tests/support/ports.py: free loopback ports for the tests."""

from __future__ import annotations

import gc
import itertools
import socket

import pytest

from tests.support import ports


def test_free_port_run_skips_a_taken_neighbour_without_leaking_a_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first candidate's neighbour is taken: bind fails there, and that socket must be closed too
    # (a leaked socket is a ResourceWarning, an error under filterwarnings = error, once collected).
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        neighbour = holder.getsockname()[1]
        # then real candidates: a run after the first can be taken too on a busy machine
        candidates = itertools.chain([neighbour - 1], iter(ports.free_port, None))
        monkeypatch.setattr(ports, "free_port", lambda: next(candidates))
        base = ports.free_port_run(2)
        gc.collect()
    assert base != neighbour - 1
