"""Scripts of the game page that did not run, as CDP traces (docs/smoke.md, "Scripts that did not run").

One test per witness (an answer ≥ 400, no answer, the browser refusing a type, the page script's
element listener), the de-duplication between them, and the end-of-run findings (a page with no
script, a game that never asks for a frame). The same paths in real Chromium are in
tests/e2e/test_smoke_scripts.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pix3net.smoke._loads import DEFAULT_ADVICE, compile_advice, is_javascript_type
from tests.support.smoke_traces import ORIGIN, binding, frame, play, response

TS_REFUSED = (
    "Failed to load module script: Expected a JavaScript-or-Wasm module script but the server responded with a MIME"
    ' type of "text/plain". Strict MIME type checking is enforced for module scripts per HTML spec.'
)
LOADED: tuple[str, dict[str, Any]] = ("Page.loadEventFired", {})


def request(url: str, ident: str, kind: str = "Script") -> tuple[str, dict[str, Any]]:
    return "Network.requestWillBeSent", {"requestId": ident, "type": kind, "request": {"url": url}}


def answer(url: str, status: int, mime: str, ident: str, kind: str = "Script") -> tuple[str, dict[str, Any]]:
    return "Network.responseReceived", {
        "requestId": ident,
        "type": kind,
        "frameId": "F",
        "response": {"url": url, "status": status, "mimeType": mime},
    }


def log(text: str, url: str, level: str = "error", source: str = "javascript") -> tuple[str, dict[str, Any]]:
    return "Log.entryAdded", {"entry": {"source": source, "level": level, "text": text, "url": url}}


def element(src: str) -> tuple[str, dict[str, Any]]:
    return binding(kind="script-error", frame=0, src=src)


def finished(*events: tuple[str, dict[str, Any]], page: dict[str, Any] | None = None, **kw: Any) -> list[Any]:
    c = play(*events, **kw)
    c.finish(page if page is not None else {"scripts": 1, "callbackFrames": 3})
    return [(e["code"], e["message"], e["frame"]) for e in c.errors] + [
        (w["code"], w["message"], w["frame"]) for w in c.warnings
    ]


def test_typescript_refused_for_its_type_is_one_load_error_with_what_to_do() -> None:
    main = f"{ORIGIN}/src/main.ts"
    found = finished(
        request(main, "1"),
        answer(main, 200, "text/plain", "1"),
        log(TS_REFUSED, main),
        element(main),
        LOADED,
    )
    assert found == [
        (
            "E_SMOKE_LOAD",
            "the page's script res://src/main.ts did not run: it is TypeScript, which a browser cannot run, and"
            f" the dev server sent it uncompiled (text/plain); {DEFAULT_ADVICE}.",
            0,
        )
    ]


def test_the_refused_module_is_the_one_imported_not_the_entry() -> None:
    entry, game = f"{ORIGIN}/main.js", f"{ORIGIN}/games/Boss.tsx"
    found = finished(
        answer(entry, 200, "text/javascript", "1"),
        answer(game, 200, "text/plain; charset=utf-8", "2"),
        log(TS_REFUSED.replace('"text/plain"', '"text/plain; charset=utf-8"'), game),
        element(entry),
    )
    assert [(code, message.split(": it")[0]) for code, message, _ in found] == [
        ("E_SMOKE_LOAD", "the page's script res://games/Boss.tsx did not run")
    ]
    assert "it is TypeScript" in found[0][1] and "(text/plain)" in found[0][1]


def test_a_module_refused_for_a_type_that_is_not_typescript() -> None:
    data = f"{ORIGIN}/levels/one.json"
    found = finished(log(TS_REFUSED.replace("text/plain", "application/json"), data), element(data))
    assert found == [
        (
            "E_SMOKE_LOAD",
            "the page's script res://levels/one.json did not run: the browser runs a module only when it is"
            " served as JavaScript, and the dev server sent application/json.",
            0,
        )
    ]
    # A classic script refused (Chrome's other spelling), from another origin: named by its URL.
    classic = "https://cdn.example/lib.js"
    text = f"Refused to execute script from '{classic}' because its MIME type ('image/png') is not executable."
    assert "the dev server sent image/png." in finished(log(text, classic))[0][1]


def test_log_entries_that_are_not_a_refused_script_are_ignored() -> None:
    style = f"{ORIGIN}/style.css"
    assert (
        finished(
            log("Refused to apply style because its MIME type ('text/html') is not a supported stylesheet", style),
            log("Failed to load resource: the server responded with a status of 404 ()", f"{ORIGIN}/x.png"),
            log(TS_REFUSED, f"{ORIGIN}/a.ts", level="warning"),
            log(TS_REFUSED, ""),
            ("Log.entryAdded", {"entry": "garbage"}),
        )
        == []
    )


def test_an_answer_of_404_is_reported_once_whatever_else_says_so() -> None:
    entry = f"{ORIGIN}/nope.js"
    found = finished(
        request(entry, "1"),
        frame(0),
        answer(entry, 404, "text/plain", "1"),
        log("Failed to load resource: the server responded with a status of 404 ()", entry, source="network"),
        (
            "Network.loadingFailed",
            {"requestId": "1", "type": "Script", "errorText": "net::ERR_ABORTED", "canceled": True},
        ),
        element(entry),
    )
    assert found == [("E_SMOKE_LOAD", "the page's script res://nope.js did not load (HTTP 404).", 0)]


def test_a_script_that_got_no_answer() -> None:
    far = "http://127.0.0.1:9/x.js"
    found = finished(
        frame(2),
        request(far, "7"),
        frame(3),
        ("Network.loadingFailed", {"requestId": "7", "type": "Script", "errorText": "net::ERR_CONNECTION_REFUSED"}),
        element(far),
    )
    assert found == [("E_SMOKE_LOAD", f"the page's script {far} did not load (net::ERR_CONNECTION_REFUSED).", 2)]
    blocked = finished(
        request(f"{ORIGIN}/b.js", "8"),
        ("Network.loadingFailed", {"requestId": "8", "canceled": True, "blockedReason": "inspector"}),
    )
    assert blocked == [("E_SMOKE_LOAD", "the page's script res://b.js did not load (inspector).", 0)]
    # Not a script, or a request never seen: not this finding.
    other = finished(
        request(f"{ORIGIN}/a.png", "9", kind="Image"),
        ("Network.loadingFailed", {"requestId": "9", "errorText": "net::ERR_FAILED"}),
        ("Network.loadingFailed", {"requestId": "unknown", "errorText": "net::ERR_FAILED"}),
    )
    assert other == []


def test_an_element_that_did_not_run_with_nothing_else_to_say_why() -> None:
    entry = f"{ORIGIN}/main.js"
    found = finished(frame(0), element(entry))
    assert found == [
        (
            "E_SMOKE_LOAD",
            "the page's script res://main.js did not run: the browser could not load it or a module it imports.",
            0,
        )
    ]
    # Its answer is known and is not JavaScript: that is the reason given.
    typed = finished(answer(f"{ORIGIN}/src/main.mts", 200, "text/plain", "1"), element(f"{ORIGIN}/src/main.mts"))
    assert "it is TypeScript" in typed[0][1]
    inline = finished(element(""))
    assert inline == [
        (
            "E_SMOKE_LOAD",
            f"an inline script of the game page {ORIGIN}/ did not run: the browser could not load a module it imports.",
            0,
        )
    ]


def test_a_page_without_any_script_and_a_game_without_frames() -> None:
    none = finished(LOADED, frame(1), frame(2), page={"scripts": 0, "callbackFrames": 0})
    assert none == [
        (
            "E_SMOKE_LOAD",
            f"the game page {ORIGIN}/ has no script, so no game code ran; it needs an index.html that starts"
            ' the game (<script type="module" src="…">).',
            0,
        )
    ]
    idle = finished(LOADED, frame(1), frame(2), page={"scripts": 2, "callbackFrames": 0})
    assert idle == [
        (
            "W_SMOKE_NO_FRAMES",
            "the game never asked for an animation frame: no requestAnimationFrame callback ran in 2 frames,"
            " so the run saw the page load and no game loop.",
            2,
        )
    ]
    assert "ran in 1 frame," in finished(LOADED, frame(1), page={"scripts": 1, "callbackFrames": 0})[0][1]
    # Not raised: the game ran frames; --frames 0; the page did not load; the entry failed.
    assert finished(LOADED, frame(1), page={"scripts": 1, "callbackFrames": 1}) == []
    assert finished(LOADED, page={"scripts": 1, "callbackFrames": 0}, frames=0) == []
    assert finished(frame(1), page={"scripts": 0, "callbackFrames": 0}) == []
    failed = finished(LOADED, frame(1), element(f"{ORIGIN}/main.js"), page={"scripts": 1, "callbackFrames": 0})
    assert [code for code, _, _ in failed] == ["E_SMOKE_LOAD"]
    # No page answer (the end-of-run question timed out): only what the events said.
    c = play(LOADED, frame(1), element(f"{ORIGIN}/main.js"))
    c.finish(None)
    assert [e["code"] for e in c.errors] == ["E_SMOKE_LOAD"] and c.warnings == []


def test_a_module_that_does_not_parse_names_where() -> None:
    c = play(
        (
            "Runtime.exceptionThrown",
            {
                "exceptionDetails": {
                    "exceptionId": 1,
                    "text": "Uncaught",
                    "lineNumber": 0,
                    "columnNumber": 17,
                    "url": f"{ORIGIN}/games/broken.js",
                    "exception": {
                        "type": "object",
                        "subtype": "error",
                        "className": "SyntaxError",
                        "description": "SyntaxError: Unexpected token ';'",
                    },
                }
            },
        )
    )
    assert c.errors == [
        {
            "code": "E_SMOKE_SCRIPT",
            "message": "SyntaxError: Unexpected token ';'",
            "stack": f"SyntaxError: Unexpected token ';'\n    at {ORIGIN}/games/broken.js:1:18",
            "frame": 0,
        }
    ]


def test_the_advice_names_the_project_and_its_vite(tmp_path: Path) -> None:
    missing = compile_advice(tmp_path, None, "http://localhost:5173/")
    assert f"no node_modules/vite in {tmp_path} or above" in missing
    assert f"run npm install in {tmp_path}" in missing and "README.md" in missing
    vite = tmp_path / "node_modules/vite/bin/vite.js"
    stale = compile_advice(tmp_path, vite, "http://localhost:5173/")
    assert f"the dev server at http://localhost:5173/ serves the project folder without Vite although {vite}" in stale
    assert "restart it" in stale


def test_javascript_types() -> None:
    assert is_javascript_type("text/javascript; charset=utf-8") and is_javascript_type("Application/JavaScript")
    assert not is_javascript_type("text/plain") and not is_javascript_type("text/vnd.trolltech.linguist")
    assert not is_javascript_type("")


def test_a_404_still_counts_in_the_response_test() -> None:
    """The shared ``response`` helper (no media type) still gives the old answers."""
    c = play(response(f"{ORIGIN}/src/main.ts", 500, "Script", "i"))
    assert [e["message"] for e in c.errors] == ["the page's script res://src/main.ts did not load (HTTP 500)."]
