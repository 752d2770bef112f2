"""Validate in more than one process: the same report as one process, whatever the children do."""

from __future__ import annotations

import json
import os
import select
from pathlib import Path
from typing import TypeVar

import pytest

import pix3tools.validate._workers as workers
from pix3tools.validate import run_validate
from tests.support.pix3 import run_pix3
from tests.support.scene_corpus import generated_scene
from tests.support.validate import make, scene

T = TypeVar("T")

BROKEN: dict[str, str | bytes] = {
    "scenes/bad.pix3scene": "root: [\n",
    "scenes/typo.pix3scene": scene("  - id: a\n    type: Sprit2D\n    properties: { widht: 3 }\n"),
    "scenes/prefab-user.pix3scene": scene("  - id: p\n    instance: res://scenes/typo.pix3scene\n"),
    "scenes/cycle-a.pix3scene": scene("  - id: a\n    instance: res://scenes/cycle-b.pix3scene\n"),
    "scenes/cycle-b.pix3scene": scene("  - id: b\n    instance: res://scenes/cycle-a.pix3scene\n"),
    "scenes/user.pix3scene": scene("  - id: u\n    type: Node2D\n    components:\n      - type: user:Nope\n"),
    "scenes/missing.pix3scene": scene(
        "  - id: m\n    type: Sprite2D\n    properties: { texture: res://sprites/gone.png, label: '🪙' }\n"
    ),
    "sprites/unused.png": b"png",
}


def _project(tmp: Path, scenes: int) -> Path:
    files = dict(BROKEN)
    files.update({f"scenes/gen/s{i:03d}.pix3scene": generated_scene(i) for i in range(scenes)})
    files["sprites/a.png"] = b"png"
    return make(tmp, files)


def test_chunks_keep_the_order_and_even_sizes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, 30)
    targets = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.pix3scene"))
    assert workers.plan_chunks(root, targets, 2) is None  # under 1 MB: one process
    monkeypatch.setattr(workers, "MIN_PARALLEL_BYTES", 0)
    assert workers.plan_chunks(root, targets, 1) is None  # one core
    assert workers.plan_chunks(root, targets[:1], 2) is None  # one scene
    chunks = workers.plan_chunks(root, targets, 3)
    assert chunks is not None and [t for chunk in chunks for t in chunk] == targets
    assert len(chunks) == len(targets)  # fewer scenes than 3 × CHUNKS_PER_PROCESS: one each
    many = [f"s{i:04d}" for i in range(1000)]
    chunks = workers.plan_chunks(root, many, 2)
    assert chunks is not None and [t for chunk in chunks for t in chunk] == many
    assert len(chunks) == 2 * workers.CHUNKS_PER_PROCESS
    assert {len(chunk) for chunk in chunks} == {20, 21}
    assert len(workers.plan_chunks(root, many, 64) or []) == 255  # a ticket is one byte


def test_the_byte_threshold_counts_only_what_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, 3)
    targets = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.pix3scene"))
    size = sum((root / t).stat().st_size for t in targets)
    monkeypatch.setattr(workers, "MIN_PARALLEL_BYTES", size)
    assert workers.plan_chunks(root, targets, 2) is not None
    assert workers.plan_chunks(root, [*targets[1:], "scenes/gone.pix3scene"], 2) is None
    monkeypatch.setattr(workers, "MIN_PARALLEL_BYTES", size + 1)
    assert workers.plan_chunks(root, targets, 2) is None


@pytest.mark.parametrize("count", [2, 3])
def test_the_report_is_the_one_process_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    root = _project(tmp_path, 40)
    alone = run_validate(root, None, hydrate=True).json_text()
    assert '"code": "E_PREFAB_CYCLE"' in alone and '"code": "W_UNUSED_ASSET"' in alone
    monkeypatch.setattr(workers, "MIN_PARALLEL_BYTES", 0)
    assert run_validate(root, None, hydrate=True, workers=count).json_text() == alone


def _upper(chunk: list[str]) -> list[str]:
    return [name.upper() for name in chunk]


def _same(value: T) -> T:
    return value


@pytest.mark.parametrize("processes", [1, 2, 4])
def test_every_chunk_is_done_once_in_order(processes: int) -> None:
    chunks = [[f"c{i}a", f"c{i}b"] for i in range(50)]
    found = workers.in_workers(_upper, chunks, processes, _same, list)
    assert found == [_upper(chunk) for chunk in chunks]


def test_the_children_take_chunks() -> None:
    """The tickets are shared: the caller's first chunk waits until a child has taken one."""
    me = os.getpid()
    signal_read, signal_write = os.pipe()

    def work(chunk: list[str]) -> list[object]:
        if os.getpid() != me:
            os.write(signal_write, b"x")
        elif chunk == ["0"] or chunk == ["1"]:
            ready, _, _ = select.select([signal_read], [], [], 30)
            assert ready, "no child took a chunk in 30 s"
        return [*chunk, os.getpid() == me]

    chunks = [[str(i)] for i in range(20)]
    try:
        found = workers.in_workers(work, chunks, 2, _same, list)
    finally:
        os.close(signal_read)
        os.close(signal_write)
    assert [row[0] for row in found] == [str(i) for i in range(20)]
    assert not all(row[1] for row in found)


def test_a_child_that_dies_has_its_chunks_checked_here() -> None:
    me = os.getpid()

    def work(chunk: list[str]) -> list[str]:
        if os.getpid() != me:
            os._exit(3)  # a child that crashes without answering
        return _upper(chunk)

    chunks = [["a"], ["b", "c"], ["d"]]
    assert workers.in_workers(work, chunks, 3, _same, list) == [["A"], ["B", "C"], ["D"]]


def test_an_answer_that_cannot_be_sent_is_checked_here() -> None:
    me = os.getpid()

    def work(chunk: list[str]) -> object:
        return _upper(chunk) if os.getpid() == me else object()  # marshal cannot send it

    chunks = [[str(i)] for i in range(10)]
    assert workers.in_workers(work, chunks, 2, lambda found: found, list) == [_upper(c) for c in chunks]


def test_the_command_line_uses_the_cores(tmp_path: Path) -> None:
    root = _project(tmp_path, 260)  # ~1.5 MB of YAML: over the threshold
    assert sum(p.stat().st_size for p in root.rglob("*.pix3scene")) > workers.MIN_PARALLEL_BYTES
    done = run_pix3("validate", "--json", cwd=root)
    assert done.returncode == 1, done.stderr
    expected = json.loads(run_validate(root, None, hydrate=True).json_text())
    assert json.loads(done.stdout) == expected
