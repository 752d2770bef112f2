"""The one 2D renderer's placement (scene_renderer.test.mjs, node's own runner): the editor's scene
view and the demo game draw with it, and `pix3_scene`'s `screen` comes from it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.node

TESTS = Path(__file__).with_name("scene_renderer.test.mjs")


def test_scene_renderer_under_node_test() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: install Node.js 20 (the renderer is tested with node:test)")
    done = subprocess.run(
        [node, "--experimental-default-type=module", "--test", "--test-reporter=tap", str(TESTS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 6" in done.stdout, done.stdout[-2000:]
