"""`python -m tests.support.cdp_proxy_process [--nofile N] [--head-seconds S] [--max-connections N]
[--answer-seconds S]`: the proxy over the
in-memory fake Chrome in a process of its own (token ``"a" * 43``), for faults that touch the
whole process (its file-descriptor limit, its RSS). Prints the port, then the proxy's log lines;
serves until stdin closes."""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

from pix3net.owner.proxy.transport import Limits, serve_proxy
from tests.fakechrome.channel import FakeChannel
from tests.fakechrome.model import FakeChrome


@dataclass
class ProxyProcess:
    """The proxy in its own process: its port, the process, the log lines it has printed."""

    port: int
    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")


@contextmanager
def proxy_process(*args: str) -> Iterator[ProxyProcess]:
    """Run this module with ``args``; stopped (stdin closed) on the way out."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.cdp_proxy_process", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    running = ProxyProcess(int(process.stdout.readline()), process)
    reader = threading.Thread(target=lambda: running.lines.extend(process.stdout or ()), daemon=True)
    reader.start()
    try:
        yield running
    finally:
        process.stdin.close()
        process.wait(timeout=15)
        reader.join(5)
        process.stdout.close()


def _log(line: str) -> None:
    print(line, flush=True)


async def main(options: argparse.Namespace) -> None:
    with TemporaryDirectory() as home:
        channel = FakeChannel(FakeChrome(["about:blank"]))
        limits = Limits(
            head_seconds=options.head_seconds,
            max_connections=options.max_connections,
            answer_seconds=options.answer_seconds,
        )
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
    parser.add_argument("--answer-seconds", type=float, default=10.0)
    options = parser.parse_args()
    if options.nofile:
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (options.nofile, hard))
    trio.run(main, options)
