"""A loopback TCP relay on trio: plays the SSH RemoteForward (or a squatter) in the Remote SSH tests.

``rewrite_host`` makes a smarter squatter: it rewrites the ``Host`` header of what it relays to
name the real forward's port, so the proxy proves for that port — which the client, who dialled
the squatter's port, must still reject.

It keeps a copy of every byte it passed, both ways (:attr:`Relayed.seen`): what a squatter that
waits for the token would log (docs/reliability.md, "Attacks at the edges").
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

import trio


@dataclass
class Relayed:
    port: int = 0  # where the relay listens
    seen: bytearray = field(default_factory=bytearray)  # every byte passed, both ways
    connections: int = 0

    def saw(self, text: str) -> bool:
        return text.encode() in bytes(self.seen)


async def _pump(
    src: trio.SocketStream, dst: trio.SocketStream, rewrite: tuple[bytes, bytes] | None, relayed: Relayed
) -> None:
    try:
        async for chunk in src:
            relayed.seen += chunk
            if rewrite is not None:
                chunk = re.sub(rewrite[0], rewrite[1], chunk)
            await dst.send_all(chunk)
        await dst.send_eof()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def _handle(
    target: int, rewrite: tuple[bytes, bytes] | None, relayed: Relayed, client: trio.SocketStream
) -> None:
    relayed.connections += 1
    try:
        upstream = await trio.open_tcp_stream("127.0.0.1", target)
    except OSError:
        await client.aclose()
        return
    async with client, upstream, trio.open_nursery() as nursery:
        nursery.start_soon(_pump, client, upstream, rewrite, relayed)
        nursery.start_soon(_pump, upstream, client, None, relayed)


async def _serve(
    listen: int,
    target: int,
    rewrite: tuple[bytes, bytes] | None,
    ready: threading.Event,
    box: list[trio.CancelScope],
    relayed: Relayed,
) -> None:
    with trio.CancelScope() as scope:
        box.append(scope)
        listeners = await trio.open_tcp_listeners(listen, host="127.0.0.1")
        relayed.port = listeners[0].socket.getsockname()[1]
        ready.set()
        await trio.serve_listeners(partial(_handle, target, rewrite, relayed), listeners)


@contextmanager
def tcp_relay(listen: int, target: int, *, rewrite_host: bool = False) -> Iterator[Relayed]:
    """Relay 127.0.0.1:``listen`` (0: a free port) → 127.0.0.1:``target`` while the block runs."""
    rewrite: tuple[bytes, bytes] | None = None
    if rewrite_host:
        rewrite = (rb"(?i)(\r\nhost: *127\.0\.0\.1:)" + str(listen).encode(), rb"\g<1>" + str(target).encode())
    ready = threading.Event()
    box: list[trio.CancelScope] = []
    token_box: list[trio.lowlevel.TrioToken] = []
    relayed = Relayed()

    async def main() -> None:
        token_box.append(trio.lowlevel.current_trio_token())
        await _serve(listen, target, rewrite, ready, box, relayed)

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError(f"the relay on {listen} did not start")
    try:
        yield relayed
    finally:
        trio.from_thread.run_sync(box[0].cancel, trio_token=token_box[0])
        thread.join(10)
