"""pix3_play, pix3_game_run, pix3_errors and pix3_screenshot against plain-JavaScript fixture
games in real Chromium: one that throws on every 30th animation frame, one that never throws."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import trio

from tests.support.devserver import DevServer, dev_server
from tests.support.devtools import chromium_with_port
from tests.support.editor_page import EditorPage, editor_page, make_game_project

pytestmark = [pytest.mark.chromium, pytest.mark.e2e, pytest.mark.slow]

# Resolves after N animation frames of the page (the game's frame, in its own process, is drawn at
# the same display rate): the frames a running game would have stepped on. (The game window's own requestAnimationFrame is held while paused.)
ANIMATION_FRAMES = """new Promise(done => {
  let seen = 0;
  const tick = () => (++seen >= N ? done(true) : requestAnimationFrame(tick));
  requestAnimationFrame(tick);
})"""

MAIN = "res://scenes/main.pix3scene"
FAIL_ON_ERRORS = {
    "until": [{"kind": "gameState", "path": "frame", "op": ">=", "value": 100}],
    "fail": [{"kind": "newErrors"}],
}


@pytest.fixture(scope="module")
def devtools(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[int]:
    with chromium_with_port(chromium, tmp_path_factory.mktemp("profile")) as port:
        yield port


@pytest.fixture(scope="module")
def throwing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    with dev_server(make_game_project(tmp_path_factory.mktemp("throwing") / "game", throw_every=30)) as server:
        yield server


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    with dev_server(make_game_project(tmp_path_factory.mktemp("clean") / "game")) as server:
        yield server


async def with_page(devtools: int, url: str, body: Any) -> None:
    async with trio.open_nursery() as nursery:
        async with editor_page(devtools, url, nursery) as page:
            await body(page)
        nursery.cancel_scope.cancel()


async def test_a_throwing_game_fails_within_30_frames(throwing: DevServer, devtools: int) -> None:
    async def body(page: EditorPage) -> None:
        started = await page.call("pix3_play", {"action": "start"})
        assert started["ok"] is True, started  # a refusal shows whole
        assert {k: started[k] for k in ("ok", "loaded", "url", "playing", "status", "playOwner", "scene")} == {
            "ok": True,
            "loaded": True,
            "url": "/?scene=res%3A%2F%2Fscenes%2Fmain.pix3scene",
            "playing": True,
            "status": "running",
            "playOwner": "agent",
            "scene": MAIN,
        }
        # the game page learnt its scene from the query
        src = await page.evaluate("document.querySelector('#pix3-game-stage iframe').src")
        assert src.endswith("/?scene=res%3A%2F%2Fscenes%2Fmain.pix3scene")
        await page.call("pix3_errors", {"clear": True})
        run = await page.call("pix3_game_run", FAIL_ON_ERRORS)
        outcome = run["outcome"]
        assert (outcome["kind"], outcome["channel"], outcome["index"], outcome["assertion"]) == (
            "fail",
            "fail",
            0,
            "newErrors",
        )
        assert 1 <= outcome["frame"] <= 30, outcome
        game_frame = run["game"]["snapshot"]["frame"]
        assert game_frame % 30 == 0
        message = f"Uncaught Error: boom at frame {game_frame}"
        assert outcome["detail"] == f"1 new error: {message}"
        assert run["verdict"].startswith(f"FAIL fail[0] newErrors (frame {outcome['frame']}, ")
        assert run["verdict"].endswith(f"real time) — 1 new error: {message}. 1 new runtime error(s).")
        assert run["newErrors"] == [{"source": "window.onerror", "message": message}]
        assert run["metrics"]["frames"] == outcome["frame"] and run["metrics"]["newErrors"] == 1
        assert run["game"]["provider"] == "fixture" and run["game"]["snapshot"]["scene"] == MAIN
        assert run["assertions"] == {"until": ["gameState frame gte 100"], "fail": ["newErrors"]}
        assert run["time"]["ranIn"] == "realtime" and run["time"]["leftPaused"] is True
        assert any(e["kind"] == "error" and e["note"] == message for e in run["timeline"])
        assert (await page.call("pix3_play", {"action": "status"}))["status"] == "paused"

        errors = await page.call("pix3_errors", {})
        assert errors["count"] == 1
        entry = errors["errors"][0]
        assert (entry["source"], entry["message"], entry["origin"], entry["frame"]) == (
            "window.onerror",
            message,
            "game",
            outcome["frame"],
        )
        assert "game.js" in entry["stack"]
        assert (await page.call("pix3_errors", {"since": entry["at"]}))["count"] == 0
        assert (await page.call("pix3_errors", {"clear": True}))["count"] == 1
        assert await page.call("pix3_errors", {}) == {"ok": True, "count": 0, "errors": []}
        # the error panel showed it and shows the cleared buffer now
        await page.page.wait_for("document.querySelector('#pix3-errors li').textContent === 'No errors.'")

        # a paused game is resumed for the next run; the console.error of the page counts too
        await page.evaluate("console.error('from the page', new TypeError('bad'))")
        logged = (await page.call("pix3_errors", {}))["errors"][0]
        assert (logged["source"], logged["message"], logged["origin"]) == (
            "console.error",
            "from the page TypeError: bad",
            "page",
        )
        # the game's warnings and unhandled rejections are collected too
        await page.game_evaluate(
            "(() => { const w = document.querySelector('iframe').contentWindow;"
            " w.console.warn('low fuel', 3); w.Promise.reject(new w.RangeError('out of range')); })()"
        )
        await page.page.wait_for("window.__PIX3_DEBUG__.errors().length === 3")
        game_side = [
            (e["source"], e["message"], e["origin"]) for e in (await page.call("pix3_errors", {}))["errors"][1:]
        ]
        assert game_side == [
            ("console.warn", "low fuel 3", "game"),
            ("unhandledrejection", "RangeError: out of range", "game"),
        ]
        again = await page.call("pix3_game_run", {**FAIL_ON_ERRORS, "pauseOnOutcome": False})
        assert again["outcome"]["kind"] == "fail"
        assert "The game was paused when the run started; it was resumed so that its frames run." in again["notes"]
        assert again["time"]["leftPaused"] is True  # it was paused before: left as found
        assert (await page.call("pix3_play", {"action": "stop"}))["ok"] is True

    await with_page(devtools, throwing.record()["editorUrl"], body)


async def test_a_clean_game_passes(clean: DevServer, devtools: int) -> None:
    async def body(page: EditorPage) -> None:
        assert (await page.call("pix3_play", {"action": "start", "scenePath": "res://scenes/level.pix3scene"}))["ok"]
        run = await page.call(
            "pix3_game_run",
            {"until": [{"kind": "gameStateChanged", "path": "frame", "by": 30}], "fail": [{"kind": "newErrors"}]},
        )
        assert run["outcome"]["kind"] == "until" and run["outcome"]["frame"] >= 30, run
        assert run["verdict"].startswith(
            f"PASS until[0] gameStateChanged frame by +30 (frame {run['outcome']['frame']}, "
        )
        assert run["newErrors"] == [] and run["game"]["snapshot"]["scene"] == "res://scenes/level.pix3scene"
        assert run["game"]["changed"]["frame"][1] - run["game"]["changed"]["frame"][0] >= 30
        assert run["metrics"]["framesPerSecond"] > 0

        # the run left it paused: pause keeps it paused (both pause and resume are idempotent)
        kept = await page.call("pix3_play", {"action": "pause"})
        assert (kept["ok"], kept["paused"], kept["status"]) == (True, True, "paused")
        resumed = await page.call("pix3_play", {"action": "resume"})
        assert (resumed["ok"], resumed["paused"], resumed["status"]) == (True, False, "running")
        assert (await page.call("pix3_play", {"action": "resume"}))["status"] == "running"
        frames = await page.call("pix3_game_run", {"until": [{"kind": "frames", "n": 5}], "pauseOnOutcome": False})
        assert frames["outcome"]["kind"] == "until" and frames["outcome"]["frame"] == 5
        assert frames["time"]["leftPaused"] is False

        already = await page.call("pix3_game_run", {"until": [{"kind": "frames", "n": 0}]})
        assert already["outcome"]["kind"] == "precondition-already-met"
        assert already["verdict"].startswith("PRECONDITION ALREADY MET: until[0] frames 0 is ALREADY TRUE at frame 0")

        timeout = await page.call(
            "pix3_game_run",
            {"until": [{"kind": "gameState", "path": "scene", "op": "eq", "value": "x"}], "maxFrames": 8},
        )
        assert timeout["outcome"]["kind"] == "timeout" and timeout["outcome"]["frame"] == 8
        assert timeout["verdict"].startswith("TIMEOUT after 8 frames (")
        assert (
            'no until predicate fired within the 8-frame budget. scene = "res://scenes/level.pix3scene"'
            in (timeout["verdict"])
        )

        refused = await page.call(
            "pix3_game_run",
            {"until": [{"kind": "nodeProperty", "name": "Score", "path": "text", "op": "eq", "value": 3}]},
        )
        assert refused == {
            "ok": False,
            "reason": "refused",
            "detail": "until[0] nodeProperty needs the Pix3 runtime's live node graph, which this editor page does not"
            " have (the game runs as a page in a frame); judge the game through the snapshot it offers"
            ' ({kind:"gameState", path, op, value}, docs/game-page.md) or with newErrors / frames.',
        }

        # the run paused the game (pauseOnOutcome); resume lets it run, pause holds its frames again
        assert (await page.call("pix3_play", {"action": "status"}))["status"] == "paused"
        assert (await page.call("pix3_play", {"action": "resume"}))["status"] == "running"
        paused = await page.call("pix3_play", {"action": "pause"})
        assert (paused["ok"], paused["paused"], paused["status"]) == (True, True, "paused")
        frame = await page.game_evaluate(
            "document.querySelector('iframe').contentWindow.__PIX3_GAME_DEBUG__.snapshot().frame"
        )
        await page.evaluate(ANIMATION_FRAMES.replace("N", "18"))  # ~0.3 s of frames it could have stepped
        assert (
            await page.game_evaluate(
                "document.querySelector('iframe').contentWindow.__PIX3_GAME_DEBUG__.snapshot().frame"
            )
            <= frame + 1
        )
        resumed = await page.call("pix3_play", {"action": "resume"})
        assert (resumed["paused"], resumed["status"]) == (False, "running")
        await page.game_wait_for(
            f"document.querySelector('iframe').contentWindow.__PIX3_GAME_DEBUG__.snapshot().frame > {frame + 10}"
        )

        # the game frame fills the viewport for take_screenshot, and comes back
        shot = await page.call("pix3_screenshot", {"target": "game"})
        assert shot == {
            "ok": True,
            "target": "game",
            "next": "take_screenshot",
            "prepared": 'The game frame (res://scenes/level.pix3scene) fills the page; pix3_screenshot {target:"viewport"} brings the editor back.',
        }
        box = await page.evaluate(
            "(() => { const r = document.querySelector('iframe').getBoundingClientRect();"
            " return [r.left, r.top, r.width === innerWidth, r.height === innerHeight]; })()"
        )
        assert box == [0, 0, True, True]
        back = await page.call("pix3_screenshot", {"target": "viewport"})
        assert back["prepared"] == f"The editor page with the node tree and the scene view of {MAIN}."
        assert await page.evaluate("document.body.classList.contains('view-game')") is False

        # restart starts the active scene; stop ends it and the frame goes away
        restarted = await page.call("pix3_play", {"action": "restart"})
        assert (restarted["ok"], restarted["scene"], restarted["playOwner"]) == (True, MAIN, "agent")
        assert (await page.call("pix3_play", {"action": "stop"}))["playing"] is False
        assert await page.evaluate("document.querySelector('#pix3-game-stage iframe')") is None
        assert (await page.call("pix3_status"))["play"]["playing"] is False

    await with_page(devtools, clean.record()["editorUrl"], body)


async def test_stopping_mid_run_ends_the_run(clean: DevServer, devtools: int) -> None:
    async def body(page: EditorPage) -> None:
        await page.call("pix3_play", {"action": "start"})
        await page.evaluate(
            "void (window.__run = window.__PIX3_DEBUG__.call('pix3_game_run',"
            " {until: [{kind: 'frames', n: 3000}], maxWallMs: 60000}))"
        )
        await trio.sleep(0.3)
        assert await page.call("pix3_game_run", {"until": [{"kind": "frames", "n": 1}]}) == {
            "ok": False,
            "reason": "refused",
            "detail": "Another pix3_game_run is in progress; wait for its answer.",
        }
        await page.evaluate("document.getElementById('pix3-stop').click()")
        run = await page.evaluate("window.__run")
        assert run["outcome"]["kind"] == "error", run["verdict"]
        assert run["verdict"].startswith("ERROR: the game stopped at frame ")
        assert run["verdict"].endswith("The run was abandoned; 1 until predicate(s) were never decided.")

    await with_page(devtools, clean.record()["editorUrl"], body)
