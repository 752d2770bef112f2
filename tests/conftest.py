"""Shared test helpers: run `pix3` as a real process, a private PIX3_HOME, the real parts.

Tests that need Chromium or node *fail* with a clear message when the part is missing instead of
skipping: CI installs every part (.ci/run), and a skip would hide a broken feature.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NODE_DIR = REPO / "tests" / "node"


def pix3_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a `pix3` child: this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    env.pop("SSH_CONNECTION", None)
    if extra:
        env.update(extra)
    return env


def pix3_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "pix3net", *args]


def run_pix3(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run `pix3 <args>` as a real process and capture its text output."""
    return subprocess.run(
        pix3_argv(*args),
        cwd=cwd,
        env=pix3_env(env),
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def pix3_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private PIX3_HOME, also set for this process (in-process code reads it too)."""
    home = tmp_path / "pix3-home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("PIX3_HOME", str(home))
    yield home


def seed_three_types(home: Path) -> Path:
    """Put the test clients' pinned ``@types/three`` (and WebXR's) into ``home``'s cache, where
    ``pix3 kit`` / ``pix3 check`` would have installed them with npm: no download in the tests."""
    from pix3tools.scripttypes import THREE_TYPES_VERSION, cache_prefix

    source = NODE_DIR / "node_modules" / "@types"
    try:
        version = json.loads((source / "three" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        pytest.fail(f"@types/three is missing in {source}: run `just setup` (npm ci in tests/node)")
    if version != THREE_TYPES_VERSION:
        pytest.fail(f"tests/node has @types/three {version}, pix3net pins {THREE_TYPES_VERSION}: run `just setup`")
    target = cache_prefix(home) / "node_modules" / "@types"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("three", "webxr"):
        if not (target / name).exists():
            (target / name).symlink_to(source / name, target_is_directory=True)
    return home


@pytest.fixture
def three_types_home(pix3_home: Path) -> Path:
    """A private PIX3_HOME whose cache already holds three's types (see ``seed_three_types``)."""
    return seed_three_types(pix3_home)


def _chromium() -> str:
    path = os.environ.get("PIX3_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail("Chromium is missing: apt-get install -y chromium (or set PIX3_CHROME)")
    return path


@pytest.fixture(scope="session")
def chromium() -> str:
    """Path to the real Chromium (Debian's `chromium`)."""
    return _chromium()


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """tests/node/node_modules with the pinned npm clients (`just setup` installs them)."""
    path = Path(os.environ.get("PIX3_TEST_NODE_MODULES", NODE_DIR / "node_modules"))
    if not (path / "puppeteer-core").is_dir():
        pytest.fail(f"npm test clients are missing in {path}: run `just setup` (npm install in tests/node)")
    if shutil.which("node") is None:
        pytest.fail("node is missing: install Node.js 20")
    return path


# Flags every test Chrome gets: the network is closed here, and Chromium otherwise keeps
# retrying connections it cannot make (DEVELOPERS.md, "This machine").
QUIET_CHROME_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
