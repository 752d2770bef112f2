"""JavaScript stacks from the game page, rewritten to name the project's files (docs/smoke.md, "Stacks").

Pure. A V8 stack line is ``at fn (URL:line:col)`` or ``at URL:line:col``; the URL is one the dev
server served. :func:`rewrite_stack` asks a ``locate`` function for each location (the caller
has the source maps) and drops the lines of smoke's own page script.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from pix3tools.smoke._sourcemap import SourceMap

_FRAME = re.compile(
    r"^(?P<indent>\s*at )(?:(?P<fn>.*?) \()?(?P<url>[^()\s]+?):(?P<line>\d+):(?P<col>\d+)(?P<close>\)?)\s*$"
)
# Vite serves files outside its root (a linked package) under /@fs/<absolute path>.
_VITE_FS = "/@fs/"

# (url, 1-based line, 1-based column) → the location to print instead, or None to keep it.
Locate = Callable[[str, int, int], tuple[str, int, int] | None]


def stack_urls(stack: str) -> list[str]:
    """The distinct script URLs a stack names, in order."""
    seen: list[str] = []
    for line in stack.split("\n"):
        match = _FRAME.match(line)
        if match and match.group("url") not in seen:
            seen.append(match.group("url"))
    return seen


def first_project_location(stack: str, root: Path) -> tuple[str, int, int] | None:
    """The first frame of a (rewritten) stack that names a project file: ``(path, line, column)``.

    A rewritten frame names a project path (``games/throws.js:5:11``); a frame still naming a URL
    or a file outside the project is skipped, and so is one in an installed package
    (``node_modules/``): the annotation belongs on the game's own line that called it."""
    prefixes = (root.as_uri() + "/", str(root) + "/")
    for line in stack.split("\n"):
        match = _FRAME.match(line)
        if match is None:
            continue
        place = match.group("url")
        for prefix in prefixes:
            if place.startswith(prefix):
                place = place[len(prefix) :]
        parts = place.split("/")
        if not place or ":" in place or place.startswith("/") or ".." in parts or "node_modules" in parts:
            continue
        return place, int(match.group("line")), int(match.group("col"))
    return None


def project_path_of_url(url: str, origin: str, root: Path | None) -> str | None:
    """``res``-style project path of a URL the dev server at ``origin`` served (query dropped),
    or of a ``file:`` URL / absolute path inside the root; None for anything else (and for a
    file path when the root is not known: the Chrome owner serves every project)."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        return _inside(Path(unquote(parts.path)), root)
    if parts.scheme in ("http", "https"):
        if f"{parts.scheme}://{parts.netloc}" != origin:
            return None
        path = unquote(parts.path)
        if path.startswith(_VITE_FS):
            return _inside(Path("/" + path[len(_VITE_FS) :].lstrip("/")), root)
        return path.lstrip("/") or None
    if url.startswith("/"):
        return _inside(Path(url), root)
    return None


def _inside(path: Path, root: Path | None) -> str | None:
    if root is None:
        return None
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


def map_location(
    source_map: SourceMap | None, map_url: str, url: str, line: int, column: int, origin: str, root: Path | None
) -> tuple[str, int, int] | None:
    """Where ``url:line:column`` (1-based) comes from: through the map when there is one, and
    named as a project path. None when the location is neither mapped nor in the project."""
    if source_map is not None:
        position = source_map.lookup(line - 1, column - 1)
        if position is not None:
            source = position.source
            # A source is an absolute file path (some bundlers) or a URL relative to the map.
            path = _inside(Path(source), root) if source.startswith("/") else None
            if path is None:
                path = project_path_of_url(urljoin(map_url, source), origin, root)
            if path is not None:
                return path, position.line + 1, position.column + 1
    path = project_path_of_url(url, origin, root)
    return (path, line, column) if path is not None else None


def rewrite_stack(stack: str, locate: Locate, hidden: Callable[[str], bool]) -> str:
    """The stack with each located frame renamed; frames whose URL is ``hidden`` are dropped."""
    out: list[str] = []
    for line in stack.split("\n"):
        match = _FRAME.match(line)
        if match is None:
            out.append(line)
            continue
        url = match.group("url")
        if hidden(url):
            continue
        located = locate(url, int(match.group("line")), int(match.group("col")))
        if located is None:
            out.append(line)
            continue
        path, row, col = located
        where = f"{path}:{row}:{col}"
        fn = match.group("fn")
        out.append(f"{match.group('indent')}{fn} ({where})" if fn is not None else f"{match.group('indent')}{where}")
    return "\n".join(out)
