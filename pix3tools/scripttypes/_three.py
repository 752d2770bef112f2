"""three.js's published declarations (``@types/three``), pinned, in a ``$PIX3_HOME`` cache.

Installed once with npm the way ``pix3 check`` installs TypeScript: the command is printed on
stderr before it runs, and ``offline`` never installs (the command is then the fix to run).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from pix3tools._npm import install_command, npm_install
from pix3tools.core.nodemodules import package_version

# The starter pins three ~0.183.2 and @types/three ^0.183.1: the three the runtime is built on.
THREE_TYPES_VERSION = "0.183.1"
THREE_TYPES_SPEC = f"@types/three@{THREE_TYPES_VERSION}"
# What a project copy takes from the cache: three's own declarations, and WebXR's, which three's
# renderer declarations name (`/// <reference types="webxr" />`).
COPIED = ("@types/three", "@types/webxr")

Installer = Callable[[Path], "str | None"]


class TypesUnavailable(Exception):
    """three's declarations could not be found or installed; ``fix`` is the command to run, ``why``
    the reason in a few words (the message says both)."""

    def __init__(self, message: str, fix: str | None = None, why: str = "") -> None:
        super().__init__(message)
        self.fix = fix
        self.why = why or message


class ThreeTypes(NamedTuple):
    node_modules: Path  # the cache's node_modules (``@types/three`` and what it needs)
    version: str
    source: str  # cache | installed


def cache_prefix(home: Path) -> Path:
    return home / "three-types" / THREE_TYPES_VERSION


def three_install_command(home: Path) -> str:
    return install_command(cache_prefix(home), THREE_TYPES_SPEC)


def _default_install(prefix: Path) -> str | None:
    return npm_install(prefix, THREE_TYPES_SPEC)


def resolve_three_types(
    home: Path,
    *,
    offline: bool,
    who: str = "pix3 check",
    install: Installer | None = None,
    log: Callable[[str], object] = sys.stderr.write,
) -> ThreeTypes:
    prefix = cache_prefix(home)
    node_modules = prefix / "node_modules"
    version = package_version(node_modules / "@types" / "three")
    if version is not None:
        return ThreeTypes(node_modules, version, "cache")
    command = install_command(prefix, THREE_TYPES_SPEC)
    if offline:
        raise TypesUnavailable(
            f"three's types (@types/three {THREE_TYPES_VERSION}) are not installed for pix3 check, and --offline "
            f"forbids installing them. Run once:\n  {command}",
            command,
            "they are not installed, and --offline forbids installing them",
        )
    log(f"{who}: installing @types/three {THREE_TYPES_VERSION} once into {prefix}\n  $ {command}\n")
    why = (install or _default_install)(prefix)
    version = package_version(node_modules / "@types" / "three")
    if why is None and version is None:
        why = "npm reported success but nothing was installed"
    if why is not None:
        raise TypesUnavailable(
            f"Could not install @types/three ({why}). Run it yourself:\n  {command}",
            command,
            f"could not install them ({why})",
        )
    assert version is not None
    return ThreeTypes(node_modules, version, "installed")
