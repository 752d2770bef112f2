"""The editor page's `pix3` tools through the inline path (window.__PIX3_DEBUG__.call) in real
Chromium against the real dev server: discovery, status, every refusal the page can produce
with its exact message, pix3_scene against `pix3 tree --json`, unsaved text, sync while playing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.support.devserver import DevServer, dev_server
from tests.support.devtools import chromium_with_port
from tests.support.editor_page import SCHEMAS, TOOLS, EditorPage, big_scene, editor_page, make_game_project
from tests.support.pix3 import run_pix3

pytestmark = [pytest.mark.chromium, pytest.mark.e2e, pytest.mark.slow]

MAIN = "res://scenes/main.pix3scene"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture game, plus the 2D and 3D starters' entry scenes and a 2 000-node scene."""
    base = tmp_path_factory.mktemp("bridge")
    root = make_game_project(base / "game")
    for kind in ("2d", "3d"):
        done = run_pix3("new", kind, str(base / kind), cwd=base, env={"PIX3_HOME": str(base / "home")})
        assert done.returncode == 0, done.stderr
        shutil.copy(base / kind / "scenes" / "main.pix3scene", root / "scenes" / f"starter{kind}.pix3scene")
    (root / "scenes" / "big.pix3scene").write_text(big_scene(2000))
    (root / "scenes" / "broken.pix3scene").write_text("root:\n  - id: a\n    type: [unclosed\n")
    return root


@pytest.fixture(scope="module")
def server(project: Path) -> Iterator[DevServer]:
    with dev_server(project) as running:
        yield running


