"""The smoke collector as traces: the game page's CDP events in, errors/warnings/logs out."""

from __future__ import annotations

from pix3net.smoke._collect import BINDING, LOG_LINES
from tests.support.smoke_traces import ORIGIN, binding, console, frame, play, response, thrown


def test_exception_is_stamped_with_its_frame() -> None:
    c = play(
        ("Page.loadEventFired", {}),
        frame(1),
        frame(29),
        frame(30),
        thrown("Error: boom at 30\n    at loop (http://localhost:5173/g.js:2:44)"),
        frame(31),
    )
    assert c.errors == [
        {
            "code": "E_SMOKE_SCRIPT",
            "message": "Error: boom at 30",
            "stack": "Error: boom at 30\n    at loop (http://localhost:5173/g.js:2:44)",
            "frame": 30,
        }
    ]
    assert c.frame == 31 and not c.finished and c.first_frame_ok()


def test_unhandled_rejection_and_its_revocation() -> None:
    c = play(
        thrown("Error: nobody waits for me\n    at x (g.js:1:1)", text="Uncaught (in promise)", ident=7),
        thrown("Error: handled later", text="Uncaught (in promise)", ident=8),
        ("Runtime.exceptionRevoked", {"reason": "Handler added to rejected promise", "exceptionId": 8}),
    )
    assert [(e["code"], e.get("phase"), e["message"]) for e in c.errors] == [
        ("E_SMOKE_UNHANDLED", "promise", "Error: nobody waits for me")
    ]


def test_thrown_values_that_are_not_errors() -> None:
    c = play(
        (
            "Runtime.exceptionThrown",
            {"exceptionDetails": {"text": "Uncaught", "exception": {"type": "string", "value": "plain"}}},
        ),
        (
            "Runtime.exceptionThrown",
            {"exceptionDetails": {"text": "Uncaught", "exception": {"type": "number", "value": 42}}},
        ),
        ("Runtime.exceptionThrown", {"exceptionDetails": {"text": "Uncaught SyntaxError: Unexpected token '}'"}}),
    )
    assert [e["message"] for e in c.errors] == ["plain", "42", "Uncaught SyntaxError: Unexpected token '}'"]


def test_console_levels() -> None:
    c = play(
        console("log", "hello"),
        console("info", "world"),
        console("error", "state is bad"),
        console("error", "Error: with a stack", "Error: with a stack\n    at f (g.js:1:1)"),
        console("warn", "careful"),
        console("warn", "careful"),
        console("warn", "Lit is in dev mode. Not recommended for production!"),
        console("warn", "[SceneLoader] could not read x"),
        console("warn", 'Component type "user:Nope" is not registered yet — kept as pending on node "Hero"'),
    )
    assert c.log_count == 2 and c.log_lines == ["[frame 0] hello", "[frame 0] world"]
    assert c.errors == [
        {"code": "E_SMOKE_CONSOLE_ERROR", "message": "state is bad", "frame": 0},
        {
            "code": "E_SMOKE_CONSOLE_ERROR",
            "message": "Error: with a stack",
            "stack": "Error: with a stack\n    at f (g.js:1:1)",
            "frame": 0,
        },
    ]
    assert c.warnings == [
        {"code": "W_SMOKE_CONSOLE_WARN", "frame": 0, "message": "careful", "count": 2},
        {"code": "W_SMOKE_LOADER", "frame": 0, "message": "[SceneLoader] could not read x"},
        {
            "code": "W_SMOKE_PENDING_COMPONENT",
            "frame": 0,
            "message": 'user:Nope on node "Hero" is not registered — it never runs.',
        },
    ]


def test_the_runtime_reporting_a_script_throw() -> None:
    c = play(
        console("error", '[NodeBase] Script "user:StartBoom" threw in onStart: Error: start went wrong'),
        console("error", "[SceneRunner] Error during game update: Error: x"),
        console("error", "[GameCommands] handler threw"),
    )
    assert c.errors == [
        {
            "code": "E_SMOKE_SCRIPT",
            "phase": "start",
            "message": "Error: start went wrong",
            "script": "user:StartBoom",
            "frame": 0,
        },
        {"code": "E_SMOKE_TICK", "message": "[SceneRunner] Error during game update: Error: x", "frame": 0},
        {"code": "E_SMOKE_COMMAND", "message": "[GameCommands] handler threw", "frame": 0},
    ]


