"""What `pix3 check` does before tsc runs: the flush, the tsconfig layout, TypeScript, and tsc
started in the background (docs/check.md, "Pipeline" steps 1–3, and "Speed").

This module and what it imports are all that stands between the start of the process and tsc:
no dataclasses (their import pulls in ``inspect``), no validate, no scene model, no chain scanner.
:func:`pix3tools.check._run.finish_check` does the rest while tsc works, and after.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pix3tools._diagnostic import Diagnostic
from pix3tools.check._layout import Layout, prepare
from pix3tools.check._typescript import (
    TypeCheckRun,
    TypeScript,
    TypeScriptUnavailable,
    resolve_typescript,
    start_typecheck,
)
from pix3tools.core import CLI_VERSION
from pix3tools.scripttypes import USE_GENERATED_TYPES, check_root_files

# What works today when the @pix3 packages cannot be installed: the kit's tsconfig.json, which
# extends ours (the generated @pix3/runtime types and three's published ones).
KIT_TYPES_FIX = (
    f"{USE_GENERATED_TYPES} — the kit then writes a tsconfig.json that extends "
    ".pix3/tsconfig.check.json, and pix3 check type-checks the scripts against the @pix3/runtime types pix3 "
    "generates and three's published types (move yours back once the packages are on npm)"
)

SyncFn = Callable[[Path, bool], Any]
"""The flush client: ``(root, no_sync) -> outcome`` with ``status`` (``"flushed"``, ``"unsynced"``, …),
``url`` and ``message``; None when there is nothing to ask."""
Installer = Callable[[Path], "str | None"]


class CheckOptions(NamedTuple):
    hydrate: bool = True
    offline: bool = False
    no_sync: bool = False


class Begun(NamedTuple):
    """A check up to tsc running: what :func:`pix3tools.check._run.finish_check` goes on from."""

    root: Path
    options: CheckOptions
    started: float  # perf_counter at the start of the check
    flushed: Any  # the flush client's outcome
    layout: Layout
    typescript: TypeScript | None
    process: TypeCheckRun | None  # tsc, running
    unavailable: list[TypeScriptUnavailable]  # what kept the type-check from running
    own: list[Diagnostic]  # check's own diagnostics so far
    ts_elapsed: float  # seconds spent on the layout, TypeScript and starting tsc


def begin_check(
    root: Path,
    options: CheckOptions,
    *,
    home: Path,
    sync: SyncFn,
    env: Mapping[str, str] | None = None,
    install: Installer | None = None,
    install_types: Installer | None = None,
) -> Begun:
    started = time.perf_counter()
    own: list[Diagnostic] = []

    # 1. Flush the editor's unsaved scenes (a dead server is ignored).
    flushed = sync(root, options.no_sync)
    if getattr(flushed, "status", None) == "unsynced":
        own.append(Diagnostic("E_EDITOR_UNSYNCED", "pix3project.yaml", flushed.message))

    # 4 (early). The tsconfig layout and TypeScript, so tsc runs while validate reads the scenes.
    ts_started = time.perf_counter()
    layout = prepare(root, home, offline=options.offline, install=install_types)
    process = None
    typescript: TypeScript | None = None
    # Three's types and TypeScript are each said, with the command that installs it, so one run
    # names everything to install.
    unavailable: list[TypeScriptUnavailable] = []
    if layout.unavailable is not None:
        unavailable.append(TypeScriptUnavailable(str(layout.unavailable), layout.unavailable.fix))
    if layout.dependencies_missing:
        own.append(_dependencies_missing(root, layout.unpublished))
    else:
        if layout.runtime_missing:
            own.append(Diagnostic(
                "W_RUNTIME_NOT_INSTALLED", "tsconfig.json",
                "This project has its own tsconfig.json, so its scripts are type-checked against its own "
                f"node_modules — and node_modules/@pix3/runtime is missing (this CLI ships {CLI_VERSION}).",
                fix="npm install in the project, then run pix3 check again",
            ))  # fmt: skip
        try:
            typescript = resolve_typescript(root, home, offline=options.offline, env=env, install=install)
            if not unavailable:
                # Our own tsconfig's root files are known by its include patterns (no --explainFiles).
                roots = check_root_files if layout.mode == "pix3-types" else None
                process = start_typecheck(typescript, root / layout.tsconfig, root, roots)
        except TypeScriptUnavailable as error:
            unavailable.append(error)
    ts_elapsed = time.perf_counter() - ts_started
    return Begun(root, options, started, flushed, layout, typescript, process, unavailable, own, ts_elapsed)


def _dependencies_missing(root: Path, unpublished: tuple[str, ...]) -> Diagnostic:
    """``E_DEPENDENCIES_MISSING``: the reference's sentence, then — when ``package.json`` names
    packages npm does not have yet — why ``npm install`` cannot help and what does."""
    file = "package.json" if (root / "package.json").exists() else "tsconfig.json"
    message = (
        "This project has its own tsconfig.json, so its scripts are type-checked against its own node_modules — "
        "and there is no node_modules. The type-check was skipped; the scenes were still validated."
    )
    if not unpublished:
        return Diagnostic("E_DEPENDENCIES_MISSING", file, message, fix="npm install")
    names = ", ".join(unpublished)
    message += (
        f" package.json names {names}, which are not published on npm yet (npm install fails with E404): "
        "type-check against the types pix3 generates instead."
    )
    return Diagnostic("E_DEPENDENCIES_MISSING", file, message, fix=KIT_TYPES_FIX)
