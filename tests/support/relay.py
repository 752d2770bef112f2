"""A loopback TCP relay on trio: plays the SSH RemoteForward (or a squatter) in the Remote SSH tests.

``rewrite_host`` makes a smarter squatter: it rewrites the ``Host`` header of what it relays to
name the real forward's port, so the proxy proves for that port — which the client, who dialled
the squatter's port, must still reject.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

import trio


async def _pump(src: trio.SocketStream, dst: trio.SocketStream, rewrite: tuple[bytes, bytes] | None) -> None:
    try:
        async for chunk in src:
            if rewrite is not None:
                chunk = re.sub(rewrite[0], rewrite[1], chunk)
            await dst.send_all(chunk)
        await dst.send_eof()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def _handle(target: int, rewrite: tuple[bytes, bytes] | None, client: trio.SocketStream) -> None:
    try:
        upstream = await trio.open_tcp_stream("127.0.0.1", target)
    except OSError:
        await client.aclose()
        return
    async with client, upstream, trio.open_nursery() as nursery:
        nursery.start_soon(_pump, client, upstream, rewrite)
        nursery.start_soon(_pump, upstream, client, None)


async def _serve(
    listen: int, target: int, rewrite: tuple[bytes, bytes] | None, ready: threading.Event, box: list[trio.CancelScope]
) -> None:
    with trio.CancelScope() as scope:
        box.append(scope)
        listeners = await trio.open_tcp_listeners(listen, host="127.0.0.1")
        ready.set()
        await trio.serve_listeners(partial(_handle, target, rewrite), listeners)


@contextmanager
def tcp_relay(listen: int, target: int, *, rewrite_host: bool = False) -> Iterator[None]:
    """Relay 127.0.0.1:``listen`` → 127.0.0.1:``target`` while the block runs."""
    rewrite: tuple[bytes, bytes] | None = None
    if rewrite_host:
        rewrite = (rb"(?i)(\r\nhost: *127\.0\.0\.1:)" + str(listen).encode(), rb"\g<1>" + str(target).encode())
    ready = threading.Event()
    box: list[trio.CancelScope] = []
    token_box: list[trio.lowlevel.TrioToken] = []

    async def main() -> None:
        token_box.append(trio.lowlevel.current_trio_token())
        await _serve(listen, target, rewrite, ready, box)

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError(f"the relay on {listen} did not start")
    try:
        yield
    finally:
        trio.from_thread.run_sync(box[0].cancel, trio_token=token_box[0])
        thread.join(10)
