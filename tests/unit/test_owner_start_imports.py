"""The owner launches Chrome before it loads trio and the proxy (docs/chrome-owner.md, "The owner
process", step 1): everything ``pix3 __chrome-owner`` needs up to the spawn is standard library."""

from __future__ import annotations

import subprocess
import sys

from tests.support.pix3 import pix3_env


def test_the_owner_spawns_chrome_without_trio() -> None:
    code = (
        "import sys\n"
        "import pix3net.owner.command, pix3net.owner.start, pix3net.owner.chrome.spawn\n"
        "heavy = sorted(m for m in ('trio', 'httpx', 'pix3net.owner.proxy.transport', 'pix3net.owner.process') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=pix3_env(), capture_output=True, text=True, check=True)
    assert done.stdout == "\n", done.stdout
