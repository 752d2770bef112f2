"""What `pix3 smoke` tells the shared rules to say about TypeScript that reached the browser
uncompiled (docs/smoke.md, "Scripts that did not run"). The rules themselves (each way a script
does not run, and the words) are judge.js's: tests/unit/game_judge.test.mjs; in real Chromium:
tests/e2e/test_smoke_scripts.py."""

from __future__ import annotations

from pathlib import Path

from pix3net.commands.smoke import compile_advice


def test_the_advice_names_the_project_and_its_vite(tmp_path: Path) -> None:
    missing = compile_advice(tmp_path, None, "http://localhost:5173/")
    assert f"no node_modules/vite in {tmp_path} or above" in missing
    assert f"run npm install in {tmp_path}" in missing and "README.md" in missing
    vite = tmp_path / "node_modules/vite/bin/vite.js"
    stale = compile_advice(tmp_path, vite, "http://localhost:5173/")
    assert f"the dev server at http://localhost:5173/ serves the project folder without Vite although {vite}" in stale
    assert "restart it" in stale
