"""The editor page for a person, in real Chromium: it loads with no console error, renders the
scenes and the node tree, a node's properties, a check result, the game with its errors and
the file events. The screenshot in docs/editor-page.png (README's picture) is the demo as `just
demo` makes it, playing, taken by the second test (`PIX3_UPDATE_DOCS=1 pytest
tests/e2e/test_page_view.py` writes it)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
import trio

from tests.support.devserver import dev_server
from tests.support.devtools import chromium_with_port
from tests.support.editor_page import EditorPage, editor_page, make_game_project
from tests.support.images import png_size
from tests.support.just import just_dry_run
from tests.support.node import NODE_DIR, seed_three_types
from tests.support.pix3 import REPO, run_pix3

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e, pytest.mark.slow]

MENU = """version: 1.0.0
root:
  - id: menu
    type: Group2D
    name: Menu
    children:
      - id: title
        type: Label2D
        name: Title
        properties:
          label: "PLAY"
          fontSze: 48
"""
RULES = "export const lives: number = 'three';\n"
WIDTH, HEIGHT = 1440, 900


async def text(page: EditorPage, selector: str) -> str:
    value: str = await page.evaluate(f"document.querySelector({selector!r}).textContent")
    return value


async def test_the_page_for_a_person(tmp_path: Path, chromium: str, node_modules: Path) -> None:
    root = make_game_project(tmp_path / "starfall", throw_every=200, name="starfall")
    (root / "scenes" / "ui").mkdir()
    (root / "scenes" / "ui" / "menu.pix3scene").write_text(MENU)
    (root / "scripts").mkdir()
    (root / "scripts" / "Rules.ts").write_text(RULES)
    env = {"PIX3_TYPESCRIPT": str(NODE_DIR / "node_modules" / "typescript"), "PIX3_HOME": str(tmp_path / "home")}
    with dev_server(root, env=env) as server, chromium_with_port(chromium, tmp_path / "profile") as devtools:
        async with trio.open_nursery() as nursery:
            async with editor_page(devtools, server.record()["editorUrl"], nursery) as page:
                await page.page.call(
                    "Emulation.setDeviceMetricsOverride",
                    {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
                )
                await page.page.wait_for("document.querySelectorAll('#pix3-tree .row').length === 6")
                assert page.console_errors() == []
                assert await text(page, "#pix3-project") == "starfall"
                assert await text(page, "#pix3-connection") == "connected"
                scenes = await page.evaluate(
                    "[...document.querySelectorAll('#pix3-scenes li')].map(li => li.dataset.path)"
                )
                assert scenes == ["scenes/level.pix3scene", "scenes/main.pix3scene", "scenes/ui/menu.pix3scene"]
                assert await text(page, "#pix3-scenes li.active") == "scenes/main.pix3scenemain"
                rows = await page.evaluate("[...document.querySelectorAll('#pix3-tree .row')].map(r => r.dataset.id)")
                assert rows == ["game-root", "background", "hud", "score", "lives", "player"]
                assert await text(page, "#pix3-tree-title") == "6 nodes"

                # another scene, then back; a click on a node shows its properties
                await page.evaluate(
                    "document.querySelector('#pix3-scenes li[data-path=\"scenes/ui/menu.pix3scene\"]').click()"
                )
                await page.page.wait_for("document.querySelectorAll('#pix3-tree .row').length === 2")
                assert (await page.call("pix3_status"))["activeScene"] == "res://scenes/ui/menu.pix3scene"
                await page.evaluate(
                    "document.querySelector('#pix3-scenes li[data-path=\"scenes/main.pix3scene\"]').click()"
                )
                await page.page.wait_for("document.querySelectorAll('#pix3-tree .row').length === 6")
                await page.evaluate("document.querySelector('#pix3-tree .row[data-id=\"player\"] .name').click()")
                await page.page.wait_for("document.querySelector('#pix3-node .node-head') !== null")
                node = await text(page, "#pix3-node")
                assert "Sprite2D" in node and "Player" in node and "res://sprites/player.png" in node
                assert "transform.position[0,-200]" in node
                assert (await page.call("pix3_status"))["selection"] == {
                    "nodeIds": ["player"],
                    "primaryNodeId": "player",
                }

                # Check: pix3 check's diagnostics, file:line code message
                await page.evaluate("document.getElementById('pix3-check-run').click()")
                await page.page.wait_for(
                    "document.getElementById('pix3-check-summary').textContent.startsWith('failed')", within=120
                )
                assert (await text(page, "#pix3-check-summary")).startswith("failed · 2 errors · ")
                lines = await page.evaluate(
                    "[...document.querySelectorAll('#pix3-check li')].map(li => li.textContent)"
                )
                assert any(
                    line.startswith("scenes/ui/menu.pix3scene:12E_UNKNOWN_PROPERTY") and "fontSze" in line
                    for line in lines
                ), lines
                assert any(line.startswith("scripts/Rules.ts:1E_TYPETS2322") for line in lines), lines

                # the open scene follows the disk
                main = root / "scenes" / "main.pix3scene"
                main.write_text(main.read_text() + "  - id: pickups\n    type: Group2D\n    name: Pickups\n")
                await page.page.wait_for("document.querySelectorAll('#pix3-tree .row').length === 7", within=15)
                assert await text(page, "#pix3-tree-title") == "7 nodes"

                # Play (the person's session), a file changed outside, the game's errors listed
                await page.evaluate("document.getElementById('pix3-play').click()")
                await page.page.wait_for("document.getElementById('pix3-play-status').textContent === 'running · you'")
                (root / "scenes" / "level.pix3scene").write_text(
                    (root / "scenes" / "level.pix3scene").read_text() + "\n"
                )
                await page.page.wait_for(
                    "[...document.querySelectorAll('#pix3-events li')].some(li => li.textContent.includes("
                    "'scenes/level.pix3scene'))",
                    within=15,
                )
                await page.page.wait_for(
                    "[...document.querySelectorAll('#pix3-errors li')].some(li =>"
                    " li.textContent.includes('Uncaught Error: boom at frame 200'))",
                    within=15,
                )
                error_line = await text(page, "#pix3-errors li")
                assert "game" in error_line and "window.onerror" in error_line
                await trio.sleep(0.3)
                shot = await page.page.call("Page.captureScreenshot", {"format": "png"})
                data = base64.b64decode(shot["data"])
                assert png_size(data) == (WIDTH, HEIGHT)
                (tmp_path / "editor-page.png").write_bytes(data)
            nursery.cancel_scope.cancel()


async def test_the_readme_screenshot_is_the_demo_playing(tmp_path: Path, chromium: str, node_modules: Path) -> None:
    """`just demo`'s project (`pix3 new demo` into pix3-demo) in the editor page: checked, the game
    playing and scoring, the ship selected in the scene view. docs/editor-page.png is this picture."""
    assert any(" new demo " in command for command in just_dry_run("demo"))  # the starter just demo makes
    assert run_pix3("new", "demo", "pix3-demo", cwd=tmp_path).returncode == 0
    root = tmp_path / "pix3-demo"
    home = seed_three_types(tmp_path / "home", node_modules)
    env = {"PIX3_TYPESCRIPT": str(node_modules / "typescript"), "PIX3_HOME": str(home)}
    with dev_server(root, env=env) as server, chromium_with_port(chromium, tmp_path / "profile") as devtools:
        async with trio.open_nursery() as nursery:
            async with editor_page(devtools, server.record()["editorUrl"], nursery) as page:
                await page.page.call(
                    "Emulation.setDeviceMetricsOverride",
                    {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
                )
                await page.page.wait_for("document.querySelectorAll('#pix3-tree .row').length === 18")
                await page.evaluate("document.getElementById('pix3-check-run').click()")
                await page.page.wait_for(
                    "document.getElementById('pix3-check-summary').textContent.startsWith('ok · 0 errors')", within=120
                )
                await page.evaluate("document.querySelector('#pix3-tree .row[data-id=\"ship\"] .name').click()")
                await page.evaluate("document.getElementById('pix3-play').click()")
                await page.page.wait_for("document.getElementById('pix3-play-status').textContent === 'running · you'")
                game = "document.querySelector('iframe').contentWindow.__PIX3_GAME_DEBUG__"  # in the game's frame
                await page.game_wait_for(f"{game}?.snapshot().score >= 2", within=30)
                # the scene view draws the ship where the file puts it, outlined
                ship = (await page.call("pix3_scene", {"nodeId": "ship"}))["screen"]
                lit = await page.evaluate(
                    "(() => { const c = document.getElementById('pix3-view'); const r = c.getBoundingClientRect();"
                    f" return [...c.getContext('2d').getImageData({ship['x']} - r.left, {ship['y']} + 8 - r.top, 1, 1).data]; }})()"
                )
                assert min(lit[:3]) > 150, lit  # the ship's light body, from sprites/ship.png
                assert await text(page, "#pix3-node .node-head") == "Sprite2DShip#ship"
                assert page.console_errors() == []
                shot = await page.page.call("Page.captureScreenshot", {"format": "png"})
                data = base64.b64decode(shot["data"])
                assert png_size(data) == (WIDTH, HEIGHT)
                await trio.Path(tmp_path / "editor-page.png").write_bytes(data)
                if os.environ.get("PIX3_UPDATE_DOCS") == "1":
                    await trio.Path(REPO / "docs" / "editor-page.png").write_bytes(data)
            nursery.cancel_scope.cancel()
