"""The editor page's Agents view, the owner's side (docs/cdp-proxy.md, "The editor page's Agents
view"): the binding the watchdog gives each editor document, what the page's calls carry, the
body pushed and how the owner paces it — no message while the page does not want the agents."""

from __future__ import annotations

import json
from typing import Any

import trio
import trio.testing

from pix3net.owner.proxy.agentspush import (
    PUSH_SECONDS,
    THUMBNAIL_MAX_SECONDS,
    THUMBNAIL_WIDTH,
    Held,
    next_shot_seconds,
    page_body,
    push_params,
    read_ask,
    read_push,
    thumbnail_clip,
)
from pix3net.owner.proxy.transport import AgentsView, Seen, Watch
from pix3net.owner.proxy.watchdog import AGENTS_BINDING, PageAsks, Send, Watchdog
from pix3net.wire.router import Action, Router

EDITOR = "EDITOR"


def _script(context: int, frame: str = EDITOR, default: bool = True, session: str | None = None) -> str:
    aux = {"isDefault": default, "type": "default", "frameId": frame}
    body: dict[str, Any] = {
        "method": "Debugger.scriptParsed",
        "params": {"scriptId": str(context * 10), "url": "http://localhost:5173/__pix3/page/main.js"}
        | {"executionContextId": context, "executionContextAuxData": aux},
    }
    if session is not None:
        body["sessionId"] = session
    return json.dumps(body)


def _bindings(actions: list[Any]) -> list[dict[str, Any]]:
    return [
        m for a in actions if isinstance(a, Send) for m in [json.loads(a.text)] if m["method"] == "Runtime.addBinding"
    ]


def test_each_new_editor_document_gets_the_binding_once() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()
    [given] = _bindings(dog.feed(_script(3), 0.1))
    assert given["params"] == {"name": AGENTS_BINDING} and "sessionId" not in given
    assert _bindings(dog.feed(_script(3), 0.2)) == []  # another script of the same document
    assert _bindings(dog.feed(_script(4, frame="CHILD"), 0.3)) == []  # a same-process frame's
    assert _bindings(dog.feed(_script(5, default=False), 0.3)) == []  # an isolated world's
    assert len(_bindings(dog.feed(_script(6), 0.4))) == 1  # reloaded: the new document gets it


def test_the_page_calls_are_heard_from_the_editor_document_only() -> None:
    dog = Watchdog(EDITOR, 0.0)
    dog.start()

    def called(name: str, payload: Any, session: str | None = None) -> list[Any]:
        body: dict[str, Any] = {
            "method": "Runtime.bindingCalled",
            "params": {"name": name, "payload": payload, "executionContextId": 3},
        }
        if session is not None:
            body["sessionId"] = session
        return dog.feed(json.dumps(body), 0.5)

    assert called(AGENTS_BINDING, '{"wanted":true}') == [PageAsks('{"wanted":true}', 3)]
    assert called("somethingElse", "{}") == []
    assert called(AGENTS_BINDING, 7) == []
    assert called(AGENTS_BINDING, "x" * 5000) == []
    game = {"sessionId": "GAME", "targetInfo": {"type": "iframe", "targetId": "G"}}
    dog.feed(json.dumps({"method": "Target.attachedToTarget", "params": game}), 0.5)
    assert called(AGENTS_BINDING, "{}", session="GAME") == []  # a game frame in a renderer of its own


def test_what_the_page_asks() -> None:
    assert read_ask('{"wanted": true, "kicks": []}') == (True, [])
    assert read_ask('{"wanted": false, "kicks": [3, 3.5, -1, true, "4", 5]}') == (False, [3, 5])
    assert read_ask('{"kicks": [2]}') == (None, [2])
    assert read_ask(json.dumps({"wanted": "yes", "kicks": list(range(1, 50))})) == (None, list(range(1, 9)))
    assert read_ask("nope") == (None, []) and read_ask("[1]") == (None, [])


def test_the_body_pushed_leaves_out_the_recent_calls_and_is_handed_over_as_text() -> None:
    watched = {
        "editorTab": {"targetId": EDITOR, "url": "http://x/__pix3/", "answering": True},
        "clients": [
            {
                "client": 3,
                "name": "alpha",
                "userAgent": "Puppeteer",
                "since": "2026-12-07T06:00:00Z",
                "keep": False,
                "calls": 9,
                "errors": 0,
                "lastMethod": "Runtime.evaluate",
                "lastAgoMs": 12,
                "callsPerSecond": 5.0,
                "peer": "127.0.0.1:5000",
                "recent": [{"method": "Network.setExtraHTTPHeaders"}],
                "tabs": [
                    {"targetId": "T1", "title": "red", "url": "data:text/html,red"},
                    {"targetId": EDITOR, "title": "pix3", "url": "http://x/__pix3/"},
                ],
            }
        ],
    }
    body = page_body(watched, {"T1": "data:image/jpeg;base64,AAAA"}, EDITOR)
    [client] = body["clients"]
    assert "recent" not in client and "peer" not in client
    assert client["tabs"] == [
        {"title": "red", "url": "data:text/html,red", "editor": False, "thumbnail": "data:image/jpeg;base64,AAAA"},
        {"title": "pix3", "url": "http://x/__pix3/", "editor": True, "thumbnail": None},
    ]
    assert body["editorTab"] == {"answering": True}
    pushed = push_params(body, 7)
    assert pushed["executionContextId"] == 7 and pushed["returnByValue"] is True
    assert pushed["functionDeclaration"] == (
        'function (text) { return typeof window.__PIX3_OWNER_AGENTS__ === "function" && '
        "window.__PIX3_OWNER_AGENTS__(text) === true; }"
    )  # the data is an argument, never source
    [argument] = pushed["arguments"]
    assert json.loads(argument["value"]) == body
    assert read_push({"result": {"type": "boolean", "value": True}}) is True
    assert read_push({"result": {"type": "boolean", "value": False}}) is False
    assert read_push(None) is False


