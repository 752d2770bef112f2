"""What the router keeps for the views of its clients, as traces (docs/cdp-proxy.md, "Watching"):
counters always, recent calls only while someone watches, secrets redacted as they are kept, and
`--kick` ending a client as its disconnect would."""

from __future__ import annotations

import json
from typing import Any

from pix3net.wire.router import KICKED, Close, Note, Router, Sweep, ToChrome

A, B = 1, 2


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def j(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def attach(router: Router, client: int, session: str) -> None:
    [action] = router.open_client(client)
    assert isinstance(action, ToChrome)
    router.from_chrome(j({"id": json.loads(action.data)["id"], "result": {"sessionId": session}}))


def pipe_id(actions: list[Any]) -> int:
    [action] = actions
    assert isinstance(action, ToChrome)
    return int(json.loads(action.data)["id"])


def test_counters_are_kept_without_a_watcher_and_no_call_is_recorded() -> None:
    clock = Clock()
    router = Router(clock=clock)
    attach(router, A, "SA")
    sent = pipe_id(router.from_client(A, '{"id":1,"method":"Runtime.evaluate","params":{"expression":"1"}}'))
    clock.now = 101.5
    router.from_chrome(j({"id": sent, "sessionId": "SA", "error": {"code": -32000, "message": "boom"}}))
    router.from_client(A, "not json")
    facts = router.facts(A)
    assert facts is not None
    assert (facts["calls"], facts["errors"], facts["lastMethod"], facts["lastAt"]) == (1, 2, "Runtime.evaluate", 100.0)
    assert facts["recent"] == []  # nobody watched: nothing was copied


def test_while_watched_each_call_is_kept_with_its_duration_error_and_redacted_params() -> None:
    clock = Clock()
    router = Router(clock=clock)
    attach(router, A, "SA")
    router.recording = True
    headers = {"Authorization": "Bearer agent-secret", "X-Other": "v"}
    sent = pipe_id(
        router.from_client(
            A, j({"id": 1, "method": "Network.setExtraHTTPHeaders", "params": {"headers": headers}}).decode()
        )
    )
    clock.now = 100.25
    router.from_chrome(j({"id": sent, "sessionId": "SA", "result": {}}))
    cookies = [{"name": "sid", "value": "cookie-secret", "domain": "x"}]
    router.from_client(A, j({"id": 2, "method": "Network.setCookies", "params": {"cookies": cookies}}).decode())
    item = {"storageId": {"isLocalStorage": True}, "key": "token", "value": "storage-secret"}
    router.from_client(A, j({"id": 3, "method": "DOMStorage.setDOMStorageItem", "params": item}).decode())
    fetch = {"requestId": "r", "headers": [{"name": "Authorization", "value": "Basic fetch-secret"}]}
    router.from_client(A, j({"id": 4, "method": "Fetch.continueRequest", "params": fetch}).decode())
    router.from_client(A, '{"id":5,"method":"Browser.crash"}')
    facts = router.facts(A)
    assert facts is not None
    recent = facts["recent"]
    assert [r.method for r in recent] == [
        "Network.setExtraHTTPHeaders",
        "Network.setCookies",
        "DOMStorage.setDOMStorageItem",
        "Fetch.continueRequest",
        "Browser.crash",
    ]
    assert recent[0].params == {"headers": {"Authorization": "<redacted>", "X-Other": "<redacted>"}}
    assert (recent[0].duration, recent[0].error) == (0.25, None)
    assert recent[1].params == {"cookies": "<redacted>"}
    assert recent[2].params == {"storageId": {"isLocalStorage": True}, "key": "token", "value": "<redacted>"}
    assert recent[3].params == {"requestId": "r", "headers": [{"name": "Authorization", "value": "<redacted>"}]}
    assert recent[1].duration is None  # not answered yet
    assert recent[4].error is not None and recent[4].error.startswith("Browser.crash is refused")
    kept = repr(recent)
    assert not any(s in kept for s in ("agent-secret", "cookie-secret", "storage-secret", "fetch-secret"))
    # Nobody watches any more: the calls go.
    router.recording = False
    router.forget_recent()
    assert router.facts(A)["recent"] == []  # type: ignore[index]


def test_recent_calls_are_bounded_and_a_long_message_keeps_no_params() -> None:
    router = Router()
    attach(router, A, "SA")
    router.recording = True
    for n in range(150):
        router.from_client(A, j({"id": n, "method": "Runtime.evaluate", "params": {"expression": str(n)}}).decode())
    router.from_client(A, j({"id": 999, "method": "Runtime.evaluate", "params": {"expression": "x" * 10_000}}).decode())
    recent = router.facts(A)["recent"]  # type: ignore[index]
    assert len(recent) == 100 and recent[0].params == {"expression": "51"}  # 151 calls, the last 100 kept
    assert recent[-1].params is None


def test_kick_ends_the_client_as_its_disconnect_would() -> None:
    router = Router()
    attach(router, A, "SA")
    attach(router, B, "SB")
    created = pipe_id(router.from_client(A, '{"id":1,"method":"Target.createTarget","params":{"url":"about:blank"}}'))
    router.from_chrome(j({"id": created, "sessionId": "SA", "result": {"targetId": "TA"}}))
    actions = router.kick(A)
    detach = [json.loads(a.data) for a in actions if isinstance(a, ToChrome)]
    assert [d["method"] for d in detach] == ["Target.detachFromTarget"] and detach[0]["params"] == {"sessionId": "SA"}
    assert Sweep(A, 1.0) in actions and Note(f"client {A} ended by pix3 editor --kick") in actions
    assert actions[-1] == Close(A, 1000, KICKED)
    assert not router.is_open(A) and router.is_open(B)
    closing = [json.loads(a.data) for a in router.sweep(A) if isinstance(a, ToChrome)]
    assert closing == [{"id": closing[0]["id"], "method": "Target.closeTarget", "params": {"targetId": "TA"}}]
    assert router.kick(A) == []  # gone already


def test_facts_name_the_tabs_a_client_opened_with_their_titles() -> None:
    router = Router()
    router.from_chrome(
        j(
            {
                "method": "Target.targetCreated",
                "params": {"targetInfo": {"targetId": "ED", "type": "page", "url": "http://e/", "title": "Pix3"}},
            }
        )
    )
    router.from_chrome(j({"id": 999, "result": {}}))
    attach(router, A, "SA")
    created = pipe_id(router.from_client(A, '{"id":1,"method":"Target.createTarget","params":{"url":"about:blank"}}'))
    router.from_chrome(j({"id": created, "sessionId": "SA", "result": {"targetId": "TA"}}))
    info = {"targetId": "TA", "type": "page", "url": "http://game/", "title": "Game"}
    router.from_chrome(j({"method": "Target.targetCreated", "params": {"targetInfo": {**info, "title": ""}}}))
    router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": info}}))
    facts = router.facts(A)
    assert facts is not None and facts["tabs"] == [{"targetId": "TA", "title": "Game", "url": "http://game/"}]
