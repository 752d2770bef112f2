"""The bench's CPU accounting (tests/bench/_cpu.py) over a fake /proc, and the cores' limit on a speed-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench._cpu import cores_limit, snapshot, speedup_target, stat_ticks


def _stat(pid: int, comm: str, ppid: int, utime: int, stime: int, cutime: int = 0, cstime: int = 0) -> str:
    # proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
    # utime stime cutime cstime priority nice num_threads itrealvalue starttime …
    return f"{pid} ({comm}) S {ppid} 1 1 0 -1 4194560 10 0 0 0 {utime} {stime} {cutime} {cstime} 20 0 4 0 99 0\n"


class FakeProc:
    def __init__(self, root: Path) -> None:
        self.root = root

    def put(self, pid: int | str, stat: str) -> None:
        (self.root / str(pid)).mkdir(exist_ok=True)
        (self.root / str(pid) / "stat").write_text(stat)

    def gone(self, pid: int) -> None:
        (self.root / str(pid) / "stat").unlink()
        (self.root / str(pid)).rmdir()


@pytest.mark.parametrize(
    ("line", "ticks"),
    [
        (_stat(7, "chromium", 1, 120, 30, 5, 2), (150, 7)),
        (_stat(8, "a) S 1 2 3 (b", 1, 10, 1), (11, 0)),  # a comm with ') ' and digits reads after the last ')'
        (_stat(9, "x y", 1, 0, 0, 400, 100), (0, 500)),
    ],
)
def test_stat_ticks_reads_own_and_reaped_children(line: str, ticks: tuple[int, int]) -> None:
    assert stat_ticks(line) == ticks


def test_a_child_that_ends_between_snapshots_is_counted_through_its_reaper(tmp_path: Path) -> None:
    proc = FakeProc(tmp_path)
    proc.put("self", _stat(1, "bench", 0, 50, 5, 1000, 0))
    proc.put(10, _stat(10, "owner", 1, 100, 0))
    proc.put(11, _stat(11, "chromium", 10, 200, 0))
    proc.put(12, _stat(12, "zygote", 11, 5, 0, 40, 0))
    proc.put(13, _stat(13, "renderer", 12, 60, 10))
    proc.put(20, _stat(20, "devserver", 1, 30, 0))
    proc.put(99, _stat(99, "stranger", 1, 9999, 0))  # outside the trees: never counted
    before = snapshot([10, 20], tmp_path)
    assert before == 100 + 200 + 45 + 70 + 30 + 1000
    # During the run: the renderer used 30 more ticks and ended (the zygote reaped it), a second
    # renderer came and went (80 ticks, reaped too), a third is alive; the browser used 25, the
    # dev server 7, the measured command 300 (this process reaped it), this process itself 5.
    proc.gone(13)
    proc.put(12, _stat(12, "zygote", 11, 5, 0, 40 + 100 + 80, 0))
    proc.put(14, _stat(14, "renderer", 12, 12, 3))
    proc.put(11, _stat(11, "chromium", 10, 225, 0))
    proc.put(20, _stat(20, "devserver", 1, 37, 0))
    proc.put("self", _stat(1, "bench", 0, 55, 5, 1300, 0))
    proc.put(99, _stat(99, "stranger", 1, 19999, 0))
    assert snapshot([10, 20], tmp_path) - before == 30 + 80 + 15 + 25 + 7 + 300


def test_a_root_that_is_not_running_counts_nothing(tmp_path: Path) -> None:
    FakeProc(tmp_path).put("self", _stat(1, "bench", 0, 1, 1, 3, 4))
    assert snapshot([4242], tmp_path) == 7


@pytest.mark.parametrize(
    ("wall_s", "cpu_s", "cores", "limit", "target"),
    [
        (13.4, 26.0, 2, 1.03, 0.876),  # one worker keeps both cores busy: 4 can hardly be faster
        (23.0, 33.0, 2, 1.39, 1.18),  # three quarters of both cores
        (42.8, 20.0, 2, 4.0, 1.8),  # mostly waiting (Chrome's own clock): the workers' count caps it
        (40.0, 40.0, 2, 2.0, 1.7),
        (10.0, 0.0, 2, 4.0, 1.8),  # nothing measured: no limit below the workers'
        (13.4, 26.0, 8, 4.0, 1.8),  # more cores than one worker keeps busy
    ],
)
def test_the_cores_limit_and_the_target_taken_from_it(
    wall_s: float, cpu_s: float, cores: int, limit: float, target: float
) -> None:
    got = cores_limit(wall_s, cpu_s, cores, workers=4)
    assert got == pytest.approx(limit, abs=0.005)
    assert speedup_target(got, wanted=1.8, share=0.85) == pytest.approx(target, abs=0.005)
