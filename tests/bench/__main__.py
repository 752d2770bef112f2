"""Run every `tests/bench/bench_*.py` module and print the ratios side by side.

Each module exposes ``run() -> list[Result | Absolute]``. Timings on this machine are noisy:
every row is a median, and rows that compare are measured in the same run. The exit status is 1
when a module failed or a row missed its target (the rows are named on stderr), else 0.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import TextIO

from tests.bench import __path__ as bench_path
from tests.bench._report import Absolute, Result

Row = Result | Absolute
Area = Callable[[], Sequence[Row]]


def discover() -> dict[str, Area]:
    """``bench_<area>`` module name → its ``run``, imported only when it runs."""
    names = sorted(m.name for m in pkgutil.iter_modules(bench_path) if m.name.startswith("bench_"))
    return {name: _lazy(name) for name in names}


def _lazy(name: str) -> Area:
    def run() -> Sequence[Row]:
        rows: Sequence[Row] = importlib.import_module(f"tests.bench.{name}").run()
        return rows

    return run


def table(rows: Sequence[Row]) -> str:
    lines = [f"{'area':<10} {'measurement':<58} {'ours':>10} {'limit':>10} {'ratio':>7} {'target':>7}  ok"]
    for r in rows:
        if isinstance(r, Result):
            lines.append(
                f"{r.area:<10} {r.name:<58} {r.ours:>8.2f}{r.unit:>2} {r.limit:>8.2f}{r.unit:>2}"
                f" {r.ratio:>6.2f}x {r.target:>6.2f}x  {'yes' if r.ok else 'NO'}  {r.note}"
            )
        else:
            lines.append(
                f"{r.area:<10} {r.name:<58} {r.value:>8.2f}{r.unit:>2} {'':>10} {'':>7}"
                f" ≤{r.bound:>5.0f}{r.unit:<2} {'yes' if r.ok else 'NO'}  {r.note}"
            )
    return "\n".join(lines) + "\n"


def _missed(row: Row) -> str:
    if isinstance(row, Result):
        return f"  {row.area}: {row.name} — {row.ratio:.2f}x, target {row.target:.2f}x"
    return f"  {row.area}: {row.name} — {row.value:.2f} {row.unit}, bound {row.bound:.0f} {row.unit}"


def main(argv: Sequence[str] | None = None, *, areas: dict[str, Area] | None = None, out: TextIO = sys.stdout,
         err: TextIO = sys.stderr) -> int:  # fmt: skip
    parser = argparse.ArgumentParser(prog="just bench")
    parser.add_argument("areas", nargs="*", help="only these modules (e.g. cli cdp devserver tools)")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    modules = discover() if areas is None else areas
    if options.areas:
        modules = {n: run for n, run in modules.items() if n.removeprefix("bench_") in options.areas}
    rows: list[Row] = []
    broken: list[str] = []
    for name, run in modules.items():
        print(f"… {name.removeprefix('bench_')}", file=err, flush=True)
        try:
            rows.extend(run())
        except Exception:
            traceback.print_exc(file=err)
            broken.append(name.removeprefix("bench_"))
    if options.json:
        out.write(json.dumps([{**r.__dict__, "ok": r.ok} for r in rows], indent=2) + "\n")
    else:
        out.write(table(rows))
    missed = [r for r in rows if not r.ok]
    if missed:
        err.write(f"just bench: {len(missed)} row(s) missed their target:\n")
        err.write("".join(_missed(r) + "\n" for r in missed))
    if broken:
        err.write(f"just bench: could not measure {', '.join(broken)} (the traceback is above)\n")
    return 1 if missed or broken else 0


if __name__ == "__main__":
    sys.exit(main())
