"""The fixtures every test may use: a private PIX3_HOME and the real parts (Chromium, node).

Helpers that are not fixtures live in tests/support (run `pix3`, free ports, …). Tests that need Chromium or node *fail* with a clear message when the part is missing instead of
skipping: CI installs every part (.ci/run), and a skip would hide a broken feature.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.node import NODE_DIR, seed_three_types


@pytest.fixture
def pix3_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private PIX3_HOME, also set for this process (in-process code reads it too)."""
    home = tmp_path / "pix3-home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("PIX3_HOME", str(home))
    yield home


@pytest.fixture
def three_types_home(pix3_home: Path) -> Path:
    """A private PIX3_HOME whose cache already holds three's types (tests/support/node.py)."""
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
