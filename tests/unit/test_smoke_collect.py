"""What only CDP sees of a smoke run, as traces: the game page's CDP events in, the facts the
shared rules are given (``Collector.context``) and the calls to make out. The page's own facts
and the rules are judge.js's, tested in tests/unit/game_judge.test.mjs."""

from __future__ import annotations

from tests.support.smoke_traces import ORIGIN, beat, binding, end, navigated, play, request, response


def test_the_probe_says_when_the_run_is_over() -> None:
    c, calls = play(beat(3), beat(29), end("done", 30))
    assert (c.frame, c.ended, c.finished, calls) == (29, "done", True, [])
    for why in ("navigation", "document"):
        assert play(end(why))[0].ended == why


def test_a_dialog_the_probe_did_not_answer_is_answered_here_and_reported() -> None:
    c, calls = play(
        beat(7),
        ("Page.javascriptDialogOpening", {"url": ORIGIN, "message": "Leave?", "type": "beforeunload"}),
        ("Page.javascriptDialogOpening", {"message": "name?", "type": "prompt", "defaultPrompt": "Ada"}),
    )
    assert calls == [
        ("Page.handleJavaScriptDialog", {"accept": True}),
        ("Page.handleJavaScriptDialog", {"accept": True, "promptText": "Ada"}),
    ]
    assert c.dialogs == [
        {"type": "beforeunload", "text": "Leave?", "frame": 7, "open": True},
        {"type": "prompt", "text": "name?", "frame": 7, "open": True},
    ]
    assert not c.finished and c.context("advice")["dialogs"] == c.dialogs
    # answered: a timeout no longer says the page was blocked by them
    c.feed("Page.javascriptDialogClosed", {"result": True, "userInput": ""})
    assert [d.get("open") for d in c.dialogs] == [None, None]


def test_what_the_network_saw_of_failed_requests() -> None:
    far = "http://127.0.0.1:9/x.js"
    c, _ = play(
        request(far, "7"),
        ("Network.loadingFailed", {"requestId": "7", "type": "Script", "errorText": "net::ERR_CONNECTION_REFUSED"}),
        request(f"{ORIGIN}/b.js", "8"),
        ("Network.loadingFailed", {"requestId": "8", "canceled": True, "blockedReason": "inspector"}),
        request(f"{ORIGIN}/gone.js", "9"),
        response(f"{ORIGIN}/gone.js", 404, "9"),
        # Chrome drops the body of an answer >= 400: a cancel that is no failure of its own
        ("Network.loadingFailed", {"requestId": "9", "errorText": "net::ERR_ABORTED", "canceled": True}),
        request(f"{ORIGIN}/ok.js", "10"),
        response(f"{ORIGIN}/ok.js", 200, "10"),
        ("Network.loadingFailed", {"requestId": "unknown", "errorText": "net::ERR_FAILED"}),
    )
    assert c.network == {
        far: "net::ERR_CONNECTION_REFUSED",
        f"{ORIGIN}/b.js": "inspector",
        f"{ORIGIN}/gone.js": "HTTP 404",
    }
    assert not c.finished


def test_a_navigation_the_probe_could_not_stop_ends_the_run() -> None:
    c, _ = play(navigated("L1", f"{ORIGIN}/?scene=x"), navigated("C1", f"{ORIGIN}/frame.html", "CHILD", "TARGET"))
    assert not c.finished and c.left is None  # the game page itself, then a frame inside it
    c, _ = play(navigated("L1", f"{ORIGIN}/?scene=x"), navigated("L1", f"{ORIGIN}/?scene=x#top"))
    assert c.left is None  # the same document (a fragment)
    c, _ = play(navigated("L1", f"{ORIGIN}/?scene=x"), navigated("L2", "about:blank"))
    assert (c.left, c.finished, c.context("a")["left"]) == ("about:blank", True, "about:blank")


def test_a_crash_and_a_page_that_did_not_load() -> None:
    c, _ = play(beat(3), ("Inspector.targetCrashed", {}))
    assert c.crashed and c.finished and c.frame == 3
    c, _ = play()
    c.navigation_failed(f"{ORIGIN}/?scene=x", "net::ERR_CONNECTION_REFUSED")
    assert c.finished and c.load_error == f"the game page {ORIGIN}/?scene=x did not load (net::ERR_CONNECTION_REFUSED)."


def test_the_context_the_rules_are_given() -> None:
    c, _ = play()
    c.page_url = f"{ORIGIN}/?scene=s"
    assert c.context("do this") == {
        "origin": ORIGIN,
        "pageUrl": f"{ORIGIN}/?scene=s",
        "advice": "do this",
        "framesRequested": 120,
        "network": {},
        "dialogs": [],
    }
    assert c.context("do this", 2.5)["timedOut"] == 2.5


def test_foreign_bindings_and_garbage_are_ignored() -> None:
    c, calls = play(
        ("Runtime.bindingCalled", {"name": "somethingElse", "payload": '{"kind":"end","why":"done"}'}),
        ("Runtime.bindingCalled", {"name": "__pix3Smoke", "payload": "not json"}),
        binding(kind="beat", frame="7"),
        binding(kind="end", why=3),
        ("Runtime.bindingCalled", {"name": "__pix3Smoke", "payload": "[1]"}),
        ("Page.frameNavigated", {}),
        ("Page.javascriptDialogOpening", {"type": 5}),
    )
    assert not c.finished and c.frame == 0
    assert calls == [("Page.handleJavaScriptDialog", {"accept": True})]
    assert c.dialogs == [{"type": "dialog", "text": "", "frame": 0, "open": True}]
