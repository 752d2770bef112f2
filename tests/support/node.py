"""Where the npm test clients live (puppeteer-core, playwright-core, vite, typescript, …).

``PIX3_TEST_NODE_MODULES`` names another node_modules folder to use instead of
tests/node/node_modules. Tests get the folder through the ``node_modules`` fixture
(tests/conftest.py), which fails clearly when it is missing and wants the ``node`` marker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pix3tools.scripttypes import THREE_TYPES_VERSION, cache_prefix
from tests.support.pix3 import REPO

NODE_DIR = REPO / "tests" / "node"
PI_DIR = REPO / "tests" / "pi"


def node_modules_dir() -> Path:
    """The npm test clients: ``PIX3_TEST_NODE_MODULES`` when set, else tests/node/node_modules."""
    return Path(os.environ.get("PIX3_TEST_NODE_MODULES") or NODE_DIR / "node_modules")


def pi_modules_dir() -> Path:
    """pi and its Node 22: ``PIX3_TEST_PI_MODULES`` when set, else tests/pi/node_modules."""
    return Path(os.environ.get("PIX3_TEST_PI_MODULES") or PI_DIR / "node_modules")


def seed_three_types(home: Path, node_modules: Path | None = None) -> Path:
    """Put the test clients' pinned ``@types/three`` (and WebXR's) into ``home``'s cache, where
    ``pix3 kit`` / ``pix3 check`` would have installed them with npm: no download in the tests."""
    source = (node_modules or node_modules_dir()) / "@types"
    try:
        version = json.loads((source / "three" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        pytest.fail(f"@types/three is missing in {source}: run `just setup` (npm ci in tests/node)")
    if version != THREE_TYPES_VERSION:
        pytest.fail(f"{source} has @types/three {version}, pix3net pins {THREE_TYPES_VERSION}: run `just setup`")
    target = cache_prefix(home) / "node_modules" / "@types"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("three", "webxr"):
        if not (target / name).exists():
            (target / name).symlink_to(source / name, target_is_directory=True)
    return home


def fake_three(prefix: Path, version: str = THREE_TYPES_VERSION) -> None:
    """A stand-in ``@types/three`` (and WebXR's) installed under ``prefix``."""
    for name in ("three", "webxr"):
        package = prefix / "node_modules" / "@types" / name
        package.mkdir(parents=True)
        (package / "package.json").write_text(json.dumps({"name": f"@types/{name}", "version": version}))
        (package / "index.d.ts").write_text(f"export declare const {name}: number;\n")


def run_node_tests(path: Path, passes: int) -> None:
    """Runs a ``*.test.mjs`` file of the editor page's modules under node's own runner and wants
    exactly ``passes`` tests passed, none failed (a test that silently vanished fails too)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: install Node.js 20 (the page's modules are tested with node:test)")
    # The page's modules are ES modules in a folder without a package.json: say so to node.
    done = subprocess.run(
        [node, "--experimental-default-type=module", "--test", "--test-reporter=tap", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and f"# pass {passes}\n" in done.stdout, done.stdout[-2000:]
