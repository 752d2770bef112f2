"""What `pix3 smoke --output <dir>` keeps of a scene (docs/smoke.md, "Artifacts").

Pure: where a scene's files go and what its console log says. The files themselves are written
by the run (``pix3net.commands.smoke``), which has the screenshot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from pix3tools.smoke._project import Failure
from pix3tools.smoke._report import JSON_STACK_LINES, Run, trim_stack

SCREENSHOT_FILE = "screenshot.png"
CONSOLE_FILE = "console.log"
REPORT_FILE = "report.json"
SCENE_SUFFIX = ".pix3scene"


def artifact_folder(scene: str) -> PurePosixPath:
    """``scenes/level-1.pix3scene`` → ``scenes/level-1``: the scene's folder under ``--output``.

    Scene paths come from the project's inventory (relative, no ``..``); anything else is kept
    to its plain name parts, so that the folder always stays under ``--output``."""
    name = scene[: -len(SCENE_SUFFIX)] if scene.endswith(SCENE_SUFFIX) else scene
    parts = [part for part in PurePosixPath(name).parts if part not in ("", ".", "..", "/")]
    return PurePosixPath(*parts) if parts else PurePosixPath("scene")


def wants_artifacts(run: Run, every: bool) -> bool:
    """A scene that failed or could not run keeps its files; a passing one only with ``every``."""
    return every or isinstance(run, Failure) or bool(run.errors)


def console_log(entries: Iterable[Mapping[str, Any]], root: Path) -> str:
    """The page's console and uncaught errors, one entry a line: ``[frame <n>] <level>: <text>``;
    a multi-line text keeps its lines, indented, and an error its (mapped) stack's ``at`` lines."""
    lines = []
    for entry in entries:
        text = str(entry.get("text", "")).replace("\r\n", "\n").replace("\n", "\n    ")
        lines.append(f"[frame {entry.get('frame', '?')}] {entry.get('level', 'log')}: {text}")
        stack = entry.get("stack")
        if isinstance(stack, str):
            lines += ["    " + line for line in trim_stack(stack, root, JSON_STACK_LINES)]
    return "\n".join(lines) + ("\n" if lines else "")