def test_the_thumbnail_clip_is_the_visible_part_at_most_320_wide() -> None:
    view = {"cssVisualViewport": {"clientWidth": 640, "clientHeight": 400, "pageX": 0, "pageY": 10}}
    assert thumbnail_clip(view) == {"x": 0.0, "y": 10.0, "width": 640.0, "height": 400.0, "scale": 0.5}
    small = {"cssVisualViewport": {"clientWidth": 200, "clientHeight": 100}}
    assert thumbnail_clip(small) == {"x": 0.0, "y": 0.0, "width": 200.0, "height": 100.0, "scale": 1.0}
    assert THUMBNAIL_WIDTH == 320
    bads: list[Any] = [
        None,
        {},
        {"cssVisualViewport": {"clientWidth": 0, "clientHeight": 1}},
        {"cssVisualViewport": {}},
    ]
    for bad in bads:
        assert thumbnail_clip(bad) is None


class _FakeProxy:
    """The owner as the view sees it: a router with one socket client (3) and the calls it makes."""

    def __init__(self) -> None:
        self.router = Router(editor_url="http://x/__pix3/")
        self.seen: dict[int, Seen] = {}
        self.watch = Watch()
        self.calls: list[tuple[str, str | None]] = []
        self.executed: list[Action] = []
        self.logs: list[str] = []
        self.page_wants = True
        self.pictures: dict[str, str] = {}  # our session on a tab → what its picture is now
        self.pushed: list[dict[str, Any]] = []  # the bodies the page took
        self.push_fails = False

    async def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None, seconds: float = 1.0
    ) -> Any:
        self.calls.append((method, session))
        if method == "Runtime.callFunctionOn":
            if self.push_fails:
                raise RuntimeError("Runtime.callFunctionOn: no answer within 2000 ms")
            self.pushed.append(json.loads(params["arguments"][0]["value"]) if params else {})
            return {"result": {"type": "boolean", "value": self.page_wants}}
        if method == "Target.attachToTarget":
            return {"sessionId": f"S-{params['targetId'] if params else ''}"}
        if method == "Page.getLayoutMetrics":
            return {"cssVisualViewport": {"clientWidth": 640, "clientHeight": 400}}
        if method == "Page.captureScreenshot":
            return {"data": self.pictures.get(session or "", "AAAA")}
        return {}

    def execute(self, actions: list[Action]) -> None:
        self.executed += actions

    def log(self, text: str) -> None:
        self.logs.append(text)

    async def editor_answers(self) -> bool | None:
        return True


class _Page:
    session: str | None = "WATCHDOG-SESSION"


def test_the_owner_pushes_once_a_second_only_while_the_page_wants() -> None:
    async def main() -> None:
        proxy = _FakeProxy()
        view = AgentsView(proxy, _Page())
        async with trio.open_nursery() as nursery:
            nursery.start_soon(view.run)
            await trio.sleep(5)
            assert proxy.calls == []  # nobody looks: not one message
            view.asked('{"wanted": true, "kicks": []}', 5)
            await trio.sleep(2.5)
            pushes = [c for c in proxy.calls if c[0] == "Runtime.callFunctionOn"]
            assert len(pushes) == 3 and all(session == "WATCHDOG-SESSION" for _, session in pushes)
            proxy.page_wants = False  # the panel closed, and the page says so with the next push
            await trio.sleep(PUSH_SECONDS * 3)
            assert len([c for c in proxy.calls if c[0] == "Runtime.callFunctionOn"]) == 4
            assert view.wanted is False
            # A kick for a client no socket holds (the watchdog's own session, 0) does nothing.
            view.asked('{"kicks": [0, 12]}')
            assert proxy.executed == [] and view.wanted is False
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


