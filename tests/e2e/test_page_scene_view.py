"""The editor page's scene view in real Chromium: `pix3_scene {nodeId}` answers `screen` (the node's
origin on the page) and `screenRect` (its box) that match the nodes' transforms, worked out here
from the scene files with the documented rules (docs/game-page.md, "A plain-JavaScript game"), not
with the page's code; the pixels show the textures, the label, the selection outline, and nothing
for a hidden node; a real click selects; the view shows the scene as stored while the game moves;
`pix3_screenshot {target:"scene"}`; a 3D scene keeps its tree and says the view draws 2D only."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
import trio
from ruamel.yaml import YAML

from tests.support.devserver import DevServer, dev_server
from tests.support.devtools import chromium_with_port
from tests.support.editor_page import EditorPage, editor_page
from tests.support.pix3 import run_pix3

pytestmark = [pytest.mark.chromium, pytest.mark.e2e, pytest.mark.slow]

WIDTH, HEIGHT = 1440, 900
VIEWPORT = (1920.0, 1080.0)
TRANSFORMS = """version: 1.0.0
root:
  - id: world
    type: Group2D
    properties: { width: 1920, height: 1080 }
    children:
      - id: arm
        type: Group2D
        properties:
          width: 200
          height: 100
          transform: { position: [300, 200], rotation: 30, scale: [2, 1.5] }
        children:
          - id: hand
            type: ColorRect2D
            properties:
              width: 40
              height: 20
              color: "#ff0000"
              transform: { position: [50, -10], rotation: 15 }
      - id: tag
        type: Label2D
        properties:
          label: HELLO
          labelFontSize: 48
          width: 300
          height: 60
          layout: { enabled: true, horizontalAlign: left, verticalAlign: top, left: 20, top: 10 }
      - id: pic
        type: Sprite2D
        properties:
          texture: { type: texture, url: res://sprites/ship.png }
          width: 144
          height: 144
          transform: { position: [-500, -200] }
      - id: ghost
        type: ColorRect2D
        properties: { width: 80, height: 80, color: "#ff0000", visible: false, transform: { position: [0, -300] } }
"""

Matrix = tuple[float, float, float, float, float, float]


def multiply(m: Matrix, n: Matrix) -> Matrix:
    return (
        m[0] * n[0] + m[2] * n[1],
        m[1] * n[0] + m[3] * n[1],
        m[0] * n[2] + m[2] * n[3],
        m[1] * n[2] + m[3] * n[3],
        m[0] * n[4] + m[2] * n[5] + m[4],
        m[1] * n[4] + m[3] * n[5] + m[5],
    )


def local(props: dict[str, Any], parent_size: tuple[float, float]) -> tuple[Matrix, tuple[float, float] | None]:
    """A node's own transform and size from its file properties: `transform` (position, rotation
    in degrees counter-clockwise, scale), and for a W21-anchored side the margin rules."""
    transform = props.get("transform", {})
    x, y = transform.get("position", [0, 0])
    w: Any = props.get("width")
    h: Any = props.get("height")
    layout = props.get("layout") or {}
    if layout.get("enabled"):
        pw, ph = parent_size
        if layout.get("horizontalAlign") == "left" and "left" in layout:
            x = -pw / 2 + layout["left"] + w / 2
        if layout.get("horizontalAlign") == "stretch" and "left" in layout and "right" in layout:
            w = pw - layout["left"] - layout["right"]
            x = (layout["left"] - layout["right"]) / 2
        if layout.get("verticalAlign") == "top" and "top" in layout:
            y = ph / 2 - layout["top"] - h / 2
        if layout.get("verticalAlign") == "stretch" and "top" in layout and "bottom" in layout:
            h = ph - layout["top"] - layout["bottom"]
            y = (layout["bottom"] - layout["top"]) / 2
    r = math.radians(transform.get("rotation", 0))
    sx, sy = transform.get("scale", [1, 1])
    matrix = (math.cos(r) * sx, math.sin(r) * sx, -math.sin(r) * sy, math.cos(r) * sy, float(x), float(y))
    return matrix, (w, h) if w is not None and h is not None else None


def expected_boxes(scene: str, canvas: dict[str, float]) -> dict[str, dict[str, Any]]:
    """Each node's origin and box on the page: the design viewport letterboxed in the canvas, Y up."""
    scale = min(canvas["width"] / VIEWPORT[0], canvas["height"] / VIEWPORT[1])
    page: Matrix = (scale, 0, 0, -scale, canvas["left"] + canvas["width"] / 2, canvas["top"] + canvas["height"] / 2)
    found: dict[str, dict[str, Any]] = {}

    def visit(nodes: list[dict[str, Any]], parent: Matrix, parent_size: tuple[float, float]) -> None:
        for node in nodes:
            own, size = local(node.get("properties") or {}, parent_size)
            world = multiply(parent, own)
            entry: dict[str, Any] = {"screen": {"x": world[4], "y": world[5]}}
            if size:
                w, h = size
                corners = [
                    multiply(world, (1, 0, 0, 1, cx, cy))[4:]
                    for cx, cy in ((-w / 2, h / 2), (w / 2, h / 2), (w / 2, -h / 2), (-w / 2, -h / 2))
                ]
                xs, ys = [c[0] for c in corners], [c[1] for c in corners]
                entry["screenRect"] = {
                    "x": min(xs),
                    "y": min(ys),
                    "width": max(xs) - min(xs),
                    "height": max(ys) - min(ys),
                }
                entry["corners"] = corners
            found[node["id"]] = entry
            visit(node.get("children") or [], world, size or parent_size)

    visit(YAML(typ="safe", pure=True).load(scene)["root"], page, VIEWPORT)
    return found


