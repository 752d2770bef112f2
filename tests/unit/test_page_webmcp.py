"""The page's WebMCP registration (webmcp.js), tested with node's own runner (page_webmcp.test.mjs)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.node

TESTS = Path(__file__).with_name("page_webmcp.test.mjs")


def test_webmcp_registration_under_node_test() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: install Node.js 20 (the page's modules are tested with node:test)")
    done = subprocess.run(
        [node, "--experimental-default-type=module", "--test", "--test-reporter=tap", str(TESTS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 3" in done.stdout, done.stdout[-2000:]
