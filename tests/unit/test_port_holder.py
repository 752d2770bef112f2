"""Who holds a loopback port (`pix3net.daemon.pids.port_holder`), for the sentence that says a port is
not ours: the listening sockets of /proc/net/tcp, and the process whose descriptor is one."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from pix3net.daemon.pids import listening_sockets, port_holder

# Two listeners on 9333 (IPv4 all, loopback), one on 9334, a connection on 9333 (state 01).
TABLE = """\
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:2475 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0 100 0 0 10 0
   1: 0100007F:2476 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 17772 1 0 100 0 0 10 0
   2: 0100007F:2475 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 999 1 0 20 4 30 10 -1
   3: 0100007F:2475 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 5151 1 0 100 0 0 10 0
   4: garbage
"""


def test_listening_sockets_of_a_port() -> None:
    assert listening_sockets(TABLE, 9333) == [(1000, 4242), (1001, 5151)]
    assert listening_sockets(TABLE, 9334) == [(0, 17772)]
    assert listening_sockets(TABLE, 9335) == []
    assert listening_sockets("", 9333) == []


def test_the_holder_of_a_port_this_process_listens_on() -> None:
    comm = Path("/proc/self/comm").read_text().strip()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert port_holder(port) == f"pid {os.getpid()}, {comm}"
    assert port_holder(port) == ""  # closed: nobody holds it


def test_a_holder_only_its_owner_is_known_of(tmp_path: Path) -> None:
    """Another user's process: /proc/net/tcp shows the socket's uid, not its descriptors."""
    (tmp_path / "net").mkdir()
    (tmp_path / "net" / "tcp").write_text(TABLE)
    (tmp_path / "1").mkdir()  # a process whose fd folder cannot be read
    assert port_holder(9334, proc=str(tmp_path)) == "a process of user root"
    assert port_holder(9333, proc=str(tmp_path)).startswith("a process of ")
    assert port_holder(9335, proc=str(tmp_path)) == ""
