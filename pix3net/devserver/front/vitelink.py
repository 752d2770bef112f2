"""The front door's rules for its connections to Vite, asked by the splice and the ASGI proxy
alike (docs/devserver.md, "Faults"). Pure: numbers and bytes in, a verdict out.

Vite answers from Node's HTTP server, which closes a kept-alive connection once it has been idle
for its keep-alive timeout (5 s; Vite keeps Node's default). A request written to a connection
Node is closing at that moment meets a reset or an end of stream with nothing read back: Node
never saw it, so it may be sent again on a fresh connection, but only for a method that is safe
to repeat. Two rules make that rare and harmless:

- a connection idle for `IDLE_REUSE_S` or more is closed, not reused (well under Node's timeout,
  with room for a loaded machine to delay our request by seconds);
- a request that failed on a reused connection before any byte of the answer came back is sent
  once more on a fresh connection when its method is GET or HEAD; never any other (a POST whose
  body Vite may have acted on), never after a byte was heard, never after a fresh connection
  failed (Vite itself closed it: a crash is not made worse by a second try).

A connection Vite refuses carried nothing, so any request may wait for Vite (it is restarting)
and go when it listens again, for up to `WAIT_FOR_VITE_S`.

When Vite is ready: before it listens on the address it was given, Vite checks that its port is
free by listening on it for a moment on the wildcard addresses (`0.0.0.0`, then `::`), closing
each again. A connection to 127.0.0.1 in those moments is accepted by a server that never
answers, and between them it is refused: a connect probe can call Vite ready too early, and a
request sent then meets a refusal (a 502) or hangs. Vite is ready once a listening socket is
bound to exactly its address and port (`listening`, read from the kernel's socket table), which
only its real server is.
"""

from __future__ import annotations

import socket
import sys

NODE_KEEP_ALIVE_S = 5.0  # Node's http.Server keepAliveTimeout default (5000 ms), which Vite keeps
IDLE_REUSE_S = NODE_KEEP_ALIVE_S - 3.0  # a Vite connection idle this long (2 s) is not reused
# A request arriving while Vite (re)starts waits this long for it: as long as Vite is given to
# start listening (vite.START_TIMEOUT_S), so a slow first start is not a 502.
WAIT_FOR_VITE_S = 30.0
READY_POLL_S = 0.05  # while waiting, how often Vite is asked again
RETRY_METHODS = frozenset({b"GET", b"HEAD"})  # repeated without harm (RFC 9110 §9.2.1, safe methods)
TCP_LISTEN = "0A"  # the `st` column of /proc/net/tcp for a listening socket (the kernel's TCP_LISTEN, 10)


def reusable(idle_s: float) -> bool:
    """Whether a kept-alive Vite connection idle for ``idle_s`` seconds may carry another request."""
    return idle_s < IDLE_REUSE_S


def may_retry(method: bytes, reused: bool, heard: bool) -> bool:
    """Whether a request whose Vite connection failed may be sent once more on a fresh one:
    ``reused``, the connection had carried an earlier request (Node may have closed it idle);
    ``heard``, at least one byte of Vite's answer had come back."""
    return reused and not heard and method in RETRY_METHODS


def listening(table: str, host: str, port: int) -> bool:
    """Whether the kernel's IPv4 socket table (the text of Linux's `/proc/net/tcp`) holds a socket
    listening on exactly ``host``:``port`` (a wildcard listener does not count). Addresses are
    written there as the 32-bit value in the machine's byte order, in hex, then the port in hex."""
    want = f"{int.from_bytes(socket.inet_aton(host), sys.byteorder):08X}:{port:04X}"
    for line in table.splitlines()[1:]:
        fields = line.split(None, 4)
        if len(fields) > 3 and fields[1] == want and fields[3] == TCP_LISTEN:
            return True
    return False