def close(actual: dict[str, float] | None, wanted: dict[str, float], label: str) -> None:
    assert actual is not None, label
    assert set(actual) == set(wanted), (label, actual)
    for key, value in wanted.items():
        assert abs(actual[key] - value) < 0.01, (label, key, actual, wanted)


@pytest.fixture(scope="module")
def devtools(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[int]:
    with chromium_with_port(chromium, tmp_path_factory.mktemp("profile")) as port:
        yield port


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    """The demo, with the 2D and 3D starters' scenes and the transforms scene beside its own."""
    base = tmp_path_factory.mktemp("sceneview")
    for kind in ("demo", "2d", "3d"):
        done = run_pix3("new", kind, str(base / kind), cwd=base)
        assert done.returncode == 0, done.stderr
    root = base / "demo"
    shutil.copy(base / "2d" / "scenes" / "main.pix3scene", root / "scenes" / "starter2d.pix3scene")
    shutil.copy(base / "3d" / "scenes" / "main.pix3scene", root / "scenes" / "starter3d.pix3scene")
    (root / "scenes" / "transforms.pix3scene").write_text(TRANSFORMS)
    with dev_server(root) as server:
        yield server


async def open_scene(page: EditorPage, path: str, rows: int) -> None:
    await page.evaluate(f"document.querySelector('#pix3-scenes li[data-path={json.dumps(path)}]').click()")
    await page.page.wait_for(f"document.querySelectorAll('#pix3-tree .row').length === {rows}")
    await page.page.wait_for(f"document.getElementById('pix3-view-scene').textContent === 'res://{path}'")


async def canvas_rect(page: EditorPage) -> dict[str, float]:
    rect: dict[str, float] = await page.evaluate(
        "document.getElementById('pix3-view').getBoundingClientRect().toJSON()"
    )
    return rect


async def pixel(page: EditorPage, x: float, y: float) -> list[int]:
    """The scene view's pixel at a page point (CSS px; the device scale factor is 1)."""
    found: list[int] = await page.evaluate(
        "(() => { const c = document.getElementById('pix3-view'); const r = c.getBoundingClientRect();"
        f" return [...c.getContext('2d').getImageData(Math.floor({x} - r.left), Math.floor({y} - r.top), 1, 1).data]; }})()"
    )
    return found


async def click(page: EditorPage, x: float, y: float) -> None:
    for kind in ("mousePressed", "mouseReleased"):
        await page.page.call(
            "Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}
        )


async def with_page(server: DevServer, devtools: int, body: Any) -> None:
    async with trio.open_nursery() as nursery:
        async with editor_page(devtools, server.record()["editorUrl"], nursery) as page:
            await page.page.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
            )
            await page.page.wait_for(f"innerWidth === {WIDTH}")
            await page.page.wait_for("document.querySelectorAll('#pix3-scenes li[data-path]').length === 4")
            await body(page)
            assert page.console_errors() == []
        nursery.cancel_scope.cancel()


