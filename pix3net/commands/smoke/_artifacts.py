"""What `pix3 smoke --output <dir>` writes for a scene (docs/smoke.md, "Artifacts"): its folder
(``pix3tools.smoke.artifact_folder``) with the screenshot at its first fault, its console log and
its report. A passing scene writes nothing unless ``--output-all``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from pix3tools.smoke import (
    CONSOLE_FILE,
    REPORT_FILE,
    SCREENSHOT_FILE,
    artifact_folder,
    console_log,
    run_json,
    wants_artifacts,
)

if TYPE_CHECKING:
    from pix3net.commands.smoke._scenerun import SceneRun

__all__ = ["write_artifacts"]


def write_artifacts(base: Path, done: SceneRun, root: Path, *, every: bool = False) -> Path | None:
    """The scene's folder under ``base`` with what it kept; None when nothing is written."""
    run = done.run
    if not wants_artifacts(run, every):
        return None
    folder = base / artifact_folder(run.scene or "scene")
    folder.mkdir(parents=True, exist_ok=True)
    if done.screenshot is not None:
        (folder / SCREENSHOT_FILE).write_bytes(done.screenshot)
    (folder / CONSOLE_FILE).write_text(console_log(done.console, root), encoding="utf-8")
    report = json.dumps(run_json(run, root), indent=2, ensure_ascii=False) + "\n"
    (folder / REPORT_FILE).write_text(report, encoding="utf-8")
    return folder
