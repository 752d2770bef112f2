"""Run every `tests/soak/soak_*.py` module and print its figures.

Each module exposes ``run(minutes: float) -> list[Figure]``: load for ``minutes`` plus scripted
faults, bounded in time, on 127.0.0.1 only, stopping by itself. Exit status 1 when a module failed
or a figure passed its bound (named on stderr), else 0. Not part of the test suite: the fast
version of every fault is in `tests/`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
import time
import traceback

from tests.soak import __path__ as soak_path
from tests.soak._report import Figure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="just soak")
    parser.add_argument("areas", nargs="*", help="only these modules (e.g. proxy devserver)")
    parser.add_argument("--minutes", type=float, default=1.0, help="how long each load phase runs (default 1)")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    names = sorted(m.name for m in pkgutil.iter_modules(soak_path) if m.name.startswith("soak_"))
    if options.areas:
        names = [n for n in names if n.removeprefix("soak_") in options.areas]
    figures: list[Figure] = []
    failed: list[str] = []
    for name in names:
        print(f"… {name.removeprefix('soak_')} ({options.minutes:g} min of load + faults)", file=sys.stderr, flush=True)
        start = time.monotonic()
        try:
            figures.extend(importlib.import_module(f"tests.soak.{name}").run(options.minutes))
        except Exception:
            traceback.print_exc()
            failed.append(name)
        print(f"  {name} took {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    if options.json:
        print(json.dumps([{**f.__dict__, "ok": f.ok} for f in figures], indent=2))
    else:
        print(f"{'area':<9} {'figure':<62} {'value':>12} {'bound':>10}  ok")
        for f in figures:
            bound = "" if f.bound is None else f"≤{f.bound:g}"
            print(
                f"{f.area:<9} {f.name:<62} {f.value:>10.6g}{f.unit:>2} {bound:>10}  {'yes' if f.ok else 'NO'}  {f.note}"
            )
    for f in figures:
        if not f.ok:
            print(f"soak: {f.area}: {f.name} = {f.value:g}{f.unit}, over its bound {f.bound:g}", file=sys.stderr)
    for name in failed:
        print(f"soak: {name} failed (traceback above)", file=sys.stderr)
    return 1 if failed or not all(f.ok for f in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
