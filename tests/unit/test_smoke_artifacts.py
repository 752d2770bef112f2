"""What `pix3 smoke --output` keeps of a scene, and where (pure)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from pix3tools.smoke import Failure, SmokeReport, artifact_folder, console_log, wants_artifacts

ROOT = Path("/home/u/game")


@pytest.mark.parametrize(
    ("scene", "folder"),
    [
        ("scenes/level-1.pix3scene", "scenes/level-1"),
        ("main.pix3scene", "main"),
        ("../../etc/x.pix3scene", "etc/x"),  # never outside --output
        ("/abs/x.pix3scene", "abs/x"),
        ("./a/./b.pix3scene", "a/b"),
        ("", "scene"),
    ],
)
def test_a_scenes_folder_stays_under_output(scene: str, folder: str) -> None:
    assert artifact_folder(scene) == PurePosixPath(folder)


def test_only_a_scene_that_failed_keeps_files_unless_every_one_is_asked_for() -> None:
    passed = SmokeReport("a.pix3scene", 1, 1, True, warnings=[{"code": "W", "frame": 1, "message": "m"}])
    failed = SmokeReport("b.pix3scene", 1, 1, True, errors=[{"code": "E", "message": "m", "frame": 1}])
    stuck = Failure("E_SMOKE_TIMEOUT", "slow", "c.pix3scene")
    assert [wants_artifacts(r, False) for r in (passed, failed, stuck)] == [False, True, True]
    assert [wants_artifacts(r, True) for r in (passed, failed, stuck)] == [True, True, True]


def test_the_console_log_has_one_entry_a_line_with_its_frame_and_the_mapped_stack() -> None:
    entries = [
        {"frame": 0, "level": "log", "text": "starts"},
        {"frame": 3, "level": "warn", "text": "two\nlines"},
        {
            "frame": 30,
            "level": "error",
            "text": "Error: boom",
            "stack": f"Error: boom\n    at loop ({ROOT}/games/a.js:5:27)",
        },
    ]
    assert console_log(entries, ROOT) == (
        "[frame 0] log: starts\n[frame 3] warn: two\n    lines\n[frame 30] error: Error: boom\n    at loop (games/a.js:5:27)\n"
    )
    assert console_log([], ROOT) == ""
