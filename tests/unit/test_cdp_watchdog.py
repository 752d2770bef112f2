"""The owner's watchdog as traces: messages of its session and the clock in, messages out
(pix3net/owner/proxy/watchdog.py; docs/chrome-owner.md, "The watchdog")."""

from __future__ import annotations

import json
from typing import Any

from pix3net.owner.proxy.watchdog import (
    HEARTBEAT_SECONDS,
    HUNG_SECONDS,
    MAPS_SECONDS,
    PAUSE_SECONDS,
    REOPEN_SECONDS,
    FetchMap,
    Log,
    ReplaceEditor,
    Send,
    WatchAction,
    Watchdog,
)
from tests.support.sourcemaps import inline_map, source_map

EDITOR = "EDITOR"
GAME_URL = "http://127.0.0.1:5173/src/game.js"


def sent(actions: list[WatchAction]) -> list[dict[str, Any]]:
    return [json.loads(a.text) for a in actions if isinstance(a, Send)]


def methods(actions: list[WatchAction]) -> list[str]:
    return [m["method"] for m in sent(actions)]


def event(method: str, params: dict[str, Any], session: str | None = None) -> str:
    body: dict[str, Any] = {"method": method, "params": params}
    if session is not None:
        body["sessionId"] = session
    return json.dumps(body)


def reply(ident: int, session: str | None = None) -> str:
    body: dict[str, Any] = {"id": ident, "result": {"id": "isolate"}}
    if session is not None:
        body["sessionId"] = session
    return json.dumps(body)


def paused(script: str = "7", line: int = 4, column: int = 2, name: str = "frame") -> dict[str, Any]:
    frame = {
        "functionName": name,
        "url": "",
        "location": {"scriptId": script, "lineNumber": line, "columnNumber": column},
    }
    caller = {"functionName": "", "url": "", "location": {"scriptId": script, "lineNumber": 7, "columnNumber": 0}}
    return {"callFrames": [frame, caller], "reason": "other"}


def parsed(script: str = "7", url: str = GAME_URL, map_url: str = "", frame: str = EDITOR) -> dict[str, Any]:
    aux = {"isDefault": True, "type": "default", "frameId": frame}
    return {"scriptId": script, "url": url, "sourceMapURL": map_url, "executionContextAuxData": aux}


def report_of(actions: list[WatchAction]) -> dict[str, Any]:
    [evaluate] = [m for m in sent(actions) if m["method"] == "Runtime.evaluate"]
    assert "sessionId" not in evaluate  # told to the editor page, on the root session
    expression = evaluate["params"]["expression"]
    assert expression.startswith('typeof window.__PIX3_OWNER_REPORT__ === "function" && void ')
    value: dict[str, Any] = json.loads(expression[expression.index("(") + 1 : -1])
    return value


def hang(dog: Watchdog, session: str | None = None, start: float = 0.0) -> tuple[float, int]:
    """Let a heartbeat go unanswered until the pause: the moment of the pause and the heartbeat's id."""
    [ask] = sent(dog.tick(start + HEARTBEAT_SECONDS))
    assert ask["method"] == "Runtime.getIsolateId" and ask.get("sessionId") == session
    at = start + HUNG_SECONDS
    assert dog.due() == at
    assert methods(dog.tick(at - 0.01)) == []
    assert methods(dog.tick(at)) == ["Debugger.pause"]
    return at, int(ask["id"])


def test_it_enables_the_debugger_up_front_with_breakpoints_off_and_attaches_frames() -> None:
    dog = Watchdog(EDITOR, 0.0)
    out = sent(dog.start())
    assert [m["method"] for m in out] == ["Debugger.enable", "Debugger.setBreakpointsActive", "Target.setAutoAttach"]
    assert out[0]["params"] == {"maxScriptsCacheSize": 0}  # it keeps no collected script's source
    assert out[1]["params"] == {"active": False}
    assert out[2]["params"]["filter"] == [{"type": "iframe"}] and out[2]["params"]["waitForDebuggerOnStart"] is False
    assert all("sessionId" not in m for m in out)