async def test_screen_matches_the_2d_starter_and_nested_transforms(project: DevServer, devtools: int) -> None:
    async def body(page: EditorPage) -> None:
        root = project.root
        for scene, rows in (("scenes/starter2d.pix3scene", 2), ("scenes/transforms.pix3scene", 6)):
            await open_scene(page, scene, rows)
            wanted = expected_boxes((root / scene).read_text(), await canvas_rect(page))
            for node_id, expected in wanted.items():
                answer = await page.call("pix3_scene", {"nodeId": node_id})
                assert list(answer)[:4] == ["ok", "node", "saved", "screen"], answer
                close(answer["screen"], expected["screen"], f"{scene} {node_id} screen")
                close(answer.get("screenRect"), expected["screenRect"], f"{scene} {node_id} screenRect")
                assert "note" not in answer
                assert await page.evaluate(f"window.__PIX3_DEBUG__.screen({json.dumps(node_id)})") == answer["screen"]
        # the starter: both nodes sit at the view's centre and fill the letterboxed viewport
        canvas = await canvas_rect(page)
        starter = expected_boxes((root / "scenes/starter2d.pix3scene").read_text(), canvas)
        assert starter["background"]["screenRect"]["width"] == pytest.approx(
            min(canvas["width"], canvas["height"] * 16 / 9)
        )

        # pixels: the texture, the label, a hidden node, the red hand
        boxes = expected_boxes((root / "scenes/transforms.pix3scene").read_text(), canvas)
        pic = boxes["pic"]["screen"]
        r, g, b, _ = await pixel(page, pic["x"], pic["y"] + 10)  # the ship's light body
        assert r > 150 and g > 150 and b > 150, (r, g, b)
        ghost = boxes["ghost"]["screen"]
        assert (await pixel(page, ghost["x"], ghost["y"]))[:3] == [0x10, 0x12, 0x15]  # hidden: the view's ground
        hand = boxes["hand"]["screen"]
        assert (await pixel(page, hand["x"], hand["y"]))[:3] == [255, 0, 0]
        tag = boxes["tag"]["screenRect"]
        lit = await page.evaluate(
            "(() => { const c = document.getElementById('pix3-view'); const r = c.getBoundingClientRect();"
            f" const d = c.getContext('2d').getImageData({tag['x']} - r.left, {tag['y']} - r.top, {tag['width']}, {tag['height']}).data;"
            " let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] > 200 && d[i + 2] > 200) n += 1; return n; })()"
        )
        assert lit > 50, lit  # HELLO, white, in its box

        # a real click on the hand selects it: the tree and the properties follow, the outline is drawn
        await click(page, hand["x"], hand["y"])
        await page.page.wait_for("document.querySelector('#pix3-tree .row.selected')?.dataset.id === 'hand'")
        assert "#hand" in await page.evaluate("document.querySelector('#pix3-node .node-head').textContent")
        assert (await page.call("pix3_status"))["selection"] == {"nodeIds": ["hand"], "primaryNodeId": "hand"}
        (ax, ay), (bx, by) = boxes["hand"]["corners"][:2]
        r, g, b, _ = await pixel(page, (ax + bx) / 2, (ay + by) / 2)  # the middle of its top edge
        assert b > 200 and r < 150, (r, g, b)  # the accent blue
        await click(page, canvas["left"] + 2, canvas["top"] + 2)  # outside the viewport: nothing
        await page.page.wait_for("document.querySelector('#pix3-tree .row.selected') === null")

        # only the active scene is shown: another scene's nodes have no screen
        other = await page.call("pix3_scene", {"path": "scenes/starter2d.pix3scene", "nodeId": "background"})
        assert other["screen"] is None and "active scene" in other["note"]

    await with_page(project, devtools, body)


