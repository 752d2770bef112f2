"""Helpers for the editor page tests: a plain-JavaScript game project (it runs with no
node_modules), a 2 000-node scene, the page opened in Chromium over CDP, and the bridge tools'
input schemas as the page must declare them."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import trio

from tests.support.devtools import Page, open_page, owned_tab

# The pix3 tool group: each tool's input schema, in the order the page lists them.
SCHEMAS: dict[str, Any] = {
    "pix3_status": {"type": "object", "properties": {}, "additionalProperties": False},
    "pix3_sync": {
        "type": "object",
        "properties": {
            "expect": {"type": "object", "description": "Project-relative path → sha256 the file must have on disk."},
            "timeoutMs": {"type": "integer", "minimum": 100, "maximum": 120000},
        },
        "additionalProperties": False,
    },
    "pix3_scene": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "res:// or project-relative scene path."},
            "maxDepth": {"type": "integer", "minimum": 1, "maximum": 8},
            "nodeId": {"type": "string"},
            "find": {"type": "string"},
        },
        "additionalProperties": False,
    },
    "pix3_play": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["start", "stop", "restart", "pause", "resume", "status"]},
            "scenePath": {"type": "string"},
            "force": {"type": "boolean"},
        },
        "required": ["action"],
        "additionalProperties": False,
    },
    "pix3_game_run": {
        "type": "object",
        "properties": {
            "until": {"type": "array", "items": {"type": "object"}},
            "fail": {"type": "array", "items": {"type": "object"}},
            "watch": {"type": "array", "items": {"type": "string"}},
            "maxFrames": {"type": "integer", "minimum": 1},
            "maxWallMs": {"type": "integer", "minimum": 1},
            "settleMs": {"type": "integer", "minimum": 0},
            "fixedDeltaSec": {"type": "number"},
            "pauseOnOutcome": {"type": "boolean"},
            "bot": {
                "type": "object",
                "description": "A stored bot policy {name}; refused by this page (it needs the Pix3 runtime).",
            },
        },
        "required": ["until"],
        "additionalProperties": True,
    },
    "pix3_screenshot": {
        "type": "object",
        "properties": {"target": {"type": "string", "enum": ["game", "viewport", "scene"]}},
        "required": ["target"],
        "additionalProperties": False,
    },
    "pix3_errors": {
        "type": "object",
        "properties": {"since": {"type": "integer", "minimum": 0}, "clear": {"type": "boolean"}},
        "additionalProperties": False,
    },
    "pix3_agents": {"type": "object", "properties": {}, "additionalProperties": False},
}
TOOLS = list(SCHEMAS)

MANIFEST = """version: 1.0.0
defaultExportScenePath: scenes/main.pix3scene
viewportBaseSize:
  width: 1920
  height: 1080
projectType: 2d
metadata:
  projectName: {name}
"""

MAIN_SCENE = """version: 1.0.0
metadata:
  description: Entry scene
