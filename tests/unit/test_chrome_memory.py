"""Chrome's resident memory from a /proc tree (docs/editor.md, "Status"): a fake /proc with
a browser, two children, a grandchild, a stranger and a comm with spaces and parentheses."""

from __future__ import annotations

import os
from pathlib import Path

from pix3net.daemon.memory import chrome_memory, process_tree, resident_bytes


def fake_proc(root: Path, processes: dict[int, tuple[int, str, int | None]]) -> Path:
    for pid, (parent, comm, rss_kib) in processes.items():
        folder = root / str(pid)
        folder.mkdir(parents=True)
        (folder / "stat").write_text(f"{pid} ({comm}) S {parent} 1 1 0 -1\n")
        status = "Name:\tx\n" + (f"VmRSS:\t{rss_kib} kB\n" if rss_kib is not None else "")
        (folder / "status").write_text(status)
    (root / "self").mkdir()
    return root


def test_the_tree_below_chrome_and_its_memory(tmp_path: Path) -> None:
    proc = fake_proc(
        tmp_path,
        {
            1: (0, "init", 100),
            10: (1, "chromium", 1000),
            11: (10, "chromium (renderer) x) y", 200),
            12: (10, "chromium", 300),
            13: (12, "chromium", None),  # a kernel-thread-like entry without VmRSS
            20: (1, "other", 5000),
        },
    )
    assert process_tree(10, proc) == [10, 11, 12, 13]
    assert resident_bytes([10, 11, 12, 13, 99], proc) == 1500 * 1024
    assert chrome_memory(10, proc) == (1500 * 1024, 4)
    assert chrome_memory(99, proc) is None


def test_this_process_on_the_real_proc() -> None:
    found = chrome_memory(os.getpid())
    assert found is not None and found[0] > 1024 * 1024 and found[1] >= 1
