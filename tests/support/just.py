"""The justfile's recipes, read without running them."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.pix3 import REPO


def just_dry_run(recipe: str) -> list[str]:
    """The commands `just <recipe>` would run, in order (setup's first when the recipe depends on it)."""
    just = shutil.which("just")
    if just is None:
        pytest.fail("`just` is missing: pip install rust-just")
    done = subprocess.run([just, "--dry-run", recipe], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    # --dry-run prints each command it would run on stderr, setup's before the recipe's own.
    return [line.strip() for line in done.stderr.splitlines() if line.strip() and not line.startswith("#")]
