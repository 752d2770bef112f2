"""The dev server's public sockets, bound before anything heavy is imported (standard library only).

`pix3 editor` launches Chrome on the editor's address while the dev server starts: with the
sockets bound first (and listening), Chrome's request waits in the backlog until the server
answers instead of meeting a refused connection and an error page (docs/editor.md, "Cold start and reuse (performance)").
"""

from __future__ import annotations

import errno
import socket

from pix3tools.core.ports import DEV_PORT


class PortError(Exception):
    """The port asked for is taken, or no port from 5173 (``DEV_PORT``) up is free."""


def bind_one(host: str, family: int, port: int) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((host, port))
        sock.listen(1024)
    except BaseException:
        sock.close()
        raise
    return sock


def bind_loopback(port: int) -> list[socket.socket]:
    """127.0.0.1 and, when this machine has IPv6, ::1 on one port (``localhost`` may be either)."""
    sockets = [bind_one("127.0.0.1", socket.AF_INET, port)]
    try:
        sockets.append(bind_one("::1", socket.AF_INET6, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            sockets[0].close()
            raise
    return sockets


def choose_sockets(port: int | None) -> list[socket.socket]:
    """Vite's rule: 5173 (``DEV_PORT``) when free, else the next one; ``--port N`` is strict."""
    if port is not None:
        try:
            return bind_loopback(port)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortError(f"Port {port} is already in use") from None
            raise
    for candidate in range(DEV_PORT, 65536):
        try:
            return bind_loopback(candidate)
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise
    raise PortError(f"no free port from {DEV_PORT} up")


def first_free_port() -> int | None:
    """The port :func:`choose_sockets` would bind now without ``--port`` (bound and let go at
    once), or None: where a dev server about to start will listen (`pix3 editor` starts Chrome on
    it meanwhile)."""
    try:
        sockets = choose_sockets(None)
    except (PortError, OSError):
        return None
    port: int = sockets[0].getsockname()[1]
    for sock in sockets:
        sock.close()
    return port


def any_free_port() -> int:
    """A port the system has free on 127.0.0.1 (Vite's, behind the front door: nobody dials it
    by name)."""
    with bind_one("127.0.0.1", socket.AF_INET, 0) as sock:
        port: int = sock.getsockname()[1]
        return port
