"""Run every `tests/bench/bench_*.py` module and print the ratios side by side.

Each module exposes ``run() -> list[Result | Absolute]``. Timings on this machine are noisy:
every row is a median, and rows that compare are measured in the same run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
import traceback

from tests.bench import __path__ as bench_path
from tests.bench._report import Absolute, Result


def main() -> int:
    parser = argparse.ArgumentParser(prog="just bench")
    parser.add_argument("areas", nargs="*", help="only these modules (e.g. cli cdp devserver tools)")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    names = sorted(m.name for m in pkgutil.iter_modules(bench_path) if m.name.startswith("bench_"))
    if options.areas:
        names = [n for n in names if n.removeprefix("bench_") in options.areas]
    rows: list[Result | Absolute] = []
    failed = False
    for name in names:
        print(f"… {name.removeprefix('bench_')}", file=sys.stderr, flush=True)
        try:
            rows.extend(importlib.import_module(f"tests.bench.{name}").run())
        except Exception:
            traceback.print_exc()
            failed = True
    if options.json:
        print(json.dumps([{**r.__dict__, "ok": r.ok} for r in rows], indent=2))
    else:
        print(f"{'area':<10} {'measurement':<58} {'ours':>10} {'limit':>10} {'ratio':>7} {'target':>7}  ok")
        for r in rows:
            if isinstance(r, Result):
                print(
                    f"{r.area:<10} {r.name:<58} {r.ours:>8.2f}{r.unit:>2} {r.limit:>8.2f}{r.unit:>2}"
                    f" {r.ratio:>6.2f}x {r.target:>6.2f}x  {'yes' if r.ok else 'NO'}  {r.note}"
                )
            else:
                print(
                    f"{r.area:<10} {r.name:<58} {r.value:>8.2f}{r.unit:>2} {'':>10} {'':>7}"
                    f" ≤{r.bound:>5.0f}{r.unit:<2} {'yes' if r.ok else 'NO'}  {r.note}"
                )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