class _TwoTabs(Watch):
    """The watch facts of one client with two tabs (the router's own are tested elsewhere)."""

    def __init__(self) -> None:
        super().__init__()
        self.titles = {"T1": "red", "T2": "blue"}

    def body(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        tabs = [{"targetId": t, "title": title, "url": f"data:{title}"} for t, title in self.titles.items()]
        return {"editorTab": None, "clients": [{"client": 1, "name": "alpha", "tabs": tabs}]}


def test_a_still_tab_is_taken_less_and_less_often_and_again_when_it_changes() -> None:
    assert [next_shot_seconds(n) for n in range(6)] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    # a tab that keeps changing: one a second for its first pictures, then every other second
    assert [next_shot_seconds(0, changed) for changed in range(5)] == [1.0, 1.0, 1.0, 2.0, 2.0]
    assert THUMBNAIL_MAX_SECONDS == 8.0

    async def main() -> None:
        proxy = _FakeProxy()
        watch = proxy.watch = _TwoTabs()
        proxy.pictures["S-T2"] = "B0"
        view = AgentsView(proxy, _Page())

        def shots(session: str) -> int:
            return sum(1 for method, s in proxy.calls if method == "Page.captureScreenshot" and s == session)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(view.run)
            view.asked('{"wanted": true}', 5)
            for second in range(1, 16):  # T2 changes every second; T1 stays the same
                proxy.pictures["S-T2"] = f"B{second}"
                await trio.sleep(1)
            await trio.sleep(0.5)
            # T1: taken at 0, 1 (same), then after 2, 4, 8 s: 0, 1, 3, 7, 15 → 5 pictures in 16 s;
            # T2 moves: a second apart for its first changes (0, 1, 2, 3), then 2 s: 5, 7 … 15 → 10
            assert shots("S-T1") == 5 and shots("S-T2") == 10
            watch.titles["T1"] = "red again"  # its page changed: taken at the next push
            before = shots("S-T1")
            await trio.sleep(1)
            assert shots("S-T1") == before + 1
            proxy.page_wants = False
            await trio.sleep(2)
            assert view.shots == {} and view.tabs == {}  # nobody looks: nothing kept
            detached = [c for c in proxy.calls if c[0] == "Target.detachFromTarget"]
            assert len(detached) == 2
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_push_leaves_out_the_pictures_the_page_holds() -> None:
    client: dict[str, Any] = {
        "client": 1,
        "tabs": [{"targetId": "T1", "title": "red", "url": "u1"}, {"targetId": "T2"}],
    }
    watched = {"editorTab": None, "clients": [client]}
    held = Held()
    first = page_body(watched, {"T1": "data:image/jpeg;base64,AAAA", "T2": None}, EDITOR, held)
    assert [(t["key"], t["thumbnail"]) for t in first["clients"][0]["tabs"]] == [
        (1, "data:image/jpeg;base64,AAAA"),
        (2, None),
    ]
    held.taken()
    same = page_body(watched, {"T1": "data:image/jpeg;base64,AAAA", "T2": None}, EDITOR, held)
    assert [t.get("thumbnail", "held") for t in same["clients"][0]["tabs"]] == ["held", "held"]
    held.taken()
    moved = page_body(watched, {"T1": "data:image/jpeg;base64,BBBB", "T2": None}, EDITOR, held)
    assert [t.get("thumbnail", "held") for t in moved["clients"][0]["tabs"]] == ["data:image/jpeg;base64,BBBB", "held"]
    held.forget()  # not answered: the page may not have it
    again = page_body(watched, {"T1": "data:image/jpeg;base64,BBBB", "T2": None}, EDITOR, held)
    assert [t.get("thumbnail", "held") for t in again["clients"][0]["tabs"]] == ["data:image/jpeg;base64,BBBB", None]
    held.taken()
    client["tabs"] = [{"targetId": "T3"}]  # T1 and T2 closed, a new tab: a new key
    newer = page_body(watched, {"T3": None}, EDITOR, held)
    assert newer["clients"][0]["tabs"][0]["key"] == 3 and held.keys == {"T3": 3}


def test_the_owner_sends_a_still_tab_s_picture_once_and_all_again_to_a_page_that_may_not_hold_them() -> None:
    async def main() -> None:
        proxy = _FakeProxy()
        proxy.watch = _TwoTabs()
        view = AgentsView(proxy, _Page())

        def sent() -> list[list[str]]:  # per push, the tabs whose picture it carries
            bodies, proxy.pushed = proxy.pushed, []
            return [[t["title"] for c in b["clients"] for t in c["tabs"] if "thumbnail" in t] for b in bodies]

        async with trio.open_nursery() as nursery:
            nursery.start_soon(view.run)
            view.asked('{"wanted": true}', 5)  # pushes at 0, 1, 2…; the test acts half-way between
            await trio.sleep(0.5)
            for second in range(1, 5):  # T2 changes every second; T1 stays the same
                proxy.pictures["S-T2"] = f"B{second}"
                await trio.sleep(1)
            # T2 changed at 1, 2 and 3: then it is taken every other second (not at 4, so nothing is sent)
            assert sent() == [["red", "blue"], ["blue"], ["blue"], ["blue"], []]
            view.asked('{"wanted": true}', 6)  # another document: it holds nothing
            await trio.sleep(1)
            assert sent() == [["red", "blue"]]
            proxy.push_fails = True  # a push unanswered: the page may not have it
            await trio.sleep(1)
            proxy.push_fails = False
            view.asked('{"wanted": true}', 6)  # it asks again; the next push is at 7
            await trio.sleep(1)
            assert sent() == [["red", "blue"]]
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
