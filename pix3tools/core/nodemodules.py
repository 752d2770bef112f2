"""What a project has installed, found as Node finds it: ``node_modules/<name>`` in the project's
folder or the nearest ancestor that has it. Standard library only.

One home for the lookups `pix3 check` (the runtime's version), the dev server (the versions in
``hello``, Vite, the editor's stylesheet), `pix3 editor` (the reference plugin) and `pix3 smoke`
(Vite) each wrote for themselves.
"""

from __future__ import annotations

import json
from pathlib import Path

VITE_BIN = "vite/bin/vite.js"  # what `npx vite` runs (the reference's findViteBin)


def find_installed(root: Path, relative: str) -> Path | None:
    """The file ``node_modules/<relative>`` in ``root`` or the nearest ancestor that has it."""
    for folder in (root, *root.parents):
        candidate = folder / "node_modules" / relative
        if candidate.is_file():
            return candidate
    return None


def package_version(package_dir: Path) -> str | None:
    """The string ``version`` of ``<package_dir>/package.json``, else None."""
    try:
        data = json.loads((package_dir / "package.json").read_bytes())
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


def installed_version(root: Path, package: str) -> str | None:
    """The version of the first ``node_modules/<package>`` walking up (a package.json that is not
    valid JSON, or has no string version, ends the walk: None)."""
    manifest = find_installed(root, f"{package}/package.json")
    return None if manifest is None else package_version(manifest.parent)


def find_vite(root: Path) -> Path | None:
    """Vite's entry script, when the project (or a folder above it) installs Vite."""
    return find_installed(root, VITE_BIN)