def test_one_heartbeat_a_second_at_most_and_never_two_in_flight() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    asked = 0
    now = 0.0
    while now < 60.0:
        now = dog.due()
        out = sent(dog.tick(now))
        assert [m["method"] for m in out] in ([], ["Runtime.getIsolateId"])
        for message in out:
            asked += 1
            assert methods(dog.tick(now + 0.5)) == []  # still in flight: no second one
            dog.feed(reply(message["id"]), now + 0.001)
    assert 55 <= asked <= 60


def test_a_held_thread_is_paused_named_ended_and_reported() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    dog.feed(event("Debugger.scriptParsed", parsed(frame="GAMEFRAME")), 0.1)
    at, _ = hang(dog)
    assert dog.silent_since(at) == 0.0
    out = dog.feed(event("Debugger.paused", paused()), at + 0.01)
    assert methods(out) == ["Runtime.terminateExecution", "Debugger.resume", "Runtime.evaluate"]
    report = report_of(out)
    # A same-process game frame inside the editor page is the game's.
    assert report == {
        "kind": "hung",
        "target": "game",
        "where": "frame() at src/game.js:5:3",
        "frames": [
            {"functionName": "frame", "url": "src/game.js", "line": 5, "column": 3},
            {"functionName": "(anonymous)", "url": "src/game.js", "line": 8, "column": 1},
        ],
        "heldMs": 2010,
    }
    assert any(isinstance(a, Log) and "busy in frame() at src/game.js:5:3" in a.text for a in out)


def test_the_editor_pages_own_loop_is_the_editors_and_it_answers_again() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    dog.feed(event("Debugger.scriptParsed", parsed(url="http://localhost:5173/__pix3/page/app.js")), 0.1)
    at, asked = hang(dog)
    out = dog.feed(event("Debugger.paused", paused()), at)
    assert report_of(out)["target"] == "editor"
    assert "Runtime.getIsolateId" not in methods(out)  # the one asked before the hold is in flight
    back = dog.feed(reply(asked), at + 0.05)
    assert any(isinstance(a, Log) and "answers again" in a.text for a in back)
    assert dog.silent_since(at + 0.05) is None


def test_a_thread_busy_outside_javascript_is_ended_without_a_place() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    at, _ = hang(dog)
    out = dog.tick(at + PAUSE_SECONDS)
    assert methods(out) == ["Runtime.terminateExecution", "Runtime.evaluate"]
    assert report_of(out)["where"] is None


def test_a_thread_that_frees_itself_before_the_pause_lands_is_left_alone() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    [ask] = sent(dog.tick(HEARTBEAT_SECONDS))
    dog.tick(HUNG_SECONDS)
    dog.feed(reply(ask["id"]), HUNG_SECONDS + 0.1)
    # Our pause is still armed for the next script: it is dropped, nothing is ended.
    out = dog.tick(HUNG_SECONDS + PAUSE_SECONDS)
    assert methods(out) == ["Debugger.disable", "Debugger.enable", "Debugger.setBreakpointsActive"]
    assert "Runtime.terminateExecution" not in methods(out)


def test_the_next_script_stopped_by_a_pause_that_came_late_is_resumed_not_ended() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    [ask] = sent(dog.tick(HEARTBEAT_SECONDS))
    dog.tick(HUNG_SECONDS)
    dog.feed(reply(ask["id"]), HUNG_SECONDS + 0.1)
    out = dog.feed(event("Debugger.paused", paused()), HUNG_SECONDS + 0.2)
    assert methods(out) == ["Debugger.resume"]


def test_a_clients_own_pause_is_not_the_watchdogs_to_end() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    assert dog.feed(event("Debugger.paused", paused()), 0.5) == []


def test_an_editor_tab_that_does_not_come_back_is_replaced() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    at, _ = hang(dog)
    dog.feed(event("Debugger.paused", paused()), at)
    assert dog.tick(at + REOPEN_SECONDS - 0.01) == []
    assert dog.silent_since(at + 1) == 0.0
    out = dog.tick(at + REOPEN_SECONDS)
    assert [a for a in out if isinstance(a, ReplaceEditor)], out


