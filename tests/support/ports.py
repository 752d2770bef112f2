"""Free loopback ports: tests never use a fixed port (other test runs share the machine)."""

from __future__ import annotations

import os
import socket


def free_port() -> int:
    """A port free on 127.0.0.1 at the time of asking."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def free_port_run(count: int) -> int:
    """The first of ``count`` consecutive free ports (the proxy scans preferred..preferred+6)."""
    for _ in range(200):
        base = free_port()
        if base + count > 65535:
            continue
        socks = []
        try:
            for p in range(base, base + count):
                s = socket.socket()
                socks.append(s)  # before bind: a port that is taken must still close its socket
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no run of free ports")


def held_here() -> str:
    """How a command names the holder of a port this test process listens on (/proc shows it)."""
    with open("/proc/self/comm", encoding="utf-8") as handle:
        return f"pid {os.getpid()}, {handle.read().strip()}"
