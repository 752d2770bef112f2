"""`just bench` says which rows missed their target and exits 1 then (a green exit means every row held)."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence

from tests.bench.__main__ import Area, Row, main
from tests.bench._report import Absolute, Result

FAST = Result("tools", "fast thing vs floor", 105.0, 100.0, 1.2)
SLOW = Result("tools", "slow thing vs floor", 150.0, 100.0, 1.2)
LATE = Absolute("devserver", "flush round trip", 31.0, 20.0)


def _area(*rows: Row) -> Area:
    def run() -> Sequence[Row]:
        return rows

    return run


def _broken() -> Sequence[Row]:
    raise RuntimeError("no chromium")


def bench(argv: list[str], areas: dict[str, Area]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, areas=areas, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_every_row_within_target_exits_0() -> None:
    code, out, err = bench([], {"bench_tools": _area(FAST)})
    assert code == 0
    assert "fast thing vs floor" in out and "yes" in out
    assert "missed" not in err


def test_a_missed_row_exits_1_and_is_named() -> None:
    code, out, err = bench([], {"bench_tools": _area(FAST, SLOW), "bench_devserver": _area(LATE)})
    assert code == 1
    assert "just bench: 2 row(s) missed their target:\n" in err
    assert "  tools: slow thing vs floor — 1.50x, target 1.20x\n" in err
    assert "  devserver: flush round trip — 31.00 ms, bound 20 ms\n" in err
    assert "fast thing" not in err
    assert out.count(" NO ") == 2


def test_json_still_fails_on_a_miss_and_a_module_that_throws_fails_too() -> None:
    code, out, err = bench(["--json"], {"bench_tools": _area(SLOW)})
    assert code == 1 and [row["ok"] for row in json.loads(out)] == [False]
    code, _, err = bench([], {"bench_tools": _area(FAST), "bench_cdp": _broken})
    assert code == 1 and "could not measure cdp" in err and "RuntimeError: no chromium" in err


def test_only_the_named_areas_run() -> None:
    code, out, _ = bench(["tools"], {"bench_tools": _area(FAST), "bench_devserver": _area(LATE)})
    assert code == 0 and "flush round trip" not in out
