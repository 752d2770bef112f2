"""The one directory walk every tool uses to list a project's files (docs/project-model.md).

Each tool's reference walks the project with its own list of folders it never enters, and those
lists are facts the tools' outputs depend on, so they stay different; the walk itself is this one.
It goes through folder descriptors opened with ``O_NOFOLLOW``: a symbolic link is never entered,
not even one swapped in for a folder between the listing and the descent (the dev server serves
this walk's result over HTTP, so it must not wander outside the project).

``walk(root, rules)`` yields every entry of every folder it enters, depth first, each folder it
enters before that folder's contents. It does not yield the folders it skips (by the rules, or
because they cannot be opened). Callers pick what they list: the project inventory takes every
entry that is not a folder (``entry.is_dir()`` false, a link to a file included), the dev server's
table takes folders and regular files, ``check`` takes its ``.ts`` roots.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

__all__ = [
    "EDITOR_CHAIN",
    "FILE_TABLE",
    "INVENTORY",
    "Found",
    "WalkRules",
    "code_unit_key",
    "sort_paths",
    "walk",
    "walk_fd",
    "walk_files",
]


def code_unit_key(path: str) -> bytes:
    """JavaScript compares strings by UTF-16 code units; UTF-16-BE bytes order the same way."""
    return path.encode("utf-16-be", "surrogatepass")


def sort_paths(paths: Iterable[str]) -> list[str]:
    """What a walk lists, in code-unit order (JavaScript's default sort, the order every tool's
    output uses); plain order is the same for ASCII paths."""
    items = list(paths)
    if all(p.isascii() for p in items):
        return sorted(items)
    return sorted(items, key=code_unit_key)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class WalkRules(NamedTuple):
    """Folder names a walk never enters: ``anywhere`` at any depth, ``at_top`` only directly in the
    folder the walk starts from. A *file* with such a name is still listed."""

    anywhere: frozenset[str]
    at_top: frozenset[str] = frozenset()

    def skips(self, name: str, top: bool) -> bool:
        return name in self.anywhere or (top and name in self.at_top)

    def hides(self, path: str) -> bool:
        """Whether a walk from the root never reaches ``path`` (``a/b/c``): one of the folders on
        the way is skipped."""
        parts = path.split("/")[:-1]
        return any(self.skips(part, index == 0) for index, part in enumerate(parts))


# The project inventory of validate (its `res://` existence checks, the scenes it validates),
# smoke's scene selection, tree and the kit: the reference's validator skips these folders at any
# depth (docs/project-model.md).
INVENTORY = WalkRules(frozenset({"node_modules", ".yalc", ".git", ".pix3", "dist", ".vite", ".cache"}))

# check's editor-chain roots: the reference's lexical scan skips only these four, so a script
# under, say, `scripts/.cache/` is still a root there (docs/project-model.md).
EDITOR_CHAIN = WalkRules(frozenset({"node_modules", ".git", "dist", ".pix3"}))

# The dev server's file table: build outputs and editor folders are not project files, and only
# the root's `.pix3` is private (a `.pix3` folder deeper down is listed) (docs/project-model.md).
FILE_TABLE = WalkRules(
    frozenset({"node_modules", ".git", ".yalc", ".vscode", ".idea", "dist", "build", "out", "coverage", ".cache"}),
    at_top=frozenset({".pix3"}),
)


class Found(NamedTuple):
    """One entry: its path from the walk's root (``/``-separated), the directory entry, and the
    descriptor of the folder holding it (open only until the walk moves on)."""

    path: str
    entry: os.DirEntry[str]
    dir_fd: int


def walk(
    root: str | os.PathLike[str],
    rules: WalkRules,
    start: str = "",
    *,
    order: Callable[[str], Any] | None = None,
) -> Iterator[Found]:
    """Walk ``root`` (or its subfolder ``start``, ``a/b``) by ``rules``.

    The root and ``start`` are opened the ordinary way (a project reached through a link is still
    walked); below them no link is followed. ``start`` itself is entered whatever its name.
    ``order`` sorts each folder's entries by name (default: the order the system lists them).
    Nothing when the folder cannot be opened.
    """
    folder = os.path.join(os.fspath(root), *start.split("/")) if start else os.fspath(root)
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        yield from walk_fd(fd, start, rules, top=not start, order=order)
    finally:
        os.close(fd)


def walk_files(root: str | os.PathLike[str], rules: WalkRules, start: str = "") -> Iterator[str]:
    """The path of every entry that is not a folder nor a link to one (a link to a file, or a
    dangling one, is listed: it is read through the link)."""
    for found in walk(root, rules, start):
        try:
            if found.entry.is_dir():
                continue
        except OSError:
            pass
        yield found.path


def walk_fd(
    dir_fd: int, base: str, rules: WalkRules, *, top: bool, order: Callable[[str], Any] | None = None
) -> Iterator[Found]:
    """The walk below an open folder whose path is ``base`` (the caller keeps ``dir_fd`` open)."""
    try:
        with os.scandir(dir_fd) as listing:
            entries = list(listing)
    except OSError:
        return
    if order is not None:
        entries.sort(key=lambda e: order(e.name))
    prefix = f"{base}/" if base else ""
    for entry in entries:
        name = entry.name
        path = prefix + name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if not is_dir:
            yield Found(path, entry, dir_fd)
            continue
        if rules.skips(name, top):
            continue
        try:
            sub_fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        except OSError:
            continue  # replaced by a link, removed or unreadable since the listing
        try:
            yield Found(path, entry, dir_fd)
            yield from walk_fd(sub_fd, path, rules, top=False, order=order)
        finally:
            os.close(sub_fd)
