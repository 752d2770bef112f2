"""`python -m tests.bench._cdp_serve`: the proxy over the in-memory fake Chrome in a process of
its own (so a bench can read its RSS). Prints the port, serves until stdin closes."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

from pix3net.owner.proxy.transport import serve_proxy
from tests.fakechrome.channel import FakeChannel
from tests.fakechrome.model import FakeChrome


async def main() -> None:
    with TemporaryDirectory() as home:
        channel = FakeChannel(FakeChrome(["about:blank"]))
        async with trio.open_nursery() as nursery:
            port = await nursery.start(
                partial(serve_proxy, channel, token="a" * 43, port=0, home=Path(home), log=lambda _: None)
            )
            print(port, flush=True)
            await trio.to_thread.run_sync(sys.stdin.read)
            nursery.cancel_scope.cancel()


if __name__ == "__main__":
    trio.run(main)
