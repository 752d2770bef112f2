"""`python -m tests.support.cdp_proxy_process [--nofile N] [--head-seconds S]`: the proxy over the
in-memory fake Chrome in a process of its own (token ``"a" * 43``), for faults that touch the
whole process (its file-descriptor limit, its RSS). Prints the port, then the proxy's log lines;
serves until stdin closes."""

from __future__ import annotations

import argparse
import resource
import sys
from functools import partial
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

from pix3net.cdp._listener import Limits
from pix3net.cdp.server import serve_proxy
from tests.fakechrome.channel import FakeChannel
from tests.fakechrome.model import FakeChrome


def _log(line: str) -> None:
    print(line, flush=True)


async def main(options: argparse.Namespace) -> None:
    with TemporaryDirectory() as home:
        channel = FakeChannel(FakeChrome(["about:blank"]))
        limits = Limits(head_seconds=options.head_seconds, max_connections=options.max_connections)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(
                partial(serve_proxy, channel, token="a" * 43, port=0, home=Path(home), log=_log, limits=limits)
            )
            print(port, flush=True)
            await trio.to_thread.run_sync(sys.stdin.read)
            nursery.cancel_scope.cancel()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--nofile", type=int, default=0, help="soft RLIMIT_NOFILE")
    parser.add_argument("--head-seconds", type=float, default=10.0)
    parser.add_argument("--max-connections", type=int, default=256)
    options = parser.parse_args()
    if options.nofile:
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (options.nofile, hard))
    trio.run(main, options)
