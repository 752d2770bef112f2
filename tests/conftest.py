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
from hypothesis import settings

from tests.support.node import node_modules_dir, pi_modules_dir, seed_three_types
from tests.support.processes import Cleanup

# Property tests check results, never speed: no per-example deadline. The 200 ms default failed
# examples that took longer only because the machine was busy (2 cores shared by several suites),
# and Hypothesis reports that as a failure of the test ("Unreliable test timings"). A failure prints
# the @reproduce_failure blob, so a failure seen once in CI can be replayed exactly.
settings.register_profile("pix3", deadline=None, print_blob=True)
settings.load_profile("pix3")

# Fixtures that hand out the npm test clients: a test using one carries the `node` marker.
NODE_FIXTURES = frozenset({"node_modules", "pi_modules", "typescript", "three_types_home"})


def pytest_runtest_setup(item: pytest.Item) -> None:
    used = NODE_FIXTURES.intersection(getattr(item, "fixturenames", ()))
    if used and item.get_closest_marker("node") is None:
        pytest.fail(f"{item.nodeid} uses the npm test clients ({', '.join(sorted(used))}): mark it @pytest.mark.node")


@pytest.fixture
def pix3_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private PIX3_HOME, also set for this process (in-process code reads it too)."""
    home = tmp_path / "pix3-home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("PIX3_HOME", str(home))
    yield home


@pytest.fixture
def cleanup() -> Iterator[Cleanup]:
    """Processes a test started (pids, Popen objects): killed when it ends, whatever happened."""
    procs = Cleanup()
    yield procs
    procs.kill_all()


@pytest.fixture
def three_types_home(pix3_home: Path, node_modules: Path) -> Path:
    """A private PIX3_HOME whose cache already holds three's types, from the npm test clients."""
    return seed_three_types(pix3_home, node_modules)


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
    """The pinned npm test clients (puppeteer-core, playwright-core, chrome-devtools-mcp, vite,
    typescript, @types/three): tests/node/node_modules (`just setup` installs them), or the folder
    named by ``PIX3_TEST_NODE_MODULES`` (e.g. another checkout's, when this one has none yet)."""
    path = node_modules_dir()
    if not (path / "puppeteer-core").is_dir():
        pytest.fail(f"npm test clients are missing in {path}: run `just setup` (npm ci in tests/node)")
    if shutil.which("node") is None:
        pytest.fail("node is missing: install Node.js 20")
    return path


@pytest.fixture(scope="session")
def pi_modules() -> Path:
    """pi 1.6.0 and the Node 22 it needs (tests/pi/node_modules, apart from the other clients:
    its `node` package puts a `node` in .bin), or the folder named by ``PIX3_TEST_PI_MODULES``."""
    path = pi_modules_dir()
    for name in ("pi", "node"):
        if not (path / ".bin" / name).exists():
            pytest.fail(f"{path}/.bin/{name} is missing: run `just setup` (npm ci in tests/pi)")
    return path


@pytest.fixture(scope="session")
def typescript(node_modules: Path) -> Path:
    """The test clients' TypeScript package (what ``PIX3_TYPESCRIPT`` points `pix3 check` at)."""
    path = node_modules / "typescript"
    if not (path / "package.json").is_file():
        pytest.fail(f"typescript is missing in {node_modules}: run `just setup` (npm ci in tests/node)")
    return path
