"""Where TypeScript comes from, and running it (docs/check.md, "Pipeline", steps 3–5).

Search order: ``PIX3_TYPESCRIPT``, the project's ``node_modules/typescript`` (walking up), then
the cache ``$PIX3_HOME/typescript/5.8.3`` — installed there with npm once unless ``--offline``.
The type-check is ``tsc --noEmit -p`` itself, its plain output parsed: diagnostics with file and
line, chained messages as tsc indents them, and the root files — from ``--explainFiles`` for a
project's own tsconfig, or, for ours, picked by its include patterns from ``--listFiles``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import NamedTuple

from pix3tools._npm import install_command as npm_install_command
from pix3tools._npm import npm_install
from pix3tools.core.nodemodules import package_version

TYPESCRIPT_VERSION = "5.8.3"
_NO_INPUTS = 18003  # "No inputs were found": a project without scripts is fine


class TypeScriptUnavailable(Exception):
    """TypeScript could not be found or installed; ``fix`` is the command to run, when known."""

    def __init__(self, message: str, fix: str | None = None) -> None:
        super().__init__(message)
        self.fix = fix


class TypeScript(NamedTuple):
    package_dir: Path
    version: str
    source: str  # env | project | cache | installed


class TsDiagnostic(NamedTuple):
    file: str
    line: int | None
    ts_code: int
    message: str


class TsResult(NamedTuple):
    version: str
    files: list[str]  # absolute root file paths
    diagnostics: list[TsDiagnostic]


def install_command(prefix: Path) -> str:
    return npm_install_command(prefix, f"typescript@{TYPESCRIPT_VERSION}")


def _npm_install(prefix: Path) -> str | None:
    return npm_install(prefix, f"typescript@{TYPESCRIPT_VERSION}")


Installer = Callable[[Path], "str | None"]


def resolve_typescript(
    root: Path,
    home: Path,
    *,
    offline: bool,
    env: Mapping[str, str] | None = None,
    install: Installer | None = None,
    log: Callable[[str], object] = sys.stderr.write,
) -> TypeScript:
    env = os.environ if env is None else env
    override = env.get("PIX3_TYPESCRIPT", "")
    if override:
        package_dir = Path(override)
        version = package_version(package_dir)
        if version is None or not (package_dir / "lib" / "typescript.js").is_file():
            raise TypeScriptUnavailable(f"PIX3_TYPESCRIPT={override} is not a typescript package folder")
        return TypeScript(package_dir, version, "env")
    for folder in (root, *root.parents):
        package_dir = folder / "node_modules" / "typescript"
        version = package_version(package_dir)
        if version is not None:
            return TypeScript(package_dir, version, "project")
    prefix = home / "typescript" / TYPESCRIPT_VERSION
    cached = prefix / "node_modules" / "typescript"
    version = package_version(cached)
    if version is not None:
        return TypeScript(cached, version, "cache")
    command = install_command(prefix)
    if offline:
        raise TypeScriptUnavailable(
            f"TypeScript is not installed for pix3 check, and --offline forbids installing it. Run once:\n  {command}",
            command,
        )
    log(f"pix3 check: installing TypeScript {TYPESCRIPT_VERSION} once into {prefix}\n  $ {command}\n")
    why = (install or _npm_install)(prefix)
    version = package_version(cached)
    if why is None and version is None:
        why = "npm reported success but nothing was installed"
    if why is not None:
        raise TypeScriptUnavailable(f"Could not install TypeScript ({why}). Run it yourself:\n  {command}", command)
    assert version is not None
    return TypeScript(cached, version, "installed")


RootFiles = Callable[[Path, list[str]], list[str]]
"""``(cwd, files tsc read) -> root files``: picks the root files from ``--listFiles``."""


def start_typecheck(typescript: TypeScript, tsconfig: Path, cwd: Path, roots: RootFiles | None = None) -> TypeCheckRun:
    """Start ``tsc --noEmit -p <tsconfig>`` in the background (it runs while validate reads the
    scenes). ``--explainFiles`` names the root files in the same run; the TypeScript API would give
    the same facts but loads 9 MB of JavaScript more slowly than tsc's own bundle (about 0.3 s on a
    2D starter, measured). Explaining costs tsc time in proportion to the files it read (~70 ms of
    ~1.5 s with three's 500 declaration files): when the tsconfig's include patterns are known
    (``roots``), ``--listFiles`` names every file it read at no measurable cost and ``roots`` picks."""
    node = shutil.which("node")
    if node is None:
        raise TypeScriptUnavailable("node was not found on the PATH; pix3 check runs TypeScript with node")
    tsc = typescript.package_dir / "lib" / "tsc.js"
    listing = "--explainFiles" if roots is None else "--listFiles"
    argv = [node, str(tsc), "--noEmit", "-p", str(tsconfig), "--pretty", "false", listing]
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return TypeCheckRun(process, typescript.version, cwd, roots)


class TypeCheckRun(NamedTuple):
    process: subprocess.Popen[bytes]
    version: str
    cwd: Path
    roots: RootFiles | None = None


_ROOT_REASONS = ("Matched by include pattern", "Part of 'files' list", "Root file specified for compilation")


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A located and an unlocated diagnostic line (compiled on first use: this module is imported
    before tsc starts, docs/check.md "Speed")."""
    located = r"^(?P<file>.+)\((?P<line>\d+),(?P<col>\d+)\): (?:error|warning|message|suggestion) TS(?P<code>\d+): (?P<text>.*)$"
    return re.compile(located), re.compile(r"^(?:error|warning|message|suggestion) TS(?P<code>\d+): (?P<text>.*)$")


def parse_tsc_output(text: str, cwd: Path, explained: bool = True) -> tuple[list[TsDiagnostic], list[str]]:
    """tsc's ``--pretty false --explainFiles`` output → (diagnostics, absolute root files); with
    ``explained`` false, its ``--listFiles`` output → (diagnostics, every file it read).

    Diagnostics come first, each possibly followed by indented lines (a chained message, as tsc
    prints it); then the file list: a path, then (explained) its indented reasons.
    """
    diagnostics: list[TsDiagnostic] = []
    files: list[str] = []
    located_line, unlocated_line = _patterns()
    current: dict[str, object] | None = None
    in_files = False
    file: str | None = None

    def flush() -> None:
        nonlocal current
        if current is not None:
            code = int(str(current["code"]))
            if code != _NO_INPUTS:
                line = current["line"]
                diagnostics.append(
                    TsDiagnostic(
                        str(current["file"]), line if isinstance(line, int) else None, code, str(current["text"])
                    )
                )
            current = None

    for raw in text.splitlines():
        if not raw.strip():
            continue
        indented = raw.startswith(" ")
        if not in_files:
            if indented and current is not None:
                current["text"] = f"{current['text']}\n{raw}"
                continue
            located = located_line.match(raw)
            unlocated = None if located else unlocated_line.match(raw)
            if located or unlocated:
                flush()
                if located:
                    current = {"file": str(cwd / located["file"]), "line": int(located["line"]),
                               "code": located["code"], "text": located["text"]}  # fmt: skip
                elif unlocated:
                    current = {"file": "", "line": None, "code": unlocated["code"], "text": unlocated["text"]}
                continue
            flush()
            in_files = True
        if not explained:  # absolute paths, a few hundred of them: no Path object each
            files.append(raw if os.path.isabs(raw) else str(cwd / raw))
        elif not indented:
            file = raw
        elif file is not None and raw.strip().startswith(_ROOT_REASONS):
            files.append(str(cwd / file))
            file = None
    flush()
    return diagnostics, files


def finish_typecheck(run: TypeCheckRun) -> TsResult:
    out, err = run.process.communicate()
    text = out.decode("utf-8", "replace")
    if run.process.returncode not in (0, 1, 2) or (run.process.returncode != 0 and not text.strip()):
        why = err.decode("utf-8", "replace").strip().splitlines()
        raise TypeScriptUnavailable(
            f"the type-check failed to run: {why[-1] if why else f'exit {run.process.returncode}'}"
        )
    diagnostics, files = parse_tsc_output(text, run.cwd, explained=run.roots is None)
    return TsResult(run.version, files if run.roots is None else run.roots(run.cwd, files), diagnostics)
