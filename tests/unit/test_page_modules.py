"""The editor page's JavaScript modules, tested with node's own runner: the pure modules
(page_modules.test.mjs), the one judge of a game run, its probe and rules (game_judge.test.mjs), and
the channel to the game's frame with the Chrome owner's reports (game_channel.test.mjs)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.node

HERE = Path(__file__).parent
# Each file and how many tests it holds: a file whose tests stop running is a failure.
FILES = {"page_modules.test.mjs": 14, "game_judge.test.mjs": 12, "game_channel.test.mjs": 5}


@pytest.mark.parametrize(("name", "count"), FILES.items())
def test_page_modules_under_node_test(name: str, count: int) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: install Node.js 20 (the page's modules are tested with node:test)")
    # The page's modules are ES modules in a folder without a package.json: say so to node.
    done = subprocess.run(
        [node, "--experimental-default-type=module", "--test", "--test-reporter=tap", str(HERE / name)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and f"# pass {count}\n" in done.stdout, done.stdout[-2000:]
