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

from pix3tools.core.private import Refused
from pix3tools.scripttypes import CHECK_TSCONFIG_PATH, Installer, TypesUnavailable, has_own_tsconfig, prepare_types

__all__ = ["Layout", "has_own_tsconfig", "installed_version", "prepare"]


class Layout(NamedTuple):
    mode: str  # "project" | "pix3-types"
    tsconfig: str  # project-relative
    skipped: str | None = None
    dependencies_missing: bool = False
    runtime_missing: bool = False
    note: str | None = None
    unavailable: TypesUnavailable | None = None  # three's types could not be had: no type-check


def installed_version(root: Path, package: str) -> str | None:
    """The first ``node_modules/<package>/package.json`` walking up: its string version, else None."""
    for folder in (root, *root.parents):
        path = folder / "node_modules" / package / "package.json"
        if path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            version = data.get("version") if isinstance(data, dict) else None
            return version if isinstance(version, str) else None
    return None


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
            return Layout("project", "tsconfig.json", skipped="dependencies not installed (run npm install)",
                          dependencies_missing=True)  # fmt: skip
        return Layout("project", "tsconfig.json", runtime_missing=installed_version(root, "@pix3/runtime") is None)
    try:
        note = prepare_types(root, home, offline=offline, install=install, log=log)
    except TypesUnavailable as error:
        return Layout("pix3-types", CHECK_TSCONFIG_PATH, unavailable=error)
    except Refused as error:  # a link at .pix3 or .pix3/types: nothing is written or read through it
        return Layout("pix3-types", CHECK_TSCONFIG_PATH, unavailable=TypesUnavailable(str(error)))
    return Layout("pix3-types", CHECK_TSCONFIG_PATH, note=note)
