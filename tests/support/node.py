"""Where the npm test clients live (puppeteer-core, playwright-core, vite, typescript, …)."""

from __future__ import annotations

from tests.support.pix3 import REPO

NODE_DIR = REPO / "tests" / "node"