root:
  - id: game-root
    type: Group2D
    name: Game Root
    properties:
      width: 1920
      height: 1080
      layout:
        enabled: true
        horizontalAlign: stretch
        verticalAlign: stretch
    children:
      - id: background
        type: ColorRect2D
        name: Background
        properties:
          color: "#1a1a2e"
      - id: hud
        type: Group2D
        name: HUD
        properties:
          transform: { position: [0, 480] }
        children:
          - id: score
            type: Label2D
            name: Score
            properties:
              label: "SCORE 0"
              transform: { position: [-820, 0] }
          - id: lives
            type: Label2D
            name: Lives
            properties:
              label: "LIVES 3"
              visible: false
      - id: player
        type: Sprite2D
        name: Player
        groups: [actors]
        properties:
          width: 64
          height: 64
          texture: { type: texture, url: res://sprites/player.png }
          transform: { position: [0, -200], rotation: 15, scale: [2, 2] }
        components:
          - type: core:Rotate
            config: { rotationSpeed: 2 }
"""

# A 1×1 PNG: the player's texture, so that the fixture passes `pix3 check`.
PIXEL_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cf"
    "c0f01f0005000201a0e2a9c30000000049454e44ae426082"
)

LEVEL_SCENE = """version: 1.0.0
root:
  - id: level
    type: Node3D
    name: Level
    children:
      - id: cam
        type: Camera3D
        name: Camera
"""

GAME_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>fixture game</title>
<style>html,body{margin:0;height:100%;background:#0b1020;color:#cfe;font:14px system-ui}
canvas{display:block;width:100%;height:100%}#hud{position:fixed;left:12px;top:8px}</style></head>
<body><div id="hud">scene <b id="scene"></b> · frame <b id="frame">0</b></div><canvas id="c"></canvas>
<script src="/game.js"></script></body></html>
"""

GAME_JS = """// A fixture game: counts its animation frames, offers a debug snapshot, throws every Nth frame.
const THROW_EVERY = {throw_every};
const scene = new URLSearchParams(location.search).get("scene");
let frame = 0;
globalThis.__PIX3_GAME_DEBUG__ = {{ name: "fixture", snapshot: () => ({{ frame, scene, score: Math.floor(frame / 10) }}) }};
document.getElementById("scene").textContent = scene === null ? "(none)" : scene;
const canvas = document.getElementById("c");
const ctx = canvas.getContext("2d");
function step() {{
  frame += 1;
  requestAnimationFrame(step);
  document.getElementById("frame").textContent = String(frame);
  canvas.width = canvas.clientWidth; canvas.height = canvas.clientHeight;
  ctx.fillStyle = "#1a1a2e"; ctx.fillRect(0, 0, canvas.width, canvas.height);
  const x = (frame * 4) % Math.max(1, canvas.width - 60);
  ctx.fillStyle = "#5aa9ff"; ctx.fillRect(x, canvas.height / 2 - 30, 60, 60);
  ctx.fillStyle = "#f2b552"; ctx.beginPath(); ctx.arc(canvas.width / 2, canvas.height / 3, 24, 0, 7); ctx.fill();
  if (THROW_EVERY && frame % THROW_EVERY === 0) throw new Error(`boom at frame ${{frame}}`);
}}
requestAnimationFrame(step);
"""


def make_game_project(root: Path, *, throw_every: int = 0, name: str = "fixture-game") -> Path:
    """A 2D project whose game page is plain JavaScript (`/` → index.html → game.js)."""
    files = {
        "pix3project.yaml": MANIFEST.format(name=name),
        "scenes/main.pix3scene": MAIN_SCENE,
        "scenes/level.pix3scene": LEVEL_SCENE,
        "index.html": GAME_HTML,
        "game.js": GAME_JS.format(throw_every=throw_every),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "sprites").mkdir(exist_ok=True)
    (root / "sprites" / "player.png").write_bytes(PIXEL_PNG)
    return root


def big_scene(nodes: int = 2000) -> str:
    """A scene of ``nodes`` nodes, five levels deep: 10 rooms × 8 rows × cells with leaves."""
    lines = ["version: 1.0.0", "metadata:", "  description: Big", "root:"]
    made = 0
    kinds = ("Sprite2D", "Label2D", "Bar2D", "Group2D")

    def node(indent: int, ident: str, kind: str, name: str, extra: list[str]) -> None:
        nonlocal made
        pad = " " * indent
        lines.extend([f"{pad}- id: {ident}", f"{pad}  type: {kind}", f"{pad}  name: {name}", f"{pad}  properties:"])
        lines.extend(f"{pad}    {e}" for e in extra)
        made += 1

    node(2, "world", "Group2D", "World", ["width: 1920", "height: 1080"])
    lines.append("    children:")
    room = 0
    while made < nodes:
        node(6, f"room-{room}", "Group2D", f"Room {room}", [f"transform: {{ position: [{room * 100}, 0] }}"])
        lines.append("        children:")
        for row in range(8):
            if made >= nodes:
                break
            node(10, f"row-{room}-{row}", "Group2D", f"Row {row}", ["width: 100", "height: 20"])
            lines.append("            children:")
            for cell in range(4):
                if made >= nodes:
                    break
                kind = kinds[cell % len(kinds)]
                node(14, f"cell-{room}-{row}-{cell}", kind, f"Cell {cell}", [f'label: "R{room}C{cell}"', "width: 10"])
                if made < nodes:
                    lines.append("                children:")
                    node(18, f"leaf-{room}-{row}-{cell}", "Sprite2D", "Leaf", ["width: 4", "height: 4"])
        room += 1
    return "\n".join(lines) + "\n"


class EditorPage:
    """The editor page over CDP, with the page's console errors and exceptions collected."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self._auto_attach = False

    async def call(self, name: str, params: dict[str, Any] | None = None) -> Any:
        return await self.page.evaluate(
            f"window.__PIX3_DEBUG__.call({json.dumps(name)}, {json.dumps(params if params is not None else {})})"
        )

    async def evaluate(self, expression: str) -> Any:
        return await self.page.evaluate(expression)

    async def game_session(self, within: float = 10) -> str:
        """The CDP session of the game's frame: the editor page runs the game in a frame of another
        site, which Chrome puts in a renderer process of its own (an `iframe` target). The latest
        one attached; its main world is the game frame's document of ours (/__pix3/game/), whose
        one `iframe` holds the game page (same origin: `document.querySelector('iframe')
        .contentWindow` is the game's window)."""
        if not self._auto_attach:
            await self.page.call(
                "Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}
            )
            self._auto_attach = True
        with trio.fail_after(within):
            while True:
                gone = {
                    e["params"].get("sessionId")
                    for e in self.page.events
                    if e.get("method") in ("Target.detachedFromTarget", "Inspector.detached")
                }
                frames = [
                    e["params"]["sessionId"]
                    for e in self.page.events
                    if e.get("method") == "Target.attachedToTarget"
                    and e["params"]["targetInfo"]["type"] == "iframe"
                    and e["params"]["sessionId"] not in gone
                ]
                if frames:
                    return str(frames[-1])
                await trio.sleep(0.05)

    async def game_evaluate(self, expression: str) -> Any:
        """``expression`` in the game frame's document (see `game_session`)."""
        return await self.page.evaluate(expression, await self.game_session())

    async def game_wait_for(self, expression: str, within: float = 20) -> Any:
        """Until ``expression`` is truthy in the game's frame (the latest one: a reload makes another)."""
        with trio.fail_after(within):
            while True:
                with contextlib.suppress(AssertionError):
                    value = await self.page.evaluate(expression, await self.game_session())
                    if value:
                        return value
                await trio.sleep(0.05)

    def console_errors(self) -> list[str]:
        """Every console error, uncaught exception and error log entry the page produced."""
        found = []
        for event in self.page.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(params["entry"].get("text", ""))
        return found


EDITOR_READY = (
    "document.getElementById('pix3-connection')?.textContent === 'connected' && !!window.__PIX3_DEBUG__"
    " && document.getElementById('pix3-writer').textContent === 'this tab'"
)


async def _collect_and_load(page: Page, url: str) -> EditorPage:
    await page.call("Runtime.enable")
    await page.call("Log.enable")
    await page.call("Page.enable")
    await page.call("Page.navigate", {"url": url})
    await page.wait_for(EDITOR_READY)
    return EditorPage(page)


@contextlib.asynccontextmanager
async def editor_page(devtools: int, url: str, nursery: trio.Nursery) -> AsyncIterator[EditorPage]:
    """Opens about:blank, starts collecting, then navigates to the editor page and waits for it."""
    async with open_page(devtools, "about:blank", nursery) as page:
        yield await _collect_and_load(page, url)


@contextlib.asynccontextmanager
async def owned_editor_page(proxy: int, token: str, url: str, nursery: trio.Nursery) -> AsyncIterator[EditorPage]:
    """The Chrome owner's own editor tab (the one its watchdog watches) through its proxy: starts
    collecting, loads the editor page again there (its own address: the owner allows it) and waits."""
    async with owned_tab(proxy, token, url, nursery) as page:
        yield await _collect_and_load(page, url)
