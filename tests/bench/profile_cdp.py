"""`python3 -m tests.bench.profile_cdp [cpu|strace|callgrind] [N]`: what the Chrome owner spends on
one CDP round trip, for the whole process (not only the routing).

One owner (``start_owner`` over the real Chromium, as in ``bench_cdp``), one client on one page,
N sequential ``Runtime.evaluate("1")`` round trips after a warm-up. Modes:

- ``cpu`` (default): the owner's CPU time (user and system) and context switches per round trip,
  from ``/proc/<pid>/task/*/stat|status`` around the N round trips (every thread counted).
- ``strace``: the owner's system calls per round trip (``strace -c -f -p``; needs strace).
- ``callgrind``: the owner's instructions per round trip. The owner is started under
  ``valgrind --tool=callgrind`` (on the interpreter itself, not a pyenv shim), its counters are
  zeroed after the warm-up and dumped after the N round trips (``callgrind_control``). This is the
  stable number on a shared machine: CPU times and wall clocks move with the load, instruction
  counts do not.

Not a `just bench` row (it measures, it has no target); see docs/cdp-proxy.md, "Measuring the hop".
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import statistics
import sys
import tempfile
from pathlib import Path

import trio

from tests.bench import bench_cdp

WARM_UP = 300
CALLGRIND_WARM_UP = 50


class OwnerCounters:
    """CPU seconds (user, system) and context switches (voluntary, involuntary) of all threads."""

    def __init__(self, pid: int) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        self.user = self.system = 0.0
        self.voluntary = self.involuntary = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            fields = Path(f"/proc/{pid}/task/{task}/stat").read_text().rsplit(")", 1)[1].split()
            self.user += int(fields[11]) / tick
            self.system += int(fields[12]) / tick
            for line in Path(f"/proc/{pid}/task/{task}/status").read_text().splitlines():
                name, _, value = line.partition(":")
                if name == "voluntary_ctxt_switches":
                    self.voluntary += int(value)
                elif name == "nonvoluntary_ctxt_switches":
                    self.involuntary += int(value)


def _callgrind_python(folder: Path) -> str:
    """An executable that starts Python under callgrind (the owner is spawned with it)."""
    wrapper = folder / "python-callgrind"
    out = folder / "callgrind.out.%p"
    wrapper.write_text(f'#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file={out} {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def _instructions(folder: Path) -> int:
    """Instructions (Ir) of the owner's dump taken after the N round trips."""
    dumps = sorted(folder.glob("callgrind.out.*.1"))
    if not dumps:
        raise RuntimeError(f"no callgrind dump in {folder}")
    found = re.search(r"^summary: (\d+)$", dumps[-1].read_text(errors="replace"), re.M)
    if found is None:
        raise RuntimeError(f"no summary line in {dumps[-1]}")
    return int(found.group(1))


async def _measure(mode: str, count: int, url: str, headers: list[tuple[bytes, bytes]], pid: int, folder: Path) -> str:
    async with bench_cdp.connect(url, headers) as client:
        await client.open_page()
        for _ in range(CALLGRIND_WARM_UP if mode == "callgrind" else WARM_UP):
            await client.round_trip()
        tracer: trio.Process | None = None
        trace = folder / "strace.txt"
        if mode == "strace":
            tracer = await trio.lowlevel.open_process(["strace", "-c", "-f", "-p", str(pid), "-o", str(trace)])
            await trio.sleep(1.0)  # attached before the first measured round trip
        if mode == "callgrind":
            await trio.run_process(["callgrind_control", "-z", str(pid)], capture_stdout=True, capture_stderr=True)
        before = OwnerCounters(pid)
        times = [await client.round_trip() for _ in range(count)]
        after = OwnerCounters(pid)
        lines = [
            f"{count} round trips: median {statistics.median(times) * 1e6:.0f} µs;"
            f" owner CPU per round trip {(after.user - before.user) / count * 1e6:.0f} µs user"
            f" + {(after.system - before.system) / count * 1e6:.0f} µs system;"
            f" context switches per round trip {(after.voluntary - before.voluntary) / count:.2f} voluntary"
            f" + {(after.involuntary - before.involuntary) / count:.2f} involuntary"
        ]
        if tracer is not None:
            tracer.send_signal(signal.SIGINT)
            await tracer.wait()
            lines.append(trace.read_text())
        if mode == "callgrind":
            await trio.run_process(["callgrind_control", "-d", str(pid)], capture_stdout=True, capture_stderr=True)
            lines.append(f"owner instructions per round trip: {_instructions(folder) / count:,.0f}")
        return "\n".join(lines)


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else "cpu"
    count = int(argv[1]) if len(argv) > 1 else (2000 if mode == "callgrind" else 3000)
    if mode not in ("cpu", "strace", "callgrind"):
        print("usage: python3 -m tests.bench.profile_cdp [cpu|strace|callgrind] [N]", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="pix3-profile-cdp-"))
    real_python = sys.executable
    try:
        if mode == "callgrind":
            sys.executable = _callgrind_python(folder)  # start_owner spawns sys.executable
        with bench_cdp._owned_chrome(folder) as (url, headers, pid):
            sys.executable = real_python
            print(trio.run(_measure, mode, count, url, headers, pid, folder))
    finally:
        sys.executable = real_python
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
