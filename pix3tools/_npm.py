"""Installing one pinned npm package into a cache folder of ``$PIX3_HOME`` (TypeScript, three's types).

The same command is printed before it runs and offered as the fix when it cannot: ``npm install
--prefix <folder> <package>@<version>`` without a package.json or lock file of its own, quietly.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

_FLAGS = ("--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error")


def install_command(prefix: Path, spec: str) -> str:
    """The command as a user would type it (the folder JSON-quoted)."""
    return f"npm install --prefix {json.dumps(str(prefix))} {spec} {' '.join(_FLAGS)}"


def npm_install(prefix: Path, spec: str) -> str | None:
    """Run npm; None on success, else why it failed (one line, or npm's own message)."""
    prefix.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        return "npm was not found on the PATH"
    try:
        done = subprocess.run(
            [npm, "install", "--prefix", str(prefix), spec, *_FLAGS], capture_output=True, text=True, check=False
        )
    except OSError as error:
        return str(error)
    if done.returncode != 0:
        return done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}"
    return None
