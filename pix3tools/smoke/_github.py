"""`pix3 smoke --reporter github`: GitHub Actions workflow commands that annotate the files a
failure points at (docs/smoke.md, "Reporters").

Pure. A workflow command is one line, ``::error file=<path>,line=<n>,col=<n>,title=<t>::<message>``;
GitHub reads ``%``, CR and LF escaped in the message (``%25``, ``%0D``, ``%0A``) and, in a
property's value, ``:`` and ``,`` too (``%3A``, ``%2C``), so that neither a message nor a path can
end the command early or start another. ``file`` is a path from the repository's root
(``$GITHUB_WORKSPACE``): the caller gives the project's own place in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pix3tools.smoke._project import Failure
from pix3tools.smoke._report import Run
from pix3tools.smoke._stack import first_project_location

TITLE = "pix3 smoke"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, message: str, file: str, title: str, where: tuple[int, int] | None = None) -> str:
    props = [f"file={escape_property(file)}"]
    if where is not None:
        props += [f"line={where[0]}", f"col={where[1]}"]
    props.append(f"title={escape_property(title)}")
    return f"::{level} {','.join(props)}::{escape_data(message)}"


def github_annotations(runs: Sequence[Run], root: Path, prefix: str = "") -> list[str]:
    """One ``::error`` per error and per scene that could not run, one ``::warning`` per warning.

    An error whose (mapped) stack names a project file points at that file's line; anything else
    points at the scene. ``prefix`` is the project folder's path from the repository's root
    (``""`` when the project is the repository, else ending in ``/``)."""
    lines: list[str] = []
    for run in runs:
        scene = run.scene or ""
        if isinstance(run, Failure):
            lines.append(_command("error", f"{scene}: {run.reason}", prefix + scene, f"{TITLE} {run.code}"))
            continue
        for error in run.errors:
            code, message = str(error.get("code")), f"{scene}: frame {error.get('frame')}: {error.get('message')}"
            stack = error.get("stack")
            located = first_project_location(stack, root) if isinstance(stack, str) else None
            if located is not None:
                path, line, col = located
                lines.append(_command("error", message, prefix + path, f"{TITLE} {code}", (line, col)))
            else:
                lines.append(_command("error", message, prefix + scene, f"{TITLE} {code}"))
        for warning in run.warnings:
            message = f"{scene}: frame {warning.get('frame')}: {warning.get('message')}"
            lines.append(_command("warning", message, prefix + scene, f"{TITLE} {warning.get('code')}"))
    return lines
