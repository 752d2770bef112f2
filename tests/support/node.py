"""Where the npm test clients live (puppeteer-core, playwright-core, vite, typescript, …)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pix3tools.scripttypes import THREE_TYPES_VERSION, cache_prefix
from tests.support.pix3 import REPO

NODE_DIR = REPO / "tests" / "node"


def seed_three_types(home: Path) -> Path:
    """Put the test clients' pinned ``@types/three`` (and WebXR's) into ``home``'s cache, where
    ``pix3 kit`` / ``pix3 check`` would have installed them with npm: no download in the tests."""
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


def fake_three(prefix: Path, version: str = THREE_TYPES_VERSION) -> None:
    """A stand-in ``@types/three`` (and WebXR's) installed under ``prefix``."""
    for name in ("three", "webxr"):
        package = prefix / "node_modules" / "@types" / name
        package.mkdir(parents=True)
        (package / "package.json").write_text(json.dumps({"name": f"@types/{name}", "version": version}))
        (package / "index.d.ts").write_text(f"export declare const {name}: number;\n")
