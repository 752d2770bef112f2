"""`cdp-forward-ports.json`: only the forwards of live launches prove (issue 12).

The proxy proves the forward scope for the file's ``ports``. A launch's ``--remote-port``
replaces its SSH host's earlier forward; forwards whose Chrome owner is gone are dropped.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from pix3net.commands.editor.forwardports import Forward, drop_gone, parse_forwards, read_forwards, record_forward
from pix3net.wire.proof import read_forward_ports


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_launch_replaces_its_hosts_forward(tmp_path: Path) -> None:
    home = tmp_path / "home"
    me = os.getpid()
    assert record_forward(home, "devbox", 9333, me) == [9333]
    assert record_forward(home, "other", 9340, me) == [9333, 9340]
    # The user moved devbox's forward (something squats 9333 there): 9333 proves nothing any more.
    assert record_forward(home, "devbox", 9334, me) == [9334, 9340]
    assert read_forward_ports(home) == frozenset({9334, 9340})
    assert read_forwards(home) == [Forward("other", 9340, me), Forward("devbox", 9334, me)]
    # No --ssh: one unnamed forward, replaced by the next unnamed one.
    record_forward(home, None, 9350, me)
    assert record_forward(home, None, 9351, me) == [9334, 9340, 9351]
    assert stat.S_IMODE(home.stat().st_mode) == 0o700  # the home it created holds the token too
    assert stat.S_IMODE((home / "cdp-forward-ports.json").stat().st_mode) == 0o600


def test_forwards_of_an_owner_that_is_gone_prove_nothing(tmp_path: Path) -> None:
    gone, me = _dead_pid(), os.getpid()
    record_forward(tmp_path, "old-host", 9400, gone)
    assert read_forward_ports(tmp_path) == frozenset({9400})
    # The next launch drops the forward of the owner that is gone...
    assert record_forward(tmp_path, "kept", 9401, me) == [9401]
    record_forward(tmp_path, "late", 9403, gone)
    assert read_forward_ports(tmp_path) == frozenset({9401, 9403})
    # ...and so does the start of a new owner, before it can answer any proof.
    drop_gone(tmp_path)
    assert read_forward_ports(tmp_path) == frozenset({9401})


def test_an_old_or_bad_file_records_no_forward(tmp_path: Path) -> None:
    assert parse_forwards(json.dumps({"ports": [9333, 9334]})) == []  # ports without a launch: none
    assert parse_forwards("not json") == []
    assert parse_forwards(json.dumps({"forwards": [{"host": 1, "port": 9333}, {"port": 0}, "x"]})) == []
    bad_pid = parse_forwards(json.dumps({"forwards": [{"host": None, "port": 9333, "ownerPid": True}]}))
    assert bad_pid == [Forward(None, 9333, None)]
    (tmp_path / "cdp-forward-ports.json").write_text(json.dumps({"ports": [9333]}))
    drop_gone(tmp_path)  # the old shape's ports belonged to no live launch
    assert read_forward_ports(tmp_path) == frozenset()
