"""Where TypeScript comes from, and running it (spec/tools.md §1.5–§1.6).

Search order: ``PIX3_TYPESCRIPT``, the project's ``node_modules/typescript`` (walking up), then
the cache ``$PIX3_HOME/typescript/5.8.3`` — installed there with npm once unless ``--offline``.
The type-check runs our ``tsrunner.cjs`` under node: the TypeScript API gives the root files
and the pre-emit diagnostics in one pass, as ``tsc --noEmit -p`` would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

TYPESCRIPT_VERSION = "5.8.3"
_NO_INPUTS = 18003  # "No inputs were found": a project without scripts is fine
_RUNNER = Path(__file__).with_name("data") / "tsrunner.cjs"


class TypeScriptUnavailable(Exception):
    """TypeScript could not be found or installed; ``fix`` is the command to run, when known."""

    def __init__(self, message: str, fix: str | None = None) -> None:
        super().__init__(message)
        self.fix = fix


@dataclass(frozen=True)
class TypeScript:
    package_dir: Path
    version: str
    source: str  # env | project | cache | installed


@dataclass(frozen=True)
class TsDiagnostic:
    file: str
    line: int | None
    ts_code: int
    message: str


@dataclass(frozen=True)
class TsResult:
    version: str
    files: list[str]  # absolute root file paths
    diagnostics: list[TsDiagnostic]


def install_command(prefix: Path) -> str:
    return (
        f"npm install --prefix {json.dumps(str(prefix))} typescript@{TYPESCRIPT_VERSION} "
        "--no-save --no-package-lock --no-audit --no-fund --loglevel=error"
    )


def _version_of(package_dir: Path) -> str | None:
    try:
        data = json.loads((package_dir / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


def _npm_install(prefix: Path) -> str | None:
    """Run npm; None on success, else why it failed."""
    prefix.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        return "npm was not found on the PATH"
    argv = [npm, "install", "--prefix", str(prefix), f"typescript@{TYPESCRIPT_VERSION}", "--no-save",
            "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error"]  # fmt: skip
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError as error:
        return str(error)
    if done.returncode != 0:
        return done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}"
    return None


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
        version = _version_of(package_dir)
        if version is None or not (package_dir / "lib" / "typescript.js").is_file():
            raise TypeScriptUnavailable(f"PIX3_TYPESCRIPT={override} is not a typescript package folder")
        return TypeScript(package_dir, version, "env")
    for folder in (root, *root.parents):
        package_dir = folder / "node_modules" / "typescript"
        version = _version_of(package_dir)
        if version is not None:
            return TypeScript(package_dir, version, "project")
    prefix = home / "typescript" / TYPESCRIPT_VERSION
    cached = prefix / "node_modules" / "typescript"
    version = _version_of(cached)
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
    version = _version_of(cached)
    if why is None and version is None:
        why = "npm reported success but nothing was installed"
    if why is not None:
        raise TypeScriptUnavailable(f"Could not install TypeScript ({why}). Run it yourself:\n  {command}", command)
    assert version is not None
    return TypeScript(cached, version, "installed")


def start_typecheck(typescript: TypeScript, tsconfig: Path, cwd: Path) -> subprocess.Popen[bytes]:
    """Start the type-check in the background (it runs while validate reads the scenes)."""
    node = shutil.which("node")
    if node is None:
        raise TypeScriptUnavailable("node was not found on the PATH; pix3 check runs TypeScript with node")
    return subprocess.Popen(
        [node, str(_RUNNER), str(typescript.package_dir), str(tsconfig)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finish_typecheck(process: subprocess.Popen[bytes]) -> TsResult:
    out, err = process.communicate()
    try:
        data = json.loads(out)
    except ValueError as error:
        why = err.decode("utf-8", "replace").strip().splitlines()
        raise TypeScriptUnavailable(
            f"the type-check failed to run: {why[-1] if why else f'exit {process.returncode}'}"
        ) from error
    diagnostics = [
        TsDiagnostic(d.get("file", ""), d.get("line"), int(d["code"]), str(d["message"]))
        for d in data["diagnostics"]
        if int(d["code"]) != _NO_INPUTS
    ]
    return TsResult(str(data["version"]), [str(f) for f in data["files"]], diagnostics)