def test_a_game_frame_is_watched_on_its_own_session_and_its_crash_told() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    info = {"targetId": "GAME", "type": "iframe", "url": "http://127.0.0.1:5173/game.html"}
    setup = sent(dog.feed(event("Target.attachedToTarget", {"sessionId": "S1", "targetInfo": info}), 0.0))
    assert [(m["method"], m["sessionId"]) for m in setup] == [
        ("Debugger.enable", "S1"),
        ("Debugger.setBreakpointsActive", "S1"),
        ("Inspector.enable", "S1"),
    ]
    # The editor answers; the game does not.
    for message in sent(dog.tick(HEARTBEAT_SECONDS)):
        if "sessionId" not in message:
            dog.feed(reply(message["id"]), HEARTBEAT_SECONDS + 0.001)
    dog.feed(event("Debugger.scriptParsed", parsed(frame="GAME"), "S1"), 0.1)
    pause = [m for m in sent(dog.tick(HUNG_SECONDS)) if m["method"] == "Debugger.pause"]
    assert [m["sessionId"] for m in pause] == ["S1"]
    out = dog.feed(event("Debugger.paused", paused(), "S1"), HUNG_SECONDS)
    assert [(m["method"], m.get("sessionId")) for m in sent(out)] == [
        ("Runtime.terminateExecution", "S1"),
        ("Debugger.resume", "S1"),
        ("Runtime.evaluate", None),
    ]
    assert report_of(out)["target"] == "game"
    crash = dog.feed(event("Inspector.targetCrashed", {}, "S1"), 5.0)
    assert report_of(crash) == {"kind": "crashed", "target": "game", "reason": "the game frame's renderer crashed"}
    dog.feed(event("Target.detachedFromTarget", {"sessionId": "S1"}), 5.1)
    assert dog.watched == 1


def test_frames_go_through_inline_and_served_source_maps() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    inline = inline_map("game.ts", [(4, 0, 14, 4)])
    dog.feed(event("Debugger.scriptParsed", parsed("7", map_url=inline)), 0.1)
    dog.feed(event("Debugger.scriptParsed", parsed("8", url="http://127.0.0.1:5173/src/b.js", map_url="b.js.map")), 0.1)
    at, _ = hang(dog)
    frames = paused()
    frames["callFrames"][1]["location"]["scriptId"] = "8"
    out = dog.feed(event("Debugger.paused", frames), at)
    assert out == [FetchMap("http://127.0.0.1:5173/src/b.js.map")]  # the script stays paused meanwhile
    done = dog.map_loaded("http://127.0.0.1:5173/src/b.js.map", source_map("b.ts", [(7, 0, 1, 0)]), at + 0.1)
    report = report_of(done)
    assert report["where"] == "frame() at src/game.ts:15:5"
    assert report["frames"][1]["url"] == "src/b.ts" and report["frames"][1]["line"] == 2


def test_a_map_that_does_not_come_in_time_leaves_the_served_place() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    dog.feed(event("Debugger.scriptParsed", parsed(map_url="game.js.map")), 0.1)
    at, _ = hang(dog)
    dog.feed(event("Debugger.paused", paused()), at)
    out = dog.tick(at + MAPS_SECONDS)
    assert report_of(out)["where"] == "frame() at src/game.js:5:3"


def test_a_map_elsewhere_than_loopback_is_never_fetched() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    dog.feed(event("Debugger.scriptParsed", parsed(map_url="https://attacker.example/x.map")), 0.1)
    at, _ = hang(dog)
    out = dog.feed(event("Debugger.paused", paused()), at)
    assert not [a for a in out if isinstance(a, FetchMap)]
    assert report_of(out)["where"] == "frame() at src/game.js:5:3"


def test_a_pause_whose_clients_left_is_resumed_when_asked() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    dog.feed(event("Debugger.paused", paused()), 0.5)
    assert dog.held() == [EDITOR]
    out = dog.release(EDITOR)
    assert methods(out) == ["Debugger.resume"] and dog.held() == []
    dog.feed(event("Debugger.paused", paused()), 0.6)
    dog.feed(event("Debugger.resumed", {}), 0.7)  # its client resumed it itself
    assert dog.held() == [] and dog.release(EDITOR) == []
