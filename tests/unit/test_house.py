"""House rules read from the source: no module of pix3net or pix3tools runs past MAX_LINES lines
unless its docstring says why it must be one file (docs/architecture.md, "Packages")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("pix3net", "pix3tools")
# Past this a module is read in parts: the newcomer's test (issue 33) found every longer module
# doing two or three jobs (a transport with its executor and handlers, a command with its scheduler).
MAX_LINES = 500
# A line of the module docstring starting with this, followed by the reason, lets a module be long.
MARKER = "One file because"
_REASON = re.compile(rf"^\s*{MARKER}\s+\S+\s+\S+")  # the marker and at least two words of reason


def too_long(sources: dict[str, str], limit: int = MAX_LINES) -> list[str]:
    """``path: N lines`` for each of ``sources`` (path → Python text) longer than ``limit`` whose
    module docstring has no line starting with :data:`MARKER` and a reason."""
    found = []
    for path, text in sorted(sources.items()):
        lines = len(text.splitlines())
        if lines <= limit:
            continue
        docstring = ast.get_docstring(ast.parse(text), clean=False) or ""
        if not any(_REASON.match(line) for line in docstring.splitlines()):
            found.append(f"{path}: {lines} lines")
    return found


def _sources() -> dict[str, str]:
    return {
        str(path.relative_to(REPO)): path.read_text(encoding="utf-8")
        for package in PACKAGES
        for path in (REPO / package).rglob("*.py")
    }


def test_no_module_is_over_the_limit_without_saying_why() -> None:
    """Split a long module by what it does (same package, a module beside it), or say in its
    docstring, on a line starting "One file because", why it must stay one."""
    sources = _sources()
    assert len(sources) > 100 and too_long(sources) == []


def test_the_line_rule_can_fail() -> None:
    body = "x = 1\n" * MAX_LINES
    made_up = {
        "short.py": '"""Short."""\n' + "x = 1\n" * (MAX_LINES - 1),
        "long.py": '"""Long, and no reason given."""\n' + body,
        "reasoned.py": '"""A table.\n\nOne file because it is one table, read top to bottom.\n"""\n' + body,
        "bare_marker.py": '"""A table.\n\nOne file because\n"""\n' + body,
        "in_a_comment.py": '"""A table."""\n# One file because it is one table, read top to bottom.\n' + body,
    }
    assert too_long(made_up) == [
        f"bare_marker.py: {MAX_LINES + 4} lines",
        f"in_a_comment.py: {MAX_LINES + 2} lines",
        f"long.py: {MAX_LINES + 1} lines",
    ]
