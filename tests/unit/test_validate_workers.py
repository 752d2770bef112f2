"""Validate in more than one process: the same report as one process, whatever the children do."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import pix3tools.validate._workers as workers
from pix3tools.validate import run_validate
from tests.support.pix3 import run_pix3
from tests.support.scene_corpus import generated_scene
from tests.support.validate import make, scene

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


def test_split_keeps_order_and_shares_the_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, 30)
    targets = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.pix3scene"))
    assert workers.split_by_size(root, targets, 2) == [targets]  # under 1 MB: one process
    monkeypatch.setattr(workers, "MIN_PARALLEL_BYTES", 0)
    runs = workers.split_by_size(root, targets, 3)
    assert len(runs) == 3 and [t for run in runs for t in run] == targets
    sizes = [sum((root / t).stat().st_size for t in run) for run in runs]
    assert max(sizes) < 2 * min(sizes)
    assert workers.split_by_size(root, targets[:1], 2) == [targets[:1]]


@pytest.mark.parametrize("count", [2, 3])
def test_the_report_is_the_one_process_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    root = _project(tmp_path, 40)
    alone = run_validate(root, None, hydrate=True).json_text()
    assert '"code": "E_PREFAB_CYCLE"' in alone and '"code": "W_UNUSED_ASSET"' in alone
    monkeypatch.setattr(workers, "MIN_PARALLEL_BYTES", 0)
    assert run_validate(root, None, hydrate=True, workers=count).json_text() == alone


def test_a_child_that_dies_has_its_run_checked_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    me = os.getpid()

    def work(run: list[str]) -> list[str]:
        if os.getpid() != me:
            os._exit(3)  # a child that crashes without answering
        return [name.upper() for name in run]

    assert workers.in_workers(work, [["a"], ["b", "c"], ["d"]]) == [["A"], ["B", "C"], ["D"]]


def test_the_command_line_uses_the_cores(tmp_path: Path) -> None:
    root = _project(tmp_path, 260)  # ~1.5 MB of YAML: over the threshold
    assert sum(p.stat().st_size for p in root.rglob("*.pix3scene")) > workers.MIN_PARALLEL_BYTES
    done = run_pix3("validate", "--json", cwd=root)
    assert done.returncode == 1, done.stderr
    expected = json.loads(run_validate(root, None, hydrate=True).json_text())
    assert json.loads(done.stdout) == expected