@pytest.fixture(scope="module")
def devtools(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[int]:
    with chromium_with_port(chromium, tmp_path_factory.mktemp("profile")) as port:
        yield port


async def with_page(devtools: int, url: str, body: Any) -> None:
    async with trio.open_nursery() as nursery:
        async with editor_page(devtools, url, nursery) as page:
            await body(page)
        nursery.cancel_scope.cancel()


async def test_discovery_answers_the_pix3_group(server: DevServer, devtools: int) -> None:
    async def body(page: EditorPage) -> None:
        groups = await page.evaluate(
            """(() => {
              const groups = [];
              const event = new CustomEvent('devtoolstooldiscovery');
              event.respondWith = (group) => groups.push(group);
              window.dispatchEvent(event);
              return groups.map((g) => ({name: g.name, description: g.description,
                tools: g.tools.map((t) => ({name: t.name, description: t.description, inputSchema: t.inputSchema,
                                            execute: typeof t.execute}))}));
            })()"""
        )
        assert len(groups) == 1 and groups[0]["name"] == "pix3"
        assert "Every refusal is {ok:false, reason, detail}." in groups[0]["description"]
        assert [t["name"] for t in groups[0]["tools"]] == TOOLS
        assert {t["name"]: t["inputSchema"] for t in groups[0]["tools"]} == SCHEMAS
        assert all(t["execute"] == "function" and t["description"] for t in groups[0]["tools"])
        assert [t["name"] for t in await page.evaluate("window.__PIX3_DEBUG__.tools()")] == TOOLS
        # a real listener on window, which chrome-devtools-mcp finds with DOMDebugger.getEventListeners
        handle = await page.page.call("Runtime.evaluate", {"expression": "window"})
        listeners = await page.page.call("DOMDebugger.getEventListeners", {"objectId": handle["result"]["objectId"]})
        assert "devtoolstooldiscovery" in [entry["type"] for entry in listeners["listeners"]]
        # the group's execute is the same dispatcher as call() and status()
        via_group = await page.evaluate(
            """(async () => { let g; const e = new CustomEvent('devtoolstooldiscovery');
               e.respondWith = (x) => { g = x; }; window.dispatchEvent(e);
               const a = await g.tools[0].execute({}); const b = await window.__PIX3_DEBUG__.call('pix3_status', {});
               const c = await window.__PIX3_DEBUG__.status();
               for (const x of [a, b, c]) delete x.keepalive;
               return [a, b, c]; })()"""
        )
        assert via_group[0] == via_group[1] == via_group[2]
        # test helpers are not on a page opened without ?test
        assert await page.evaluate("window.__PIX3_TEST__ === undefined") is True

    await with_page(devtools, server.record()["editorUrl"], body)


async def test_status(server: DevServer, devtools: int) -> None:
    async def body(page: EditorPage) -> None:
        status = await page.call("pix3_status")
        assert list(status) == [
            "ok", "versions", "project", "activeScene", "openScenes", "scriptsStatus", "writer", "connection",
            "dirty", "pending", "flushing", "gestureInProgress", "pendingExternal", "play", "selection",
            "errorCount", "keepalive", "viteClient", "tabId", "writerId", "seq",
        ]  # fmt: skip
        assert status["versions"]["plugin"] and status["project"] == "game"
        assert {k: status[k] for k in ("activeScene", "openScenes", "writer", "connection", "dirty", "pending")} == {
            "activeScene": MAIN,
            "openScenes": [MAIN],
            "writer": "self",
            "connection": "open",
            "dirty": [],
            "pending": {},
        }
        assert status["play"] == {"playing": False, "status": "stopped", "playOwner": None, "startedAt": None}
        assert (status["keepalive"], status["viteClient"], status["errorCount"]) == (True, False, 0)
        assert status["writerId"] == status["tabId"]
        await page.evaluate("window.__PIX3_VITE_CLIENT__ = true")
        assert (await page.call("pix3_status"))["viteClient"] is True

    await with_page(devtools, server.record()["editorUrl"], body)


def walk(nodes: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for node in nodes:
        yield node
        yield from walk(node["children"])


def outline_of(dto: dict[str, Any]) -> list[Any]:
    """(id, type, name, children) from a pix3_scene tree, to set beside `pix3 tree --json`."""
    return [(c["nodeId"], c["type"], c["name"], outline_of(c)) for c in dto.get("children", [])]


def outline_of_tree(nodes: list[dict[str, Any]], levels: int) -> list[Any]:
    return [
        (n["id"], n["type"], n.get("name"), outline_of_tree(n["children"], levels - 1) if levels > 1 else [])
        for n in nodes
    ]


@pytest.mark.parametrize("scene", ["scenes/starter2d.pix3scene", "scenes/starter3d.pix3scene", "scenes/big.pix3scene"])
async def test_scene_matches_pix3_tree(server: DevServer, devtools: int, project: Path, scene: str) -> None:
    done = run_pix3("tree", scene, "--json", "--project", str(project))
    assert done.returncode == 0, done.stderr
    tree = json.loads(done.stdout)["nodes"]

    async def body(page: EditorPage) -> None:
        for depth in (1, 2, 3, 8):
            answer = await page.call("pix3_scene", {"path": scene, "maxDepth": depth})
            assert answer["ok"] is True and answer["path"] == f"res://{scene}"
            assert outline_of(answer["scene"]) == outline_of_tree(tree, depth)
            cut = [n for n in walk_dto(answer["scene"]) if "childCount" in n]
            assert all(n["childCount"] > 0 and "children" not in n for n in cut)
            if depth == 8:
                assert cut == []
        default = await page.call("pix3_scene", {"path": f"res://{scene}"})
        assert outline_of(default["scene"]) == outline_of_tree(tree, 3)
        every = list(walk(tree))
        for text in ("", "label", "GROUP", "cell 3", "zzz"):
            found = await page.call("pix3_scene", {"path": scene, "find": text})
            wanted = [
                {"nodeId": n["id"], "type": n["type"], "name": n.get("name")}
                for n in every
                if text.lower() in (n.get("name") or "").lower() or text.lower() in n["type"].lower()
            ]
            assert found == {"ok": True, "path": f"res://{scene}", "matches": wanted}
        for node in every[:: max(1, len(every) // 7)]:
            one = await page.call("pix3_scene", {"path": scene, "nodeId": node["id"]})
            assert (one["node"]["nodeId"], one["node"]["type"], one["node"]["name"]) == (
                node["id"],
                node["type"],
                node.get("name"),
            )
            assert one["node"].get("childCount", 0) == len(node["children"]) and "children" not in one["node"]
            # not the scene the view shows (the active one): no position on the page, and why
            assert one["saved"]["id"] == node["id"] and one["screen"] is None and "active scene" in one["note"]

    await with_page(devtools, server.record()["editorUrl"], body)


def walk_dto(dto: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for child in dto.get("children", []):
        yield child
        yield from walk_dto(child)


async def test_scene_shapes_and_refusals(server: DevServer, devtools: int) -> None:
    async def body(page: EditorPage) -> None:
        tree = await page.call("pix3_scene", {"maxDepth": 2})
        assert tree["path"] == MAIN and tree["scene"]["name"] == "Entry scene"
        assert [c["nodeId"] for c in tree["scene"]["children"]] == ["game-root"]
        root = tree["scene"]["children"][0]
        assert [c["nodeId"] for c in root["children"]] == ["background", "hud", "player"]
        assert root["children"][1]["childCount"] == 2
        assert root["properties"]["width"] == 1920 and root["componentCount"] == 0
        player = await page.call("pix3_scene", {"nodeId": "player"})
        assert player["node"]["transform"] == {
            "position": {"x": 0, "y": -200, "z": 0},
            "rotation": {"x": 0, "y": 0, "z": 15},
            "scale": {"x": 2, "y": 2, "z": 1},
        }
        assert player["node"]["groups"] == ["actors"] and player["saved"]["type"] == "Sprite2D"
        lives = await page.call("pix3_scene", {"nodeId": "lives"})
        assert lives["node"]["visible"] is False
        assert player["node"]["components"] == [
            {"index": 0, "type": "core:Rotate", "id": None, "enabled": True, "config": {"config": {"rotationSpeed": 2}}}
        ]
        assert (await page.evaluate("window.__PIX3_DEBUG__.node('lives')"))["saved"]["id"] == "lives"
        assert await page.evaluate("window.__PIX3_DEBUG__.find('nothing-here')") == []
        # a hidden node of the active 2D scene still has its place on the page (the scene view's)
        assert lives["screen"] == await page.evaluate("window.__PIX3_DEBUG__.screen('lives')")
        assert set(lives["screen"]) == {"x", "y"} and "note" not in lives

        assert await page.call("pix3_scene", {"nodeId": "ghost"}) == {
            "ok": False,
            "reason": "not_found",
            "detail": 'No node "ghost" in the scene.',
            "path": MAIN,
        }
        assert await page.call("pix3_scene", {"path": "scenes/other.pix3scene"}) == {
            "ok": False,
            "reason": "no_scene",
            "detail": '"scenes/other.pix3scene" is not a scene of this project.',
        }
        broken = await page.call("pix3_scene", {"path": "scenes/broken.pix3scene"})
        assert broken["reason"] == "error"
        assert broken["detail"].startswith("scenes/broken.pix3scene is not valid YAML: ")
        assert (await page.call("pix3_scene", {"path": "./scenes/main.pix3scene/"}))["path"] == MAIN

    await with_page(devtools, server.record()["editorUrl"], body)


NOT_OWNER = (
    "The person at the editor page started this play session: wait for them to stop it, or ask them. "
    "force does not override this."
)


async def test_every_inline_refusal(server: DevServer, devtools: int, project: Path, tmp_path: Path) -> None:
    async def body(page: EditorPage) -> None:
        call = page.call
        names = ", ".join(TOOLS)
        assert await call("pix3_nope") == {
            "ok": False,
            "reason": "unknown_tool",
            "detail": f'No tool "pix3_nope"; the tools are {names}.',
        }
        invalid = {
            ("pix3_play", "{}"): 'params needs "action"',
            (
                "pix3_play",
                '{"action": "fly"}',
            ): 'params.action must be one of "start", "stop", "restart", "pause", "resume", "status"',
            ("pix3_scene", '{"maxDepth": 1.5}'): "params.maxDepth must be an integer",
            ("pix3_scene", '{"maxDepth": 9}'): "params.maxDepth must be <= 8",
            ("pix3_sync", '{"expect": "abc"}'): "params.expect must be of type object",
            ("pix3_sync", '{"timeoutMs": 50}'): "params.timeoutMs must be >= 100",
            ("pix3_status", '{"extra": 1}'): 'params has an unknown key "extra"',
            ("pix3_game_run", "{}"): 'params needs "until"',
            ("pix3_game_run", '{"until": [3]}'): "params.until[0] must be of type object",
            ("pix3_screenshot", '{"target": "page"}'): 'params.target must be one of "game", "viewport", "scene"',
            ("pix3_errors", '{"since": -5}'): "params.since must be >= 0",
        }
        for (name, params), detail in invalid.items():
            answer = await page.evaluate(f"window.__PIX3_DEBUG__.call({json.dumps(name)}, {params})")
            assert answer == {"ok": False, "reason": "invalid_params", "detail": detail}, (name, params)
        assert (await page.evaluate("window.__PIX3_DEBUG__.call('pix3_status', null)"))["ok"] is True

        stopped = {"playing": False, "status": "stopped", "playOwner": None, "startedAt": None, "scene": None}
        assert await call("pix3_play", {"action": "stop"}) == {
            "ok": False, "reason": "not_playing", "detail": "Nothing is playing.", **stopped,
        }  # fmt: skip
        assert await call("pix3_play", {"action": "pause"}) == {
            "ok": False, "reason": "not_playing", "detail": "Nothing is playing.", **stopped,
        }  # fmt: skip
        assert await call("pix3_play", {"action": "restart"}) == {
            "ok": False, "reason": "not_playing", "detail": "Nothing is playing; use start.", **stopped,
        }  # fmt: skip
        assert await call("pix3_game_run", {"until": [{"kind": "newErrors"}]}) == {
            "ok": False, "reason": "not_playing", "detail": 'Start play first: pix3_play {action:"start"}.',
        }  # fmt: skip
        assert await call("pix3_screenshot", {"target": "game"}) == {
            "ok": False, "reason": "not_playing",
            "detail": "Nothing is playing; start play first, or screenshot the viewport.",
        }  # fmt: skip
        assert await call("pix3_play", {"action": "start", "scenePath": "scenes/none.pix3scene"}) == {
            "ok": False, "reason": "no_scene", "detail": '"scenes/none.pix3scene" is not a scene of this project.',
            **stopped,
        }  # fmt: skip

        # the person presses Play: their session refuses the agent, force included
        await page.evaluate("document.getElementById('pix3-play').click()")
        await page.page.wait_for("window.__PIX3_DEBUG__.play.status().status === 'running'")
        play = await page.evaluate("window.__PIX3_DEBUG__.play.status()")
        assert (play["playing"], play["playOwner"]) == (True, "designer")
        playing = {k: play[k] for k in ("playing", "status", "playOwner", "startedAt")}
        for action in ("stop", "restart", "pause"):
            answer = await call("pix3_play", {"action": action, "force": True})
            assert answer == {"ok": False, "reason": "not_owner", "detail": NOT_OWNER, **playing, "scene": MAIN}
        assert await call("pix3_play", {"action": "start"}) == {
            "ok": False, "reason": "already_playing", "detail": "Play is running (owner: designer).", **playing,
            "scene": MAIN,
        }  # fmt: skip
        assert await call("pix3_play", {"action": "status"}) == {"ok": True, **playing, "scene": MAIN}
        # an external write during the designer's session: the sync barrier answers `stale`
        (project / "notes.md").write_text("changed outside\n")
        synced = await call("pix3_sync", {"timeoutMs": 5000})
        assert (synced["ok"], synced["reason"], synced["playing"], synced["pending"]) == (
            False,
            "stale",
            "designer",
            ["notes.md"],
        )
        refused = await call("pix3_game_run", {"until": [{"kind": "nodeGone", "name": "Enemy"}]})
        assert refused["reason"] == "refused"
        assert refused["detail"].startswith("until[0] nodeGone needs the Pix3 runtime's live node graph")
        game_runs: list[tuple[dict[str, Any], str]] = [
            ({"until": [{"kind": "frames", "n": 1}], "input": {"tap": "A"}}, "`input` is refused"),
            ({"until": [{"kind": "teleport"}]}, 'until[0] has an unknown predicate kind "teleport"'),
            ({"until": [{"kind": "frames", "n": 1}], "bot": {"name": "dodge"}}, "`bot` needs the Pix3 runtime"),
            ({"until": []}, "pix3_game_run needs at least one `until` predicate"),
            ({"until": [{"kind": "frames", "n": 1}], "fixedDeltaSec": -1}, "`fixedDeltaSec` must be a finite number"),
        ]
        for spec, start in game_runs:
            answer = await call("pix3_game_run", spec)
            assert answer["reason"] == "refused" and answer["detail"].startswith(start), answer
        await page.evaluate("document.getElementById('pix3-stop').click()")
        assert (await call("pix3_play", {"action": "status"}))["playing"] is False
        assert (await call("pix3_sync", {}))["ok"] is True  # stopping drops what was pending

    await with_page(devtools, server.record()["editorUrl"], body)

    # a project without scenes: nothing is active
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "pix3project.yaml").write_text("version: 1.0.0\n")
    with dev_server(empty) as bare:

        async def no_scene(page: EditorPage) -> None:
            none = {"ok": False, "reason": "no_scene", "detail": "No active scene."}
            assert await page.call("pix3_scene") == none
            assert await page.call("pix3_screenshot", {"target": "viewport"}) == none
            assert await page.call("pix3_screenshot", {"target": "scene"}) == none
            started = await page.call("pix3_play", {"action": "start"})
            assert {k: started[k] for k in ("ok", "reason", "detail", "playing")} == {**none, "playing": False}
            assert (await page.call("pix3_status"))["activeScene"] is None

        await with_page(devtools, bare.record()["editorUrl"], no_scene)


async def test_unsaved_text_wins_and_sync_writes_it(server: DevServer, devtools: int, project: Path) -> None:
    text = "version: 1.0.0\nroot:\n  - id: draft\n    type: Label2D\n    name: Draft\n"
    level = "scenes/level.pix3scene"
    before = (project / level).read_text()

    async def body(page: EditorPage) -> None:
        await page.evaluate(f"window.__PIX3_TEST__.addUnsaved({json.dumps(level)}, {json.dumps(text)})")
        answer = await page.call("pix3_scene", {"path": level})
        assert [c["nodeId"] for c in answer["scene"]["children"]] == ["draft"]
        assert (project / level).read_text() == before
        status = await page.call("pix3_status")
        assert status["dirty"] == [f"res://{level}"] and status["pending"] == {level: ["text"]}
        assert status["openScenes"] == [MAIN, f"res://{level}"]
        synced = await page.call("pix3_sync", {"timeoutMs": 5000})
        assert (synced["ok"], synced["tabId"]) == (True, status["tabId"])
        assert (project / level).read_text() == text
        assert (await page.call("pix3_status"))["dirty"] == []

    try:
        await with_page(devtools, server.record()["editorUrl"] + "?test", body)
    finally:
        (project / level).write_text(before)