async def test_the_view_shows_the_scene_as_stored_while_the_game_moves(project: DevServer, devtools: int) -> None:
    async def body(page: EditorPage) -> None:
        await open_scene(page, "scenes/main.pix3scene", 18)
        started = await page.call("pix3_play", {"action": "start"})
        assert started["ok"] is True, started
        # the game runs in a frame of its own process (EditorPage.game_evaluate)
        await page.game_wait_for(
            "document.querySelector('iframe').contentWindow.__PIX3_GAME_DEBUG__?.snapshot().frame > 5"
        )
        view = "document.getElementById('pix3-view').toDataURL()"
        game = "document.querySelector('iframe').contentWindow.__PIX3_GAME_DEBUG__.snapshot()"
        before = {"view": await page.evaluate(view), "game": await page.game_evaluate(game)}
        await trio.sleep(0.5)
        after = {"view": await page.evaluate(view), "game": await page.game_evaluate(game)}
        assert before["game"]["coin"] != after["game"]["coin"]  # the game moves the coin
        assert before["view"] == after["view"]  # the view runs nothing
        coin = await page.call("pix3_scene", {"nodeId": "coin"})
        assert coin["node"]["transform"]["position"] == {"x": 300, "y": 420, "z": 0}  # as the file says

        shot = await page.call("pix3_screenshot", {"target": "scene"})
        assert (shot["ok"], shot["target"], shot["next"]) == (True, "scene", "take_screenshot"), shot
        assert await page.evaluate("document.body.classList.contains('view-scene')")
        canvas = await canvas_rect(page)
        assert (canvas["width"], canvas["height"]) == (WIDTH, HEIGHT)  # the view fills the page
        ship = await page.call("pix3_scene", {"nodeId": "ship"})
        scale = min(WIDTH / 1920, HEIGHT / 1080)
        close(ship["screen"], {"x": WIDTH / 2, "y": HEIGHT / 2 + 360 * scale}, "ship on the full page")
        back = await page.call("pix3_screenshot", {"target": "viewport"})
        assert back["ok"] is True and not await page.evaluate("document.body.classList.contains('view-scene')")

        game = await page.call("pix3_screenshot", {"target": "game"})
        assert game["ok"] is True
        hidden = await page.call("pix3_scene", {"nodeId": "ship"})
        assert hidden["screen"] is None and "game fills the page" in hidden["note"]
        await page.call("pix3_screenshot", {"target": "viewport"})
        assert (await page.call("pix3_play", {"action": "stop"}))["ok"] is True

    await with_page(project, devtools, body)


async def test_a_3d_scene_keeps_its_tree_and_the_view_says_it_draws_2d_only(project: DevServer, devtools: int) -> None:
    async def body(page: EditorPage) -> None:
        await open_scene(page, "scenes/starter3d.pix3scene", 4)
        note = await page.page.wait_for(
            "(() => { const n = document.getElementById('pix3-view-note'); return !n.hidden && n.textContent; })()"
        )
        assert "draws 2D scenes only" in note
        camera = await page.call("pix3_scene", {"nodeId": "camera"})
        assert camera["ok"] is True and camera["screen"] is None and "2D nodes only" in camera["note"]
        assert camera["node"]["type"] == "Camera3D"
        refused = await page.call("pix3_screenshot", {"target": "scene"})
        assert refused["reason"] == "refused" and "2D scenes only" in refused["detail"], refused
        assert (await page.call("pix3_screenshot", {"target": "viewport"}))["ok"] is True

    await with_page(project, devtools, body)
