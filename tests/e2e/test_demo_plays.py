"""The demo plays, end to end through real processes: `pix3 new demo` (what `just demo` makes),
`pix3 editor --headless`, `pix3 agent-setup claude`, and chrome-devtools-mcp 1.10.1 started as the
`.mcp.json` says. The agent plays the game and `pix3_game_run` passes on its score with a
snapshot; `pix3 smoke --all` (reusing the editor's headless Chrome) is ok with the game's script
run and frames drawn; an agent that changes a node property through the file API and calls
`pix3_sync` sees the change in the running game — its snapshot and its canvas — within a second
(docs/game-page.md, "Live edits")."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.chrome import chrome_wrapper
from tests.support.editor import start_headless_editor, stop_headless_editor
from tests.support.images import png_pixel, png_size
from tests.support.mcp import McpClient, execute, npx_shim
from tests.support.pix3 import pix3_env, run_pix3
from tests.support.ports import free_port
from tests.support.processes import Cleanup

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e, pytest.mark.slow]

SCENE = "scenes/main.pix3scene"
OLD_COLOUR, NEW_COLOUR = "#141a33", "#663311"
# The change shows in the running game within a second: 128-140 ms measured quiet (PUT, then
# pix3_sync through chrome-devtools-mcp). The game's own part must keep that bound; the whole round
# trip, which crosses node, the proxy and the page, is allowed twice it, as the suite runs in three
# workers on two cores (1.01 s seen once at load 10-20).
LIVE_WITHIN_S = 1.0
ROUND_TRIP_WITHIN_S = 2 * LIVE_WITHIN_S


def game_pixel(client: McpClient, page: int) -> str:
    """The colour at the game's centre (the design point (0, 0), the background there) as an agent
    sees it: the game frame fills the page (pix3_screenshot), then take_screenshot. The game runs
    in a renderer of its own, out of the editor page's reach: its pixels come from the screen."""
    assert execute(client, page, "pix3_screenshot", {"target": "game"})["ok"] is True
    picture = client.request("tools/call", {"name": "take_screenshot", "arguments": {"pageId": page}})
    [image] = [part for part in picture["result"]["content"] if part.get("type") == "image"]
    data = base64.b64decode(image["data"])
    width, height = png_size(data)
    red, green, blue = png_pixel(data, width // 2, height // 2)[:3]
    assert execute(client, page, "pix3_screenshot", {"target": "viewport"})["ok"] is True
    return f"#{red:02x}{green:02x}{blue:02x}"


def game_snapshot(client: McpClient, page: int) -> Any:
    """The game's snapshot now, as the agent reads it (a one-frame run)."""
    run = execute(client, page, "pix3_game_run", {"until": [{"kind": "frames", "n": 1}], "pauseOnOutcome": False})
    return run["game"]["snapshot"]


def test_the_demo_plays_for_an_agent(
    tmp_path: Path, pix3_home: Path, chromium: str, node_modules: Path, cleanup: Cleanup
) -> None:
    assert run_pix3("new", "demo", "pix3-demo", cwd=tmp_path).returncode == 0
    game = tmp_path / "pix3-demo"
    wrapper, _ = chrome_wrapper(tmp_path, chromium)
    cdp = free_port()
    env = {"PIX3_CHROME": str(wrapper), "PIX3_HOME": str(pix3_home)}
    record = start_headless_editor(game, env, pix3_home, cleanup, cdp)
    dev = json.loads((game / ".pix3" / "dev.json").read_text())
    assert run_pix3("agent-setup", "claude", "--cdp-port", str(cdp), cwd=game, env=env).returncode == 0
    entry = json.loads((game / ".mcp.json").read_text())["mcpServers"]["pix3-browser"]
    shim = npx_shim(tmp_path / "shim", node_modules)
    mcp_env = pix3_env({"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", "PIX3_HOME": str(pix3_home)})
    client = McpClient(entry["command"], entry["args"], mcp_env, game)
    try:
        client.initialize()
        pages = client.call_tool("list_pages", {})
        match = re.search(r"^(\d+): .*" + re.escape(dev["editorUrl"]), pages, re.MULTILINE)
        assert match is not None, pages
        page = int(match.group(1))
        client.call_tool("select_page", {"pageId": page})
        client.call_tool("list_3p_developer_tools", {"pageId": page})

        # Play: the game runs and scores by itself; the run passes on the score, with a snapshot
        started = execute(client, page, "pix3_play", {"action": "start"})
        assert (started["ok"], started["loaded"], started["playOwner"]) == (True, True, "agent"), started
        run = execute(
            client,
            page,
            "pix3_game_run",
            {"until": [{"kind": "gameStateChanged", "path": "score", "by": 1}], "fail": [{"kind": "newErrors"}],
             "maxWallMs": 20000, "pauseOnOutcome": False},
        )  # fmt: skip
        assert run["verdict"].startswith("PASS until[0] gameStateChanged score by +1"), run["verdict"]
        snapshot = run["game"]["snapshot"]
        assert run["game"]["provider"] == "pix3-demo" and snapshot["score"] >= 1
        assert set(snapshot["nodes"]) >= {"ship", "coin", "score", "background"}
        assert snapshot["nodes"]["score"]["label"] == f"SCORE {snapshot['score']}"
        assert run["metrics"]["frames"] > 10 and run["newErrors"] == []

        # pix3 smoke --all, beside the editor (its headless Chrome reused): the game runs clean
        smoked = run_pix3("smoke", "--all", "--json", cwd=game, env=env, timeout=120)
        report = json.loads(smoked.stdout)
        assert (smoked.returncode, report["ok"]) == (0, True), smoked.stdout + smoked.stderr
        (scene_run,) = report["runs"]
        assert scene_run["scene"] == SCENE and scene_run["errors"] == [] and scene_run["warnings"] == []
        notes = " ".join(scene_run["notes"])
        judged = re.search(
            r"The game page: 1 of 1 entry script ran, (\d+) frames drawn in (\d+) animation frames", notes
        )
        assert judged is not None, notes  # the one judge's words: the script ran, the game drew
        assert int(judged.group(1)) == scene_run["frames"] >= 60 and int(judged.group(2)) == 120, notes
        assert scene_run["game"]["snapshot"]["frame"] == scene_run["frames"]  # the game counted what it drew
        assert "the running Chrome owner on port" in notes, notes  # the editor's headless Chrome, reused

        # a live edit: the agent writes the background's colour through the file API, then syncs
        assert game_pixel(client, page) == OLD_COLOUR
        writer = execute(client, page, "pix3_status")["writerId"]
        text = (game / SCENE).read_text()
        assert text.count(f'color: "{OLD_COLOUR}"') == 1
        changed = text.replace(f'color: "{OLD_COLOUR}"', f'color: "{NEW_COLOUR}"').encode()
        with httpx.Client(base_url=dev["url"]) as files:  # a client made before the clock starts
            started_at = time.monotonic()
            put = files.put(
                "__pix3/api/file",
                params={"path": SCENE},
                content=changed,
                headers={"X-Pix3": "1", "X-Pix3-Writer": writer, "If-Match": hashlib.sha256(text.encode()).hexdigest()},
            )
            synced = execute(client, page, "pix3_sync", {"expect": {SCENE: put.json()["sha256"]}})
            elapsed = time.monotonic() - started_at
        assert put.status_code == 200, put.text
        # when pix3_sync answers ok, the running game has taken the change: its state and its pixels
        assert synced["ok"] is True and SCENE in synced["game"]["applied"], synced
        assert game_snapshot(client, page)["nodes"]["background"]["color"] == NEW_COLOUR
        assert game_pixel(client, page) == NEW_COLOUR
        print(f"live edit: PUT + pix3_sync {elapsed * 1000:.0f} ms, the game's reload {synced['game']['ms']} ms")
        took = f"PUT + pix3_sync took {elapsed:.2f} s ({synced['game']['ms']} ms in the game)"
        assert synced["game"]["ms"] < LIVE_WITHIN_S * 1000 and elapsed < ROUND_TRIP_WITHIN_S, took
        after = execute(client, page, "pix3_game_run", {"until": [{"kind": "frames", "n": 30}]})
        assert after["verdict"].startswith("PASS") and after["game"]["snapshot"]["reloads"] == 1
        assert after["game"]["snapshot"]["score"] >= snapshot["score"]  # the game went on, its state kept

        # a change the game cannot take live: its own script. The sync says so; a restart takes it
        (game / "src" / "game.js").write_text((game / "src" / "game.js").read_text() + "\n// touched\n")
        stale = execute(client, page, "pix3_sync", {})
        assert (stale["ok"], stale["reason"], stale["playing"], stale["pending"]) == (
            False, "stale", "agent", ["src/game.js"],
        ), stale  # fmt: skip
        assert execute(client, page, "pix3_play", {"action": "restart"})["ok"] is True
        assert execute(client, page, "pix3_sync", {})["ok"] is True
        assert execute(client, page, "pix3_play", {"action": "stop"})["ok"] is True
        assert execute(client, page, "pix3_errors")["count"] == 0
    finally:
        client.close()

    stop_headless_editor(game, env, record)