def test_logs_keep_the_first_lines_and_count_all() -> None:
    c = play(*[console("log", f"line {i}") for i in range(LOG_LINES + 5)])
    assert c.log_count == LOG_LINES + 5 and len(c.log_lines) == LOG_LINES


def test_failed_requests() -> None:
    c = play(
        frame(1),
        ("Network.requestWillBeSent", {"requestId": "a", "type": "Fetch"}),
        frame(5),
        response(f"{ORIGIN}/sprites/missing-coin.png", 404, "Fetch", "a"),
        response(f"{ORIGIN}/sprites/missing-coin.png", 404, "Image", "b"),
        response(f"{ORIGIN}/art/broken.png", 500, "Image", "c"),
        response(f"{ORIGIN}/favicon.ico", 404, "Other", "d"),
        response(f"{ORIGIN}/@vite/client", 404, "Script", "e"),
        response(f"{ORIGIN}/node_modules/x.png", 404, "Image", "f"),
        response("https://cdn.example/x.png", 404, "Image", "g"),
        response(f"{ORIGIN}/ok.png", 200, "Image", "h"),
        response(f"{ORIGIN}/src/main.ts", 500, "Script", "i"),
    )
    assert c.warnings == [
        {
            "code": "W_SMOKE_MISSING_RESOURCE",
            "frame": 1,
            "message": "res://sprites/missing-coin.png does not exist (the page's fetch request got HTTP 404).",
        },
        {
            "code": "W_SMOKE_MISSING_RESOURCE",
            "frame": 5,
            "message": "res://sprites/missing-coin.png does not exist (the page's image request got HTTP 404).",
        },
        {
            "code": "W_SMOKE_MISSING_RESOURCE",
            "frame": 5,
            "message": "res://art/broken.png could not be loaded (the page's image request got HTTP 500).",
        },
    ]
    assert c.errors == [
        {
            "code": "E_SMOKE_LOAD",
            "message": f"the page's script {ORIGIN}/@vite/client did not load (HTTP 404).",
            "frame": 5,
        },
        {"code": "E_SMOKE_LOAD", "message": "the page's script res://src/main.ts did not load (HTTP 500).", "frame": 5},
    ]
    assert not c.load_failed


def test_the_game_page_itself_failing_ends_the_run() -> None:
    c = play(response(f"{ORIGIN}/?scene=x", 404, "Document", frame_id="TARGET"))
    assert c.load_failed and c.finished and not c.first_frame_ok()
    assert c.errors[0]["code"] == "E_SMOKE_LOAD"
    assert "answered HTTP 404" in c.errors[0]["message"]
    iframe = play(response(f"{ORIGIN}/frame.html", 404, "Document", frame_id="CHILD"))
    assert not iframe.load_failed


def test_done_crash_and_first_frame() -> None:
    done = play(("Page.loadEventFired", {}), frame(1), frame(2), binding(kind="done", frame=2), frames=2)
    assert done.finished and done.first_frame_ok()
    late = play(("Page.loadEventFired", {}), frame(1), frame(2), thrown("Error: x"), frames=2)
    assert late.first_frame_ok()
    early = play(("Page.loadEventFired", {}), frame(1), thrown("Error: x"), frames=2)
    assert not early.first_frame_ok()
    zero = play(("Page.loadEventFired", {}), binding(kind="done", frame=0), frames=0)
    assert zero.first_frame_ok()
    not_loaded = play(frames=0)
    assert not not_loaded.first_frame_ok()
    crashed = play(frame(3), ("Inspector.targetCrashed", {}))
    assert crashed.crashed and crashed.finished


def test_foreign_bindings_and_garbage_are_ignored() -> None:
    c = play(
        ("Runtime.bindingCalled", {"name": "somethingElse", "payload": '{"kind":"done"}'}),
        ("Runtime.bindingCalled", {"name": BINDING, "payload": "not json"}),
        ("Runtime.bindingCalled", {"name": BINDING, "payload": "[1]"}),
        ("Runtime.bindingCalled", {"name": BINDING, "payload": '{"kind":"frame","frame":"7"}'}),
    )
    assert not c.done and c.frame == 0 and not c.errors
