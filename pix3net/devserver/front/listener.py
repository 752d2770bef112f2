"""The public listener: accepts on the public sockets and gives each connection a thread that
splices Vite-bound requests to Vite and hands everything else to Hypercorn (`splice.py`).

A module fetch costs Vite about half a millisecond; parsing it with h11 twice (Hypercorn, then
the proxy) costs more than that (measured: 3.6× Vite alone), hence blocking sockets in threads:
per request four plain system calls and no event-loop round trip (what the hop still costs, and
the floor of any relay here: docs/devserver.md "Shape").

Bounded (docs/devserver.md "Limits"): at most `connection_cap(fd limit)` connections, hence
threads. At the cap the connection that has waited longest for a request head (idle keep-alive
or a head trickling in) is closed to make room; with none, accepting pauses until one ends.
When accept itself fails for want of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM)
the loop backs off and tries again (`pix3net.daemon.acceptbackoff`, the CDP proxy's too): the server
keeps serving the connections it has.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import resource
import socket
import threading
import time
from collections.abc import Callable

import trio

from pix3net.daemon.acceptbackoff import AcceptBackoff
from pix3net.devserver.front.door import Door
from pix3net.devserver.front.splice import KEEP_ALIVE_S, Activity, serve_connection, set_timeouts

MAX_CONNECTIONS = 512  # one thread each; far above what a browser and a few agents open
FDS_PER_CONNECTION = 3  # the client, its upstream (Vite or Hypercorn), Hypercorn's end of that link
RESERVED_FDS = 96  # for project files, logs, Vite's pipes, inotify, the file watcher
LOG_EVERY_S = 10.0  # the same warning at most this often


def connection_cap(fd_limit: int) -> int:
    """How many connections fit in ``fd_limit`` descriptors with room left for the rest."""
    return max(8, min(MAX_CONNECTIONS, (fd_limit - RESERVED_FDS) // FDS_PER_CONNECTION))


def raise_fd_limit() -> int:
    """The soft RLIMIT_NOFILE raised to the hard one (what Go and node do at start); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return soft


class _Connection:
    __slots__ = ("activity", "sock")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.activity = Activity(time.monotonic())


class PublicListener:
    """Serves the public sockets until cancelled; every connection it holds is closed on exit."""

    def __init__(
        self,
        internal_port: int,
        vite_port: Callable[[], int | None],
        log: logging.Logger,
        cap: int,
        door: Door,
    ) -> None:
        self._internal = internal_port
        self._door = door
        self._vite_port = vite_port
        self._log = log
        self.cap = cap
        self._lock = threading.Lock()
        self._connections: dict[socket.socket, _Connection] = {}
        self._upstreams: set[socket.socket] = set()
        self._room = trio.Event()
        self._waiting = False
        self._token: trio.lowlevel.TrioToken | None = None
        self._logged: dict[str, float] = {}

    @property
    def open_connections(self) -> int:
        return len(self._connections)

    async def serve(
        self, sockets: list[socket.socket], task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        self._token = trio.lowlevel.current_trio_token()
        listeners = [trio.socket.from_stdlib_socket(sock) for sock in sockets]
        try:
            async with trio.open_nursery() as nursery:
                for listener in listeners:
                    nursery.start_soon(self._accept_loop, listener)
                task_status.started()
        finally:
            with self._lock:
                every = [*self._connections, *self._upstreams]
            for sock in every:  # wakes every worker blocked in recv
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    async def _accept_loop(self, listener: trio.socket.SocketType) -> None:
        backoff = AcceptBackoff()
        while True:
            await self._make_room()
            try:
                accepted, _address = await listener.accept()
            except OSError as exc:
                if exc.errno in (errno.ECONNABORTED, errno.EPROTO, errno.EPERM):
                    continue  # that connection is gone; the listener is fine
                if await backoff.failed(exc):
                    self._warn("accept", f"accept failed: {exc.strerror} (see `ulimit -n`); retrying until it works")
                continue
            if backoff.accepted():
                self._warn("accepted", "accepting connections again")
            sock = socket.socket(fileno=accepted.detach())
            sock.setblocking(True)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a relayed answer is never held back
            set_timeouts(sock, KEEP_ALIVE_S, KEEP_ALIVE_S)
            connection = _Connection(sock)
            with self._lock:
                self._connections[sock] = connection
            try:
                threading.Thread(target=self._run, args=(connection,), name="pix3-conn", daemon=True).start()
            except RuntimeError:  # no thread to be had (memory): this one connection is refused
                self._release(connection)
                sock.close()
                self._warn("thread", "could not start a connection thread; closed the connection")

    async def _make_room(self) -> None:
        """Return once a connection may be accepted; at the cap close the one waiting longest for a head."""
        while True:
            with self._lock:
                if len(self._connections) < self.cap:
                    return
                waiting = [c for c in self._connections.values() if c.activity.waiting_since is not None]
                victim = min(waiting, key=lambda c: c.activity.waiting_since or 0.0) if waiting else None
                if self._room.is_set():  # both accept loops (IPv4, IPv6) wait on the same event
                    self._room = trio.Event()
                self._waiting = True
            if victim is not None:
                self._warn("cap", f"connection cap ({self.cap}) reached: closing the connections idle the longest")
                with contextlib.suppress(OSError):
                    victim.sock.shutdown(socket.SHUT_RDWR)
            await self._room.wait()

    def _run(self, connection: _Connection) -> None:
        """One client connection (worker thread); a failure ends that connection only."""
        try:
            serve_connection(
                connection.sock, connection.activity, self._vite_port, self._internal, self._track, self._door
            )
        except OSError:
            pass
        except Exception:
            self._log.exception("connection failed")
        finally:
            self._release(connection)
            connection.sock.close()

    def _track(self, opened: socket.socket | None, closed: socket.socket | None) -> None:
        with self._lock:
            if opened is not None:
                self._upstreams.add(opened)
            if closed is not None:
                self._upstreams.discard(closed)

    def _release(self, connection: _Connection) -> None:
        with self._lock:
            self._connections.pop(connection.sock, None)
            wake = self._waiting
            self._waiting = False
        if wake and self._token is not None:
            with contextlib.suppress(trio.RunFinishedError):
                self._token.run_sync_soon(self._room.set)

    def _warn(self, key: str, message: str) -> None:
        now = time.monotonic()
        if now - self._logged.get(key, -LOG_EVERY_S) >= LOG_EVERY_S:
            self._logged[key] = now
            self._log.warning("%s", message)
