"""Which tsconfig a check uses (docs/check.md, "Pipeline", step 2).

A project with its own root ``tsconfig.json`` is checked with it, against its own
``node_modules``. Otherwise ``.pix3/tsconfig.check.json`` and ``.pix3/types/`` (the script types
``pix3 kit`` writes too, ``pix3tools.scripttypes``) are made current first.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from pix3tools.core.nodemodules import installed_version
from pix3tools.core.private import Refused
from pix3tools.scripttypes import CHECK_TSCONFIG_PATH, Installer, TypesUnavailable, has_own_tsconfig, prepare_types

__all__ = ["UNPUBLISHED", "Layout", "has_own_tsconfig", "prepare", "unpublished_dependencies"]

# The Pix3 2.0 packages a starter's package.json names, none of them on npm yet: `npm view <name>`
# answered E404 for each (2026-12-02), so `npm install` in such a project fails (docs/check.md,
# "Before the packages are published").
UNPUBLISHED = ("@pix3/runtime", "@pix3/cli", "@pix3/vite-plugin", "@pix3/editor-core")
_DEPENDENCY_KEYS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


class Layout(NamedTuple):
    mode: str  # "project" | "pix3-types"
    tsconfig: str  # project-relative
    skipped: str | None = None
    dependencies_missing: bool = False
    unpublished: tuple[str, ...] = ()  # with dependencies_missing: what package.json names that npm cannot install
    runtime_missing: bool = False
    note: str | None = None
    unavailable: TypesUnavailable | None = None  # three's types could not be had: no type-check


def unpublished_dependencies(root: Path) -> tuple[str, ...]:
    """The packages of :data:`UNPUBLISHED` that ``package.json`` depends on, in that order (none when
    it is missing or not a JSON object)."""
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    if not isinstance(data, dict):
        return ()
    named = {name for key in _DEPENDENCY_KEYS if isinstance(data.get(key), dict) for name in data[key]}
    return tuple(name for name in UNPUBLISHED if name in named)


def prepare(
    root: Path,
    home: Path,
    *,
    offline: bool,
    install: Installer | None = None,
    log: Callable[[str], object] = sys.stderr.write,
) -> Layout:
    if has_own_tsconfig(root):
        if not any((folder / "node_modules").is_dir() for folder in (root, *root.parents)):
            unpublished = unpublished_dependencies(root)
            skipped = (
                "dependencies not installed, and npm cannot install them yet (E_DEPENDENCIES_MISSING says what works)"
                if unpublished
                else "dependencies not installed (run npm install)"
            )
            return Layout(
                "project", "tsconfig.json", skipped=skipped, dependencies_missing=True, unpublished=unpublished
            )
        return Layout("project", "tsconfig.json", runtime_missing=installed_version(root, "@pix3/runtime") is None)
    try:
        note = prepare_types(root, home, offline=offline, install=install, log=log)
    except TypesUnavailable as error:
        return Layout("pix3-types", CHECK_TSCONFIG_PATH, unavailable=error)
    except Refused as error:  # a link at .pix3 or .pix3/types: nothing is written or read through it
        return Layout("pix3-types", CHECK_TSCONFIG_PATH, unavailable=TypesUnavailable(str(error)))
    return Layout("pix3-types", CHECK_TSCONFIG_PATH, note=note)
