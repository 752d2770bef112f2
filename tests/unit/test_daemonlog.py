"""The daemons' logs (docs/reliability.md, "Logs"): repeated refusals summarised, a bound on disk,
and nothing planted in a project folder is written through."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pix3net.daemon.logfile import LogFile, Repeats, clip, open_folder, open_fresh

# (seconds, cause) in → lines out, 10 s intervals
REPEATS = [
    ((0.0, "401"), ["line 0.0 401"]),
    ((1.0, "401"), []),
    ((2.0, "403"), ["line 2.0 403"]),
    ((3.0, "401"), []),
    ((9.9, "403"), []),
    # the interval is over: its counts, then this one whole (a new interval starts)
    ((10.0, "401"), ["401: 2 more in the last 10 s", "403: 1 more in the last 10 s", "line 10.0 401"]),
    ((25.0, "403"), ["line 25.0 403"]),  # 401 had no repeat: no count line
]


def test_repeated_lines_are_counted_per_cause_and_interval() -> None:
    repeats = Repeats(10)
    for (now, cause), expected in REPEATS:
        assert repeats.note(cause, f"line {now} {cause}", now) == expected
    assert repeats.due(30) == []  # nothing repeated since 25 s
    assert repeats.note("403", "again", 26) == []
    assert repeats.due(34.9) == []
    assert repeats.due(35) == ["403: 1 more in the last 10 s"]
    assert repeats.flush(40) == []


def test_a_flood_is_two_lines_per_cause_per_interval() -> None:
    repeats = Repeats(10)
    lines = [line for n in range(100_000) for line in repeats.note("401", "refused", n / 1000)]
    lines += repeats.flush(100)
    assert len(lines) == 20  # 100 s: a whole line and a count line every 10 s
    assert sum(int(line.split()[1]) for line in lines if line.startswith("401:")) + 10 == 100_000


def test_clip() -> None:
    assert clip("abc", 5) == "abc"
    assert clip("abcdefgh", 5) == "abcd…"


def read(folder: Path) -> dict[str, bytes]:
    return {entry.name: entry.read_bytes() for entry in sorted(folder.iterdir()) if entry.is_file()}


def test_rotation_at_the_bound_keeps_one_old_file(tmp_path: Path) -> None:
    log = LogFile.in_folder(tmp_path, ".pix3", "dev.log", bound=100)
    for n in range(20):
        log.write(b"%02d-------------------\n" % n)  # 23 bytes: four fit in 100
    log.close()
    files = read(tmp_path / ".pix3")
    assert list(files) == ["dev.log", "dev.log.1"]
    assert files["dev.log.1"] == b"".join(b"%02d-------------------\n" % n for n in range(12, 16))
    assert files["dev.log"] == b"".join(b"%02d-------------------\n" % n for n in range(16, 20))
    assert log.rotations == 4


def test_stdout_and_stderr_that_write_the_log_follow_it(tmp_path: Path) -> None:
    """A descriptor on the same file (the daemon's stdout, where tracebacks go) writes to each new
    file; one on another file is left alone."""
    (tmp_path / "logs").mkdir()
    path = tmp_path / "logs" / "chrome-owner.log"
    same = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)  # as `pix3 editor` opens it for the owner
    other = os.open(tmp_path / "other", os.O_WRONLY | os.O_CREAT)
    log = LogFile.in_folder(tmp_path, "logs", "chrome-owner.log", bound=10)
    try:
        assert log.take_over([same, other]) == [same]
        log.write(b"first line\n")
        log.write(b"second line\n")  # over the bound: the first file becomes .1
        os.write(same, b"traceback\n")
    finally:
        log.close()
        os.close(same)
        os.close(other)
    assert path.read_bytes() == b"second line\ntraceback\n"
    assert (tmp_path / "logs" / "chrome-owner.log.1").read_bytes() == b"first line\n"
    assert (tmp_path / "other").read_bytes() == b""


@pytest.mark.parametrize("name", ["dev.log", "dev.log.1"])
def test_a_link_planted_in_the_folder_is_never_written_through(tmp_path: Path, name: str) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious\n")
    folder = tmp_path / "project" / ".pix3"
    folder.mkdir(parents=True)
    (folder / name).symlink_to(outside)
    log = LogFile.in_folder(tmp_path / "project", ".pix3", "dev.log", bound=20)
    for _ in range(5):
        log.write(b"0123456789\n")
    log.close()
    assert outside.read_bytes() == b"precious\n"
    assert not (folder / "dev.log").is_symlink() and not (folder / "dev.log.1").is_symlink()
    assert (folder / "dev.log").read_bytes() == b"0123456789\n"


def test_a_hard_link_or_a_fifo_is_replaced_not_written(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious\n")
    folder = tmp_path / ".pix3"
    folder.mkdir()
    os.link(outside, folder / "dev.log")
    os.mkfifo(folder / "dev.log.1")
    log = LogFile.in_folder(tmp_path, ".pix3", "dev.log")  # a FIFO nobody reads must not block either
    log.write(b"line\n")
    log.close()
    assert outside.read_bytes() == b"precious\n"
    assert (folder / "dev.log").read_bytes() == b"line\n"
    with open_fresh(tmp_path, Path(".pix3") / "dev.log.1") as fresh:  # the parent's open: the FIFO goes
        fresh.write(b"x")
    assert (folder / "dev.log.1").read_bytes() == b"x"


def test_a_linked_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / ".pix3").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError, match=r"\.pix3 is a symbolic link to .*elsewhere; pix3 never follows links"):
        open_folder(tmp_path / "project", ".pix3")
    with pytest.raises(OSError):
        open_fresh(tmp_path / "project", Path(".pix3") / "dev.log")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_childs_output_follows_the_rotation(tmp_path: Path) -> None:
    """Vite writes to a pipe the log drains, so what it writes after a rotation is in the new file
    (its own descriptor on the old file would have written to `.1`, then to a removed file)."""
    log = LogFile.in_folder(tmp_path, "logs", "dev.log", bound=30)
    out = log.child_output()
    script = "import sys, time\nfor n in range(4):\n    print(f'vite line {n}', flush=True)\n    time.sleep(0.05)\n"
    subprocess.run([sys.executable, "-c", script], stdout=out, stderr=out, check=True)
    deadline = time.monotonic() + 5
    while b"vite line 3" not in (tmp_path / "logs" / "dev.log").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.02)  # the drain thread's last write
    log.close()
    assert (tmp_path / "logs" / "dev.log.1").read_bytes() == b"vite line 0\nvite line 1\n"
    assert (tmp_path / "logs" / "dev.log").read_bytes() == b"vite line 2\nvite line 3\n"
