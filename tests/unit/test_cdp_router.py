"""The pure router as traces: messages in (>>) and actions out (<<) (docs/cdp-proxy.md, "Session model")."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pix3net.wire.router import (
    MAX_PIPE_ID,
    Action,
    Attached,
    CallDone,
    Close,
    Note,
    Router,
    Sweep,
    ToChrome,
    ToClient,
)

A, B = 1, 2


def j(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def sent(actions: list[Action]) -> list[Any]:
    """Actions with their bytes parsed: what went where, readable in an assert."""
    out: list[Any] = []
    for action in actions:
        if isinstance(action, ToChrome):
            out.append(("chrome", json.loads(action.data)))
        elif isinstance(action, ToClient):
            out.append((action.client, json.loads(action.data)))
        else:
            out.append(action)
    return out


def attach(router: Router, client: int, session: str, page: str | None = None) -> None:
    [(where, command)] = sent(router.open_client(client, page))
    assert where == "chrome"
    assert router.from_chrome(j({"id": command["id"], "result": {"sessionId": session}})) == [Attached(client, None)]


def test_browser_client_attaches_through_attach_to_browser_target() -> None:
    router = Router()
    # >> client A opens /pix3
    assert sent(router.open_client(A)) == [
        ("chrome", {"id": 1, "method": "Target.attachToBrowserTarget", "params": {}})
    ]
    # >> Chrome answers with the root session
    assert router.from_chrome(b'{"id":1,"result":{"sessionId":"S1"}}') == [Attached(A, None)]
    assert router.client_count == 1 and router.root_of(A) == "S1"


def test_page_client_attaches_flattened_and_refusal_text() -> None:
    router = Router()
    assert sent(router.open_client(A, "NOPE")) == [
        ("chrome", {"id": 1, "method": "Target.attachToTarget", "params": {"targetId": "NOPE", "flatten": True}})
    ]
    reply = j({"id": 1, "error": {"code": -32602, "message": "No target with given id found"}})
    assert router.from_chrome(reply) == [Attached(A, "Target.attachToTarget: No target with given id found")]
    assert router.client_count == 0


def test_same_client_id_on_two_clients_is_remapped_and_restored() -> None:
    router = Router()
    attach(router, A, "SA")
    attach(router, B, "SB")
    assert sent(router.from_client(A, '{"id":7,"method":"Browser.getVersion"}')) == [
        ("chrome", {"id": 3, "sessionId": "SA", "method": "Browser.getVersion"})
    ]
    assert sent(router.from_client(B, '{"id":7,"method":"Browser.getVersion"}')) == [
        ("chrome", {"id": 4, "sessionId": "SB", "method": "Browser.getVersion"})
    ]
    # << replies come back with the client's id and without the root's sessionId
    assert sent(router.from_chrome(b'{"id":4,"result":{"product":"P"},"sessionId":"SB"}')) == [
        (B, {"id": 7, "result": {"product": "P"}})
    ]
    assert sent(router.from_chrome(b'{"id":3,"result":{"product":"P"},"sessionId":"SA"}')) == [
        (A, {"id": 7, "result": {"product": "P"}})
    ]
    assert router.from_chrome(b'{"id":3,"result":{},"sessionId":"SA"}') == []  # answered once


def test_child_sessions_are_learnt_and_private() -> None:
    router = Router()
    attach(router, A, "SA")
    attach(router, B, "SB")
    attached = {"method": "Target.attachedToTarget", "params": {"sessionId": "C1", "targetInfo": {"targetId": "T1"}}}
    # << the event on A's root reaches A without sessionId; the child is now A's
    assert sent(router.from_chrome(j({**attached, "sessionId": "SA"}))) == [(A, attached)]
    assert router.sessions_of(A) == {"SA", "C1"}
    assert sent(router.from_client(A, '{"id":1,"method":"Fake.ping","sessionId":"C1"}')) == [
        ("chrome", {"id": 3, "sessionId": "C1", "method": "Fake.ping"})
    ]
    # child-session messages keep their sessionId
    assert sent(router.from_chrome(b'{"method":"Fake.pinged","params":{"by":"C1"},"sessionId":"C1"}')) == [
        (A, {"method": "Fake.pinged", "params": {"by": "C1"}, "sessionId": "C1"})
    ]
    assert sent(router.from_chrome(b'{"id":3,"result":{"pong":true},"sessionId":"C1"}')) == [
        (A, {"id": 1, "result": {"pong": True}, "sessionId": "C1"})
    ]
    # >> B uses A's child: unknown session, Chrome never sees it
    assert sent(router.from_client(B, '{"id":9,"method":"Runtime.evaluate","sessionId":"C1"}')) == [
        (B, {"id": 9, "error": {"code": -32001, "message": "Session with given id not found."}, "sessionId": "C1"})
    ]
    # >> B names A's root too
    assert sent(router.from_client(B, '{"id":10,"method":"X","sessionId":"SA"}'))[0][1]["error"]["code"] == -32001
    # detach forgets the child
    detached = {"method": "Target.detachedFromTarget", "params": {"sessionId": "C1", "targetId": "T1"}}
    assert sent(router.from_chrome(j({**detached, "sessionId": "SA"}))) == [(A, detached)]
    assert router.sessions_of(A) == {"SA"}
    assert sent(router.from_client(A, '{"id":2,"method":"X","sessionId":"C1"}'))[0][1]["error"]["code"] == -32001


def test_events_of_unknown_sessions_and_root_events_are_dropped() -> None:
    router = Router()
    attach(router, A, "SA")
    assert router.from_chrome(b'{"method":"Page.loadEventFired","params":{},"sessionId":"ZZ"}') == []
    assert router.from_chrome(b'{"method":"Target.targetCreated","params":{}}') == []
    assert router.from_chrome(b'{"id":999,"result":{}}') == []
    assert router.from_chrome(b"not json") == []
    assert router.from_chrome(b"[1,2]") == []


def test_bad_client_messages_get_the_spec_errors_and_reach_nothing() -> None:
    router = Router()
    attach(router, A, "SA")
    cases = {
        "not json": (0, -32700),
        "": (0, -32700),
        '{"id":1,"method":"x"} trailing': (0, -32700),
        '{"id":NaN,"method":"x"}': (0, -32700),
        '{"id":Infinity,"method":"x"}': (0, -32700),
        "[1,2]": (0, -32600),
        "null": (0, -32600),
        '"text"': (0, -32600),
        '{"id":3}': (3, -32600),
        '{"method":"x"}': (0, -32600),
        '{"id":"3","method":"x"}': (0, -32600),
        '{"id":true,"method":"x"}': (0, -32600),
        '{"id":null,"method":"x"}': (0, -32600),
        '{"id":4,"method":5}': (4, -32600),
        '{"id":5,"method":"x","sessionId":null}': (5, -32001),
        '{"id":6,"method":"x","sessionId":7}': (6, -32001),
    }
    for text, (message_id, code) in cases.items():
        [(where, reply)] = sent(router.from_client(A, text))
        assert where == A and reply["id"] == message_id and reply["error"]["code"] == code, text
    assert router.pending_count == 0


def test_odd_numeric_ids_are_forwarded_and_echoed_exactly() -> None:
    router = Router()
    attach(router, A, "SA")
    for text_id in ["1.5", "-3", "9007199254740993", "1e3", "0"]:
        [action] = router.from_client(A, '{"id":' + text_id + ',"method":"M"}')
        assert isinstance(action, ToChrome)
        pipe_id = json.loads(action.data)["id"]
        [answer] = router.from_chrome(b'{"id":%d,"result":{},"sessionId":"SA"}' % pipe_id)
        assert isinstance(answer, ToClient) and answer.data == b'{"id":%s,"result":{}}' % text_id.encode()


def test_duplicate_session_keys_cannot_smuggle_another_session() -> None:
    router = Router()
    attach(router, A, "SA")
    attach(router, B, "SB")
    [action] = router.from_client(B, '{"id":1,"method":"M","sessionId":"SA","sessionId":"SB"}')
    assert isinstance(action, ToChrome)
    assert action.data.count(b"sessionId") == 1 and json.loads(action.data)["sessionId"] == "SB"


def test_extra_fields_pass_through_unchanged() -> None:
    router = Router()
    attach(router, A, "SA")
    text = '{"method":"M","params":{"x":[1, 2.50, "\\u00e9", "é"]},"id":1,"extra":{"k":null}}'
    [action] = router.from_client(A, text)
    assert isinstance(action, ToChrome)
    assert json.loads(action.data) == {**json.loads(text), "id": 2, "sessionId": "SA"}
    # a large message keeps every other member byte for byte (spliced, not re-serialised)
    padding = "x" * 20000
    big = '{"method":"M","params":{"x":[1, 2.50, "\\u00e9"],"p":"' + padding + '"},"id":1,"extra":{"k":null}}'
    [action] = router.from_client(A, big)
    assert isinstance(action, ToChrome)
    expected = (
        '{"id":3,"sessionId":"SA","method":"M","params":{"x":[1, 2.50, "\\u00e9"],"p":"'
        + padding
        + '"},"extra":{"k":null}}'
    )
    assert action.data == expected.encode()


def test_small_and_large_paths_agree() -> None:
    cases = [
        '{"id":1,"method":"M","params":{"a":[1,{"b":null}]},"sessionId":"SA"}',
        '{"id":1,"method":"M","sessionId":"SA","sessionId":"ZZ"}',
        '{"id":1,"method":"M","sessionId":null}',
        '{"id":1.5,"method":"M"}',
        '{"id":1,"method":7}',
        '{"id":NaN,"method":"M"}',
        '{"method":"M"}',
        "[]",
        "{",
    ]
    for text in cases:
        outputs = []
        for padded in (text, text.replace('"method"', '"pad":"' + "p" * 20000 + '","method"', 1)):
            router = Router()
            attach(router, A, "SA")
            out = [json.loads(a.data) for a in router.from_client(A, padded) if isinstance(a, ToChrome | ToClient)]
            for message in out:
                message.pop("pad", None)
            outputs.append(out)
        assert outputs[0] == outputs[1], text


def test_reply_in_any_member_order_is_rewritten() -> None:
    router = Router()
    attach(router, A, "SA")
    router.from_client(A, '{"id":42,"method":"M"}')
    [answer] = router.from_chrome(b'{ "result" : {"a":1}, "sessionId" : "SA", "id" : 2 }')
    assert isinstance(answer, ToClient) and json.loads(answer.data) == {"id": 42, "result": {"a": 1}}


def test_departing_client_is_detached_and_its_pending_answers_dropped() -> None:
    router = Router()
    attach(router, A, "SA")
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": {"sessionId": "C1"}, "sessionId": "SA"}))
    router.from_client(A, '{"id":1,"method":"M"}')  # pipe id 2
    assert sent(router.client_gone(A)) == [
        ("chrome", {"id": 3, "method": "Target.detachFromTarget", "params": {"sessionId": "SA"}})
    ]
    assert router.client_count == 0
    assert router.from_chrome(b'{"id":2,"result":{},"sessionId":"SA"}') == []
    assert router.from_chrome(b'{"method":"E","params":{},"sessionId":"C1"}') == []
    assert router.from_chrome(b'{"id":3,"result":{}}') == []  # our detach's answer
    assert router.client_gone(A) == []


def test_client_gone_while_attaching_detaches_the_late_root() -> None:
    router = Router()
    router.open_client(A)
    assert router.client_gone(A) == []
    assert sent(router.from_chrome(b'{"id":1,"result":{"sessionId":"S9"}}')) == [
        ("chrome", {"id": 2, "method": "Target.detachFromTarget", "params": {"sessionId": "S9"}})
    ]
    assert router.client_count == 0


def test_page_client_closed_1000_when_its_root_is_detached_at_the_pipe_root() -> None:
    router = Router()
    attach(router, A, "SP", page="T1")
    attach(router, B, "SB")
    event = j({"method": "Target.detachedFromTarget", "params": {"sessionId": "SP", "targetId": "T1"}})
    assert router.from_chrome(event) == [Close(A, 1000, "target closed")]
    assert router.client_count == 1 and not router.is_open(A)


def test_chrome_gone_closes_everyone_1001_and_fails_internal_calls() -> None:
    router = Router()
    attach(router, A, "SA")
    attach(router, B, "SB")
    router.from_client(A, '{"id":1,"method":"M"}')
    call, _ = router.call("Browser.getVersion")
    router.open_client(3)
    actions = router.chrome_gone()
    assert CallDone(call, None, "Browser.getVersion: Chrome is gone") in actions
    assert Attached(3, "Target.attachToBrowserTarget: Chrome is gone") in actions
    assert [a for a in actions if isinstance(a, Close)] == [
        Close(A, 1001, "Chrome closed"),
        Close(B, 1001, "Chrome closed"),
    ]
    assert not any(isinstance(a, ToClient) for a in actions)  # in-flight client requests get no reply
    assert router.client_count == 0
    assert router.call("Browser.getVersion")[1] == [CallDone(-1, None, "Browser.getVersion: Chrome is gone")]
    assert router.open_client(4) == [Attached(4, "Target.attachToBrowserTarget: Chrome is gone")]


def test_internal_calls_resolve_and_reject() -> None:
    router = Router()
    call, actions = router.call("Browser.getVersion")
    assert sent(actions) == [("chrome", {"id": call, "method": "Browser.getVersion", "params": {}})]
    assert router.from_chrome(j({"id": call, "result": {"product": "P"}})) == [CallDone(call, {"product": "P"}, None)]
    call, _ = router.call("Target.getTargets")
    assert router.from_chrome(j({"id": call, "error": {"code": -1, "message": "boom"}})) == [
        CallDone(call, None, "Target.getTargets: boom")
    ]


def test_counter_wraps_below_2_31_and_skips_pending_ids() -> None:
    router = Router(first_id=MAX_PIPE_ID - 1)
    attach(router, A, "SA")  # takes MAX-1
    ids = []
    for n in range(3):
        [action] = router.from_client(A, f'{{"id":{n},"method":"M"}}')
        assert isinstance(action, ToChrome)
        ids.append(json.loads(action.data)["id"])
    assert ids == [MAX_PIPE_ID, 1, 2]


def test_big_reply_is_spliced_not_copied_through_json() -> None:
    router = Router()
    attach(router, A, "SA")
    router.from_client(A, '{"id":77,"method":"Page.captureScreenshot"}')
    data = b"A" * (8 * 1024 * 1024)
    raw = b'{"id":2,"result":{"data":"' + data + b'"},"sessionId":"SA"}'
    [answer] = router.from_chrome(raw)
    assert isinstance(answer, ToClient)
    # three slices of the original buffer plus the new id: no re-serialisation
    assert [bytes(p) if len(p) < 100 else len(p) for p in answer.parts] == [
        b'{"id":',
        b"77",
        len(raw) - len(b'{"id":2') - len(b',"sessionId":"SA"}'),
        b"}",
    ]
    assert answer.data == b'{"id":77,"result":{"data":"' + data + b'"}}'


_SESSION_IDS = st.sampled_from(["SA", "SB", "C1", "C2", "ZZ", None])


@st.composite
def _traffic(draw: st.DrawFn) -> list[tuple[str, Any]]:
    steps = []
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.sampled_from(["client", "reply", "attach", "detach", "event", "gone"]))
        steps.append((kind, (draw(st.sampled_from([A, B])), draw(_SESSION_IDS), draw(st.integers(0, 2**60)))))
    return steps


@settings(max_examples=200, deadline=None)
@given(_traffic(), st.integers(MAX_PIPE_ID - 20, MAX_PIPE_ID))
def test_no_cross_client_leaks_and_ids_stay_below_2_31(steps: list[tuple[str, Any]], first: int) -> None:
    router = Router(first_id=first)
    attach(router, A, "SA")
    attach(router, B, "SB")
    forwarded: dict[int, tuple[int, str]] = {}  # pipe id → (client, session it ran on)
    for kind, (client, session, number) in steps:
        owner_of_session = {s: c for c in (A, B) for s in router.sessions_of(c)}
        actions: list[Action] = []
        if kind == "client":
            message: dict[str, Any] = {"id": number, "method": "M"}
            if session is not None:
                message["sessionId"] = session
            actions = router.from_client(client, json.dumps(message))
            for action in actions:
                if isinstance(action, ToChrome):
                    sent_message = json.loads(action.data)
                    assert 0 < sent_message["id"] <= MAX_PIPE_ID
                    # a client only ever reaches its own sessions
                    assert owner_of_session.get(sent_message["sessionId"]) == client
                    forwarded[sent_message["id"]] = (client, sent_message["sessionId"])
                else:
                    assert isinstance(action, ToClient) and action.client == client
        elif kind == "reply" and forwarded:
            pipe_id = sorted(forwarded)[number % len(forwarded)]
            owner, ran_on = forwarded.pop(pipe_id)
            actions = router.from_chrome(j({"id": pipe_id, "result": {}, "sessionId": ran_on}))
            assert all(isinstance(a, ToClient) and a.client == owner for a in actions)
        elif kind in ("attach", "detach", "event") and session is not None:
            method = {"attach": "Target.attachedToTarget", "detach": "Target.detachedFromTarget", "event": "E"}[kind]
            child = f"C{number % 3}"
            actions = router.from_chrome(j({"method": method, "params": {"sessionId": child}, "sessionId": session}))
            for action in actions:
                assert isinstance(action, ToClient) and action.client == owner_of_session.get(session)
        elif kind == "gone":
            actions = router.client_gone(client)
            for action in actions:
                assert isinstance(action, ToChrome)
                assert 0 < json.loads(action.data)["id"] <= MAX_PIPE_ID
        # sessions never belong to two clients
        assert not (router.sessions_of(A) & router.sessions_of(B))


# -- ownership, protection, limits (docs/cdp-proxy.md, "Ownership and protection") ---------------

EDITOR_URL = "http://127.0.0.1:5173/__pix3/editor"


def created(target: str, kind: str = "page", **more: Any) -> bytes:
    """A root-level ``Target.targetCreated`` of the proxy's own discovery."""
    return j({"method": "Target.targetCreated", "params": {"targetInfo": {"targetId": target, "type": kind, **more}}})


def discovering(router: Router, pages: tuple[str, ...] = ("ED",)) -> None:
    """The proxy's start: discovery on the pipe root; Chrome reports the pages it has, then answers."""
    [(where, command)] = sent(router.watch_targets())
    assert (where, command["method"], command["params"]) == (
        "chrome",
        "Target.setDiscoverTargets",
        {"discover": True, "filter": [{"type": "browser", "exclude": True}, {}]},
    )
    for page in pages:
        assert router.from_chrome(created(page, url=EDITOR_URL)) == []
    assert router.from_chrome(j({"id": command["id"], "result": {}})) == []


def ask(router: Router, client: int, message: dict[str, Any]) -> list[Any]:
    return sent(router.from_client(client, json.dumps(message)))


def answer(router: Router, sent_to_chrome: list[Any], result: dict[str, Any], session: str | None = None) -> list[Any]:
    [(where, command)] = sent_to_chrome
    assert where == "chrome"
    reply: dict[str, Any] = {"id": command["id"], "result": result}
    if session is not None:
        reply["sessionId"] = session
    return sent(router.from_chrome(j(reply)))


def refused_with(actions: list[Any], client: int, message_id: int) -> str:
    [(where, reply)] = actions
    assert where == client and reply["id"] == message_id and reply["error"]["code"] == -32000, actions
    return str(reply["error"]["message"])


def test_what_a_client_created_is_closed_after_the_grace_when_it_leaves() -> None:
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    attach(router, B, "SB")
    # >> A opens a context and a page in it; << the answers reach A as usual
    assert answer(
        router, ask(router, A, {"id": 1, "method": "Target.createBrowserContext"}), {"browserContextId": "X1"}, "SA"
    ) == [(A, {"id": 1, "result": {"browserContextId": "X1"}})]
    router.from_chrome(created("P1", browserContextId="X1"))
    answer(
        router,
        ask(router, A, {"id": 2, "method": "Target.createTarget", "params": {"url": "about:blank"}}),
        {"targetId": "P2"},
        "SA",
    )
    router.from_chrome(created("P2"))
    # a page one of A's pages opened is A's too; B's page is B's
    router.from_chrome(created("P3", openerId="P2"))
    answer(
        router,
        ask(router, B, {"id": 1, "method": "Target.createTarget", "params": {"url": "about:blank"}}),
        {"targetId": "PB"},
        "SB",
    )
    assert router.status(A) == {"relayed": 4, "keep": False, "targets": ["P1", "P2", "P3"], "contexts": ["X1"]}
    # >> A leaves: its root is detached now, the rest after the grace
    gone = router.client_gone(A)
    assert [(m["method"], m["params"]) for _, m in sent(gone[:1])] == [("Target.detachFromTarget", {"sessionId": "SA"})]
    assert gone[1:] == [Sweep(A, 1.0)]
    swept = router.sweep(A)
    assert [(m["method"], m["params"]) for _, m in sent(swept[:-1])] == [
        ("Target.closeTarget", {"targetId": "P1"}),
        ("Target.closeTarget", {"targetId": "P2"}),
        ("Target.closeTarget", {"targetId": "P3"}),
        ("Target.disposeBrowserContext", {"browserContextId": "X1"}),
    ]
    assert swept[-1] == Note("client 1 left: closed 3 targets and 1 browser contexts it opened")
    assert router.sweep(A) == []  # once
    assert router.status(B) is not None and router.status(B)["targets"] == ["PB"]  # type: ignore[index]


def test_a_create_answered_after_the_sweep_is_closed_on_arrival() -> None:
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    asked = ask(router, A, {"id": 1, "method": "Target.createTarget", "params": {"url": "about:blank"}})
    assert router.client_gone(A)[-1] == Sweep(A, 1.0)  # a create on its way counts
    assert router.sweep(A) == []
    closing = answer(router, asked, {"targetId": "LATE"}, "SA")
    assert [(w, m["method"], m["params"]) for w, m in closing] == [
        ("chrome", "Target.closeTarget", {"targetId": "LATE"})
    ]


def test_a_client_that_asked_to_keep_leaves_its_pages_open() -> None:
    router = Router()
    discovering(router)
    [(_, command)] = sent(router.open_client(A, keep=True))
    router.from_chrome(j({"id": command["id"], "result": {"sessionId": "SA"}}))
    answer(
        router,
        ask(router, A, {"id": 1, "method": "Target.createTarget", "params": {"url": "about:blank"}}),
        {"targetId": "P1"},
        "SA",
    )
    gone = router.client_gone(A)
    assert [type(a) for a in gone] == [ToChrome, Note]  # the detach, and a log line; no sweep
    assert gone[1] == Note("client 1 left 1 targets and 0 contexts open (keep)")
    assert router.sweep(A) == []


def test_browser_close_ends_only_the_clients_own_session() -> None:
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    attach(router, B, "SB")
    answer(
        router,
        ask(router, A, {"id": 1, "method": "Target.createTarget", "params": {"url": "about:blank"}}),
        {"targetId": "P1"},
        "SA",
    )
    out = router.from_client(A, '{"id":2,"method":"Browser.close"}')
    assert sent(out[:1]) == [(A, {"id": 2, "result": {}})]  # success, Chrome never sees it
    assert [(m["method"], m["params"]) for _, m in sent(out[1:-2])] == [
        ("Target.detachFromTarget", {"sessionId": "SA"}),
        ("Target.closeTarget", {"targetId": "P1"}),
    ]
    assert out[-2:] == [
        Note("client 1 ended its session (Browser.close): closed 1 targets and 0 browser contexts it opened"),
        Close(A, 1000, "Browser.close: this client's session ended; Chrome stays up for the others"),
    ]
    assert not router.is_open(A) and router.client_gone(A) == []
    assert len(ask(router, B, {"id": 3, "method": "Browser.getVersion"})) == 1  # B goes on


def test_the_browser_and_the_editor_tab_are_refused_to_clients() -> None:
    router = Router()
    discovering(router, ("ED", "OTHER"))
    assert router.editor == "ED"  # the page Chrome was launched with
    attach(router, A, "SA")
    attach(router, B, "SP", page="ED")  # a page client of the editor tab
    why = refused_with(ask(router, A, {"id": 1, "method": "Browser.crash"}), A, 1)
    assert why == (
        "Browser.crash is refused: the browser belongs to pix3 and other clients share it "
        "(pix3 editor --stop-chrome closes Chrome)"
    )
    why = refused_with(ask(router, A, {"id": 2, "method": "Target.closeTarget", "params": {"targetId": "ED"}}), A, 2)
    assert why.startswith("Target.closeTarget is refused: ED is the pix3 editor tab") and "--stop-chrome" in why
    assert refused_with(ask(router, B, {"id": 3, "method": "Page.close"}), B, 3).startswith("Page.close is refused")
    assert refused_with(ask(router, B, {"id": 4, "method": "Page.crash"}), B, 4).startswith("Page.crash is refused")
    # a child session of A's attached to the editor tab is refused the same way, its sessionId echoed
    info = {"sessionId": "C1", "targetInfo": {"targetId": "ED", "type": "page"}}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": info, "sessionId": "SA"}))
    [(where, reply)] = ask(router, A, {"id": 5, "method": "Page.close", "sessionId": "C1"})
    assert (where, reply["sessionId"], reply["error"]["code"]) == (A, "C1", -32000)
    # other pages may be closed; Page.close elsewhere and everything else on the editor tab pass
    assert ask(router, A, {"id": 6, "method": "Target.closeTarget", "params": {"targetId": "OTHER"}})[0][0] == "chrome"
    assert ask(router, B, {"id": 7, "method": "Runtime.evaluate", "params": {"expression": "1"}})[0][0] == "chrome"
    assert ask(router, A, {"id": 8, "method": "Page.close"})[0][0] == "chrome"  # the browser session: Chrome's answer


def test_only_the_client_that_created_a_context_may_dispose_of_it() -> None:
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    attach(router, B, "SB")
    answer(router, ask(router, A, {"id": 1, "method": "Target.createBrowserContext"}), {"browserContextId": "X1"}, "SA")
    dispose = {"id": 2, "method": "Target.disposeBrowserContext", "params": {"browserContextId": "X1"}}
    assert refused_with(ask(router, B, dispose), B, 2) == (
        "Target.disposeBrowserContext is refused: browser context X1 was not created by this client"
    )
    assert refused_with(ask(router, B, {**dispose, "params": {}}), B, 2).endswith(
        "browser context None was not created by this client"
    )
    answer(router, ask(router, A, dispose), {}, "SA")
    assert router.status(A)["contexts"] == []  # type: ignore[index]
    assert [type(a) for a in router.client_gone(A)] == [ToChrome]  # the detach: nothing left to sweep


def test_a_client_may_hold_32_targets_and_32_contexts() -> None:
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    attach(router, B, "SB")
    for n in range(32):  # answered or not: a create on its way counts
        assert (
            ask(router, A, {"id": n, "method": "Target.createTarget", "params": {"url": "about:blank"}})[0][0]
            == "chrome"
        )
        assert ask(router, A, {"id": 100 + n, "method": "Target.createBrowserContext"})[0][0] == "chrome"
    why = refused_with(ask(router, A, {"id": 99, "method": "Target.createTarget", "params": {"url": "x"}}), A, 99)
    assert (
        why
        == "Target.createTarget is refused: this client has 32 targets open, the proxy's limit per client (close some first)"
    )
    why = refused_with(ask(router, A, {"id": 199, "method": "Target.createBrowserContext"}), A, 199)
    assert "32 browser contexts open, the proxy's limit per client" in why
    assert ask(router, B, {"id": 1, "method": "Target.createTarget", "params": {"url": "x"}})[0][0] == "chrome"


def test_the_editor_tab_closed_or_crashed_is_opened_again() -> None:
    router = Router(editor_url=EDITOR_URL)
    discovering(router)
    # the editor page with a query of its own is still the editor page; the tab is opened again at
    # the owner's address, never at one learnt from the tab (a client may have moved it)
    changed = {"targetId": "ED", "type": "page", "url": EDITOR_URL + "?project=x"}
    assert router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": changed}})) == []
    out = router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": "ED"}}))
    assert out[0] == Note(f"editor tab ED was closed; opening it again ({EDITOR_URL})")
    [(_, command)] = sent(out[1:])
    assert (command["method"], command["params"]) == ("Target.createTarget", {"url": EDITOR_URL})
    assert router.editor is None
    assert router.from_chrome(created("ED2", url=EDITOR_URL)) == []  # not anyone's, not yet the editor
    assert router.from_chrome(j({"id": command["id"], "result": {"targetId": "ED2"}})) == [
        Note("editor tab opened again (target ED2)")
    ]
    assert router.editor == "ED2"
    # a crash: the dead tab is closed and a new one opened
    crash = router.from_chrome(
        j({"method": "Target.targetCrashed", "params": {"targetId": "ED2", "status": "crashed"}})
    )
    assert [(m["method"], m["params"]) for _, m in sent([a for a in crash if isinstance(a, ToChrome)])] == [
        ("Target.closeTarget", {"targetId": "ED2"}),
        ("Target.createTarget", {"url": EDITOR_URL}),
    ]
    assert Note(f"editor tab ED2 crashed (crashed); opening it again ({EDITOR_URL})") in crash
    # another page's end is nobody's business
    assert router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": "ZZ"}})) == []


def test_an_owner_whose_chrome_shows_no_page_opens_the_editor_tab() -> None:
    router = Router(editor_url=EDITOR_URL)
    [(_, command)] = sent(router.watch_targets())
    out = router.from_chrome(j({"id": command["id"], "result": {}}))
    assert out[0] == Note(f"no editor tab was open; opening it again ({EDITOR_URL})")
    assert sent(out[1:])[0][1]["params"] == {"url": EDITOR_URL}


def test_connect_options_from_the_websocket_url() -> None:
    from pix3net.wire.router import connect_options

    assert connect_options("/pix3") == (False, None)
    assert connect_options("/pix3?keep=1") == (True, None)
    assert connect_options("/pix3/page/T1?keep=true&client=claude-code") == (True, "claude-code")
    assert connect_options("/pix3?client=pi.2_b") == (False, "pi.2_b")
    assert connect_options("/pix3?keep=0&client=" + "x" * 32) == (False, "x" * 32)
    # An untrusted name that is not a short lowercase word is ignored whole (the user agent shows).
    for bad in ("x" * 33, "my%20script", "%1b%5b31m", "Claude", "-x", ".x", "", "a%0ab", "<b>x</b>"):
        assert connect_options(f"/pix3?client={bad}") == (False, None), bad


def test_webmcp_events_go_to_the_client_whose_page_session_enabled_them() -> None:
    router = Router()
    attach(router, A, "SA")
    attach(router, B, "SB")
    info = {"sessionId": "PA", "targetInfo": {"targetId": "T1", "type": "page"}}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": info, "sessionId": "SA"}))
    assert ask(router, A, {"id": 1, "method": "WebMCP.enable", "sessionId": "PA"})[0][0] == "chrome"
    added = {"method": "WebMCP.toolsAdded", "params": {"tools": [{"name": "pix3_status"}]}, "sessionId": "PA"}
    assert sent(router.from_chrome(j(added))) == [(A, added)]
    # B cannot reach A's page session, nor its WebMCP domain
    assert refused_session(ask(router, B, {"id": 2, "method": "WebMCP.enable", "sessionId": "PA"}))


def refused_session(actions: list[Any]) -> bool:
    [(_, reply)] = actions
    return bool(reply["error"]["code"] == -32001)


def test_the_tab_that_holds_the_editor_page_is_known_by_its_id_not_by_an_attach() -> None:
    # Chrome reports the editor's tab and page at the start (in either order: the one tab is the
    # editor's), and a new tab's target just before the page inside it.
    for order in (("EDTAB", "ED"), ("ED", "EDTAB")):
        router = Router(editor_url=EDITOR_URL)
        [(_, command)] = sent(router.watch_targets())
        for target in order:
            router.from_chrome(created(target, kind="tab" if target == "EDTAB" else "page", url=EDITOR_URL))
        router.from_chrome(j({"id": command["id"], "result": {}}))
        assert (router.editor, router.owners.editor_tab) == ("ED", "EDTAB"), order
    attach(router, A, "SA")
    # >> the attack: A attaches the editor's tab, then its own page on the tab's session, as if it
    # were the page that tab holds; << the tab is still the editor's (issue 31, item 6)
    tab = {"sessionId": "ST", "targetInfo": {"targetId": "EDTAB", "type": "tab"}}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": tab, "sessionId": "SA"}))
    mine = {"sessionId": "SM", "targetInfo": {"targetId": "MINE", "type": "page"}}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": mine, "sessionId": "ST"}))
    why = refused_with(ask(router, A, {"id": 1, "method": "Target.closeTarget", "params": {"targetId": "EDTAB"}}), A, 1)
    assert why.startswith("Target.closeTarget is refused: EDTAB is the pix3 editor tab")
    # a tab opened later holds the page Chrome reported right after it: that one may be closed
    router.from_chrome(created("TAB2", kind="tab"))
    router.from_chrome(created("P2"))
    assert ask(router, A, {"id": 2, "method": "Target.closeTarget", "params": {"targetId": "TAB2"}})[0][0] == "chrome"
    # a tab that goes is forgotten
    router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": "TAB2"}}))
    assert "TAB2" not in router.owners.tabs and "TAB2" not in router.owners.tab_page
    # the editor tab opened again: its new tab is the editor's (the createTarget answered before or after)
    out = router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": "ED"}}))
    [(_, reopen)] = sent([a for a in out if isinstance(a, ToChrome)])
    router.from_chrome(created("EDTAB2", kind="tab"))
    router.from_chrome(created("ED2", url=EDITOR_URL))
    router.from_chrome(j({"id": reopen["id"], "result": {"targetId": "ED2"}}))
    assert (router.editor, router.owners.editor_tab) == ("ED2", "EDTAB2")
    why = refused_with(
        ask(router, A, {"id": 3, "method": "Target.closeTarget", "params": {"targetId": "EDTAB2"}}), A, 3
    )
    assert why.startswith("Target.closeTarget is refused: EDTAB2 is the pix3 editor tab")


def test_discovery_refused_by_chrome_opens_nothing_on_a_guess() -> None:
    router = Router(editor_url=EDITOR_URL)
    [(_, command)] = sent(router.watch_targets())
    refused = j({"id": command["id"], "error": {"code": -32602, "message": "Invalid parameters"}})
    assert router.from_chrome(refused) == [
        Note("target discovery failed (Invalid parameters): pages opened by pages are not tracked")
    ]
    assert router.editor is None


def test_the_unflattened_way_is_refused_whatever_it_wraps_and_wherever_it_goes() -> None:
    # A page session has the Browser domain: `Browser.close` wrapped for a client's own page (or
    # for the browser target attached with flatten: false) ended Chrome for every client.
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    for target, session in (("ED", "NF"), ("MINE", "NM"), ("BROWSER", "NB")):
        info = {"sessionId": session, "targetInfo": {"targetId": target, "type": "page"}}
        router.from_chrome(j({"method": "Target.attachedToTarget", "params": info, "sessionId": "SA"}))
    for inner in ({"id": 1, "method": "Browser.close"}, {"id": 1, "method": "Runtime.evaluate"}):
        text = json.dumps(inner)
        for params in (
            {"sessionId": "NF", "message": text},
            {"sessionId": "NM", "message": text},
            {"sessionId": "NB", "message": text},
            {"targetId": "MINE", "message": text},
        ):
            asked = {"id": 3, "method": "Target.sendMessageToTarget", "params": params}
            why = refused_with(ask(router, A, asked), A, 3)
            assert why == (
                "Target.sendMessageToTarget is refused: the proxy does not pass wrapped commands; attach with"
                " flatten: true and send the command on that session"
            )


def test_a_page_is_never_given_a_protocol_session_of_its_own() -> None:
    # `Target.exposeDevToolsProtocol` then `cdp.send('{"id":1,"method":"Browser.close"}')` from the
    # page's script ended Chrome: the page's own session never passes the proxy.
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    for target in ("ED", "MINE"):
        asked = {"id": 4, "method": "Target.exposeDevToolsProtocol", "params": {"targetId": target}}
        assert refused_with(ask(router, A, asked), A, 4).startswith("Target.exposeDevToolsProtocol is refused")


def test_chromes_debugging_urls_are_never_navigated_to() -> None:
    # `Page.navigate {url: "chrome://inducebrowsercrashforrealz", transitionType: "address_bar"}`
    # crashed the whole browser (SIGTRAP); Chrome reads the scheme in any case, after spaces and
    # control characters, with tabs and newlines inside, behind `view-source:`.
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    info = {"sessionId": "PA", "targetInfo": {"targetId": "MINE", "type": "page"}}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": info, "sessionId": "SA"}))
    for url in (
        "chrome://inducebrowsercrashforrealz",
        "CHROME://INDUCEBROWSERCRASHFORREALZ/",
        "chrome:inducebrowsercrashforrealz",
        " \x00chrome://hang",
        "chr\tome://kill",
        "ch\nrome://gpucrash",
        "view-source:chrome://crash",
        "VIEW-SOURCE:view-source:chrome://crash",
        "view-source:" * 64 + "chrome://crash",
    ):
        params = {"url": url, "transitionType": "address_bar"}
        [(where, reply)] = ask(router, A, {"id": 5, "method": "Page.navigate", "sessionId": "PA", "params": params})
        assert where == A and reply["error"]["code"] == -32000 and reply["sessionId"] == "PA", url
        assert reply["error"]["message"] == (
            "Page.navigate is refused: chrome: URLs include Chrome's debugging pages, which crash or hang"
            " the browser other clients share"
        )
        create = {"id": 6, "method": "Target.createTarget", "params": {"url": url}}
        assert refused_with(ask(router, A, create), A, 6).startswith("Target.createTarget is refused: chrome: URLs")
    harmless = ("http://localhost:5173/__pix3/", "about:blank", "view-source:http://x/", "data:text/html,chrome://x")
    # `about:` names of the debugging pages did nothing when tried on Chromium here
    for url in (*harmless, "view-source:" * 6 + "http://x/", "about:inducebrowsercrashforrealz", "chromex://y", ""):
        asked = {"id": 7, "method": "Page.navigate", "sessionId": "PA", "params": {"url": url}}
        assert ask(router, A, asked)[0][0] == "chrome", url
        assert ask(router, A, {"id": 8, "method": "Target.createTarget", "params": {"url": url}})[0][0] == "chrome"


def test_a_tab_target_whose_page_is_unknown_may_hold_the_editor_and_is_refused() -> None:
    # `Target.getTargets {filter: [{type: "tab"}]}` lists the editor's tab target beside its page,
    # unlinked; `Target.closeTarget` of it closed the editor tab (and its unsaved work). With two
    # tabs at the start the proxy cannot tell which holds the editor page.
    router = Router()
    [(_, command)] = sent(router.watch_targets())
    router.from_chrome(created("ED", url=EDITOR_URL))
    router.from_chrome(created("EDTAB", kind="tab", url=EDITOR_URL))
    router.from_chrome(created("OTHERTAB", kind="tab"))
    router.from_chrome(j({"id": command["id"], "result": {}}))
    assert router.editor == "ED" and router.owners.editor_tab is None
    attach(router, A, "SA")
    for n, unknown in enumerate(("EDTAB", "OTHERTAB")):
        close = {"id": n, "method": "Target.closeTarget", "params": {"targetId": unknown}}
        assert refused_with(ask(router, A, close), A, n) == (
            f"Target.closeTarget is refused: {unknown} is a tab target and the proxy has not seen which page it holds"
            " (it may be the pix3 editor tab): close the page target instead"
        )
    # a tab reported without its page (a client's session told of it) is refused too
    tab = {"sessionId": "ST", "targetInfo": {"targetId": "TAB3", "type": "tab"}}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": tab, "sessionId": "SA"}))
    close = {"id": 2, "method": "Target.closeTarget", "params": {"targetId": "TAB3"}}
    assert refused_with(ask(router, A, close), A, 2).startswith("Target.closeTarget is refused: TAB3 is a tab")


@st.composite
def _ownership_traffic(draw: st.DrawFn) -> list[tuple[str, int, int]]:
    kinds = st.sampled_from(["create", "context", "popup", "destroy", "close_editor", "gone", "sweep", "browser_close"])
    return [
        (draw(kinds), draw(st.sampled_from([A, B])), draw(st.integers(0, 7))) for _ in range(draw(st.integers(0, 40)))
    ]


@settings(max_examples=200, deadline=None)
@given(_ownership_traffic())
def test_only_what_a_client_opened_is_ever_closed_for_it_and_never_the_editor(
    steps: list[tuple[str, int, int]],
) -> None:
    router = Router()
    discovering(router)
    roots = {A: "SA", B: "SB"}
    for client, root in roots.items():
        attach(router, client, root)
    opened: dict[int, set[str]] = {A: set(), B: set()}  # what each client created, or its pages opened
    contexts: dict[int, set[str]] = {A: set(), B: set()}
    alive = {A, B}
    serial = 0

    def closed_by_proxy(actions: list[Action]) -> list[tuple[str, str]]:
        found = []
        for action in actions:
            if isinstance(action, ToChrome):
                message = json.loads(action.data)
                if message.get("method") in ("Target.closeTarget", "Target.disposeBrowserContext"):
                    found.append((message["method"], next(iter(message["params"].values()))))
        return found

    for kind, client, number in steps:
        serial += 1
        if kind in ("create", "context") and client in alive:
            method = "Target.createTarget" if kind == "create" else "Target.createBrowserContext"
            [(where, command)] = ask(router, client, {"id": serial, "method": method, "params": {}})
            if where != "chrome":
                continue  # refused: a cap
            ident = f"{kind[0].upper()}{serial}"
            key = "targetId" if kind == "create" else "browserContextId"
            reply = j({"id": command["id"], "result": {key: ident}, "sessionId": roots[client]})
            for _, ident_closed in closed_by_proxy(router.from_chrome(reply)):
                assert ident_closed == ident  # only a late create is closed on arrival
            (opened if kind == "create" else contexts)[client].add(ident)
        elif kind == "popup":
            mine = sorted(opened[client])
            if mine:
                popup = f"W{serial}"
                router.from_chrome(created(popup, openerId=mine[number % len(mine)]))
                opened[client].add(popup)
        elif kind == "destroy":
            every = sorted(opened[A] | opened[B])
            if every:
                gone_target = every[number % len(every)]
                router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": gone_target}}))
        elif kind == "close_editor" and client in alive:
            [(where, _)] = ask(
                router, client, {"id": serial, "method": "Target.closeTarget", "params": {"targetId": "ED"}}
            )
            assert where == client  # refused, never sent
        elif kind in ("gone", "sweep", "browser_close"):
            if kind == "gone":
                actions = router.client_gone(client)
            elif kind == "sweep":
                actions = router.sweep(client)
            else:
                actions = router.from_client(client, '{"id":1,"method":"Browser.close"}') if client in alive else []
            for method, ident in closed_by_proxy(actions):
                assert ident != "ED"
                owned = opened[client] if method == "Target.closeTarget" else contexts[client]
                assert ident in owned, (method, ident, client)
            if kind != "sweep":
                alive.discard(client)
        # a target is never held by two clients
        holdings = router.owners.holdings
        if A in holdings and B in holdings:
            assert not (holdings[A].targets & holdings[B].targets)
            assert not (holdings[A].contexts & holdings[B].contexts)


def test_a_keepers_create_answered_after_it_left_is_kept_too() -> None:
    router = Router()
    discovering(router)
    [(_, command)] = sent(router.open_client(A, keep=True))
    router.from_chrome(j({"id": command["id"], "result": {"sessionId": "SA"}}))
    asked = ask(router, A, {"id": 1, "method": "Target.createTarget", "params": {"url": "about:blank"}})
    assert router.client_gone(A)[-1] == Sweep(A, 1.0)  # waits for the create on its way
    assert answer(router, asked, {"targetId": "LATE"}, "SA") == []  # not closed
    assert router.sweep(A) == [Note("client 1 left 1 targets and 0 contexts open (keep)")]


# -- what outlives a client, the editor tab's address, kept targets (issue 31, items 5-7) ----------


def commands(actions: list[Action]) -> list[tuple[str | None, str, dict[str, Any]]]:
    """The proxy's own commands to Chrome: (sessionId, method, params)."""
    mine = [a for a in actions if isinstance(a, ToChrome)]
    return [(m.get("sessionId"), m["method"], m["params"]) for _, m in sent(list(mine))]


def test_a_client_that_leaves_lets_waiting_targets_run_and_turns_its_auto_attach_off_first() -> None:
    # An abandoned `Target.setAutoAttach {waitForDebuggerOnStart: true}`: a popup of the editor page
    # waited for a debugger forever after the client left (Chromium does not let it run when the
    # session detaches), and the editor page's next window.open failed.
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    attach(router, B, "SB")
    auto = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
    assert ask(router, A, {"id": 1, "method": "Target.setAutoAttach", "params": auto})[0][0] == "chrome"
    # << Chrome auto-attaches a popup to A's root, waiting; and a page with nothing to wait for
    waiting = {"sessionId": "W1", "targetInfo": {"targetId": "POP", "type": "page"}, "waitingForDebugger": True}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": waiting, "sessionId": "SA"}))
    running = {"sessionId": "R1", "targetInfo": {"targetId": "RUN", "type": "page"}, "waitingForDebugger": False}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": running, "sessionId": "SA"}))
    # >> A leaves: W1 is let run, A's auto-attach turned off; the root waits for that answer
    gone = router.client_gone(A)
    off = {"autoAttach": False, "waitForDebuggerOnStart": False, "flatten": True}
    assert commands(gone) == [
        ("W1", "Runtime.runIfWaitingForDebugger", {}),
        ("SA", "Target.setAutoAttach", off),
    ]
    # << a target Chrome auto-attached for A before it turned auto-attach off is let run too
    late = {"sessionId": "W2", "targetInfo": {"targetId": "POP2", "type": "page"}, "waitingForDebugger": True}
    assert commands(
        router.from_chrome(j({"method": "Target.attachedToTarget", "params": late, "sessionId": "SA"}))
    ) == [("W2", "Runtime.runIfWaitingForDebugger", {})]
    # << the answer: now the root is detached (its children go with it)
    [(_, off_command)] = [c for c in sent(gone) if c[1]["method"] == "Target.setAutoAttach"]
    assert commands(router.from_chrome(j({"id": off_command["id"], "result": {}, "sessionId": "SA"}))) == [
        (None, "Target.detachFromTarget", {"sessionId": "SA"})
    ]
    # B's own session was never touched, and events there after all that are B's
    event = {"method": "Target.attachedToTarget", "params": {**late, "sessionId": "W3"}, "sessionId": "SB"}
    assert [w for w, _ in sent(router.from_chrome(j(event)))] == [B]


def test_what_a_client_resumed_or_turned_off_itself_is_left_alone() -> None:
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    info = {"sessionId": "PA", "targetInfo": {"targetId": "MINE", "type": "page"}}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": info, "sessionId": "SA"}))
    auto = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
    ask(router, A, {"id": 1, "method": "Target.setAutoAttach", "params": auto, "sessionId": "PA"})
    waiting = {"sessionId": "W1", "targetInfo": {"targetId": "FRAME", "type": "iframe"}, "waitingForDebugger": True}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": waiting, "sessionId": "PA"}))
    ask(router, A, {"id": 2, "method": "Runtime.runIfWaitingForDebugger", "sessionId": "W1"})
    ask(
        router,
        A,
        {"id": 3, "method": "Target.setAutoAttach", "params": {**auto, "autoAttach": False}, "sessionId": "PA"},
    )
    assert commands(router.client_gone(A)) == [(None, "Target.detachFromTarget", {"sessionId": "SA"})]
    # Browser.close ends a session the same way: a waiting target is let run before the detach
    attach(router, B, "SB")
    router.from_chrome(
        j({"method": "Target.attachedToTarget", "params": {**waiting, "sessionId": "W9"}, "sessionId": "SB"})
    )
    out = commands(router.from_client(B, '{"id":4,"method":"Browser.close"}'))
    assert out == [
        ("W9", "Runtime.runIfWaitingForDebugger", {}),
        (None, "Target.detachFromTarget", {"sessionId": "SB"}),
    ]


def test_who_has_the_debugger_on_a_target_is_known_by_session() -> None:
    # The owner's watchdog keeps its own debugger on, so Chrome no longer resumes a pause when the
    # pausing client leaves; it resumes it once no client's debugger is left on the target. A
    # client merely attached there (a page client reading the tab) does not hold the pause.
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    attach(router, B, "SB")
    editor_session(router, A, "SA", "PA")
    editor_session(router, B, "SB", "PB")
    assert router.debuggers("ED") == frozenset()
    ask(router, A, {"id": 1, "method": "Debugger.enable", "sessionId": "PA"})
    ask(router, B, {"id": 1, "method": "Runtime.evaluate", "params": {"expression": "1"}, "sessionId": "PB"})
    assert router.debuggers("ED") == {A}
    ask(router, B, {"id": 2, "method": "Debugger.enable", "sessionId": "PB"})
    ask(router, B, {"id": 3, "method": "Debugger.disable", "sessionId": "PB"})
    assert router.debuggers("ED") == {A}
    router.from_chrome(j({"method": "Target.detachedFromTarget", "params": {"sessionId": "PA"}, "sessionId": "SA"}))
    assert router.debuggers("ED") == frozenset()  # its session gone, its debugger with it
    ask(router, B, {"id": 4, "method": "Debugger.enable", "sessionId": "PB"})
    router.client_gone(B)
    assert router.debuggers("ED") == frozenset()  # gone with its client


def editor_session(router: Router, client: int, root: str, session: str = "PE") -> None:
    info = {"sessionId": session, "targetInfo": {"targetId": "ED", "type": "page"}}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": info, "sessionId": root}))


def test_the_editor_tab_is_never_navigated_away_by_a_client() -> None:
    router = Router(editor_url=EDITOR_URL)
    discovering(router)
    attach(router, A, "SA")
    editor_session(router, A, "SA")
    attach(router, B, "SP", page="ED")  # a page client of the editor tab
    refused = (
        "Page.navigate is refused: this session is attached to the pix3 editor tab, which stays on the"
        f" editor page ({EDITOR_URL}); open a tab of your own with Target.createTarget"
    )
    for url in (
        "about:blank#moved",
        "http://evil.example/",
        EDITOR_URL + "/../../x",
        " " + EDITOR_URL + "x",
        "javascript:1",
        "http://evil.example/__pix3/editor",
        "http://127.0.0.1.nip.io:5173/__pix3/editor",
        "http://user@127.0.0.1:6000/__pix3/editor",
        "HTTP://127.0.0.1:6000/__pix3/editor",
        "http://127.0.0.1:6000/__pix3/editor/../editor",
    ):
        [(where, reply)] = ask(
            router, A, {"id": 1, "method": "Page.navigate", "sessionId": "PE", "params": {"url": url}}
        )
        assert (where, reply["error"]["message"], reply["sessionId"]) == (A, refused, "PE"), url
        assert (
            refused_with(ask(router, B, {"id": 2, "method": "Page.navigate", "params": {"url": url}}), B, 2) == refused
        )
    history = {"id": 3, "method": "Page.navigateToHistoryEntry", "params": {"entryId": 1}}
    assert refused_with(ask(router, B, history), B, 3).startswith("Page.navigateToHistoryEntry is refused")
    # the editor page itself (any query), a reload, a child frame (the game's) and another page are fine
    for params in (
        {"url": EDITOR_URL},
        {"url": EDITOR_URL + "?scene=res://a.pix3scene#x"},
        {"url": "http://game.example/", "frameId": "GAMEFRAME"},
    ):
        assert ask(router, B, {"id": 4, "method": "Page.navigate", "params": params})[0][0] == "chrome", params
    assert ask(router, B, {"id": 5, "method": "Page.reload"})[0][0] == "chrome"
    # the same page of a dev server on another loopback port: `pix3 editor` sends the tab it
    # launched on a guessed address to the one the server took, which is then the tab's address
    other = "http://localhost:6000/__pix3/editor"
    assert ask(router, B, {"id": 7, "method": "Page.navigate", "params": {"url": other}})[0][0] == "chrome"
    arrived = {"targetId": "ED", "type": "page", "url": other + "?x=1"}
    assert router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": arrived}})) == []
    assert router.owners.home_url == other + "?x=1"
    out = router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": "ED"}}))
    assert (None, "Target.createTarget", {"url": other + "?x=1"}) in commands(out)
    mine = {"sessionId": "PM", "targetInfo": {"targetId": "MINE", "type": "page"}}
    router.from_chrome(j({"method": "Target.attachedToTarget", "params": mine, "sessionId": "SA"}))
    asked = {"id": 6, "method": "Page.navigate", "sessionId": "PM", "params": {"url": "about:blank#moved"}}
    assert ask(router, A, asked)[0][0] == "chrome"


def test_the_editor_tab_moved_by_a_script_is_sent_back_to_the_owners_address() -> None:
    router = Router(editor_url=EDITOR_URL)
    discovering(router)
    # << `location = "about:blank#moved"` run in the editor page: Chrome reports the new address
    moved = {"targetId": "ED", "type": "page", "url": "about:blank#moved"}
    out = router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": moved}}))
    assert out[0] == Note(f"editor tab ED was moved to about:blank#moved; sending it back to {EDITOR_URL}")
    [(_, attach_command)] = sent(out[1:])
    assert (attach_command["method"], attach_command["params"]) == (
        "Target.attachToTarget",
        {"targetId": "ED", "flatten": True},
    )
    # a second move meanwhile starts nothing new
    again = {**moved, "url": "about:blank#again"}
    assert router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": again}})) == []
    navigating = router.from_chrome(j({"id": attach_command["id"], "result": {"sessionId": "OWN"}}))
    assert commands(navigating) == [("OWN", "Page.navigate", {"url": EDITOR_URL})]
    [(_, navigate)] = sent(navigating)
    # events of the proxy's own session reach no client
    attach(router, A, "SA")
    assert router.from_chrome(b'{"method":"Page.frameNavigated","params":{},"sessionId":"OWN"}') == []
    assert commands(router.from_chrome(j({"id": navigate["id"], "result": {"frameId": "ED"}, "sessionId": "OWN"}))) == [
        (None, "Target.detachFromTarget", {"sessionId": "OWN"})
    ]
    home = {**moved, "url": EDITOR_URL}
    assert router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": home}})) == []
    assert router.owners.page_urls["ED"] == EDITOR_URL
    # the tab closed later opens again at the owner's address, not at one it was moved to
    router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": again}}))
    out = router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": "ED"}}))
    assert (None, "Target.createTarget", {"url": EDITOR_URL}) in commands(out)


def test_a_reopened_editor_tab_is_blank_before_it_shows_the_editor_page() -> None:
    router = Router(editor_url=EDITOR_URL)
    discovering(router)
    out = router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": "ED"}}))
    [(_, reopen)] = sent([a for a in out if isinstance(a, ToChrome)])
    router.from_chrome(j({"id": reopen["id"], "result": {"targetId": "ED2"}}))
    router.from_chrome(created("ED2", url="about:blank"))
    blank = {"targetId": "ED2", "type": "page", "url": "about:blank"}
    assert router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": blank}})) == []
    arrived = {**blank, "url": EDITOR_URL}
    assert router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": arrived}})) == []
    # Chrome reports "" while a navigation is on its way (each navigation to a data: URL): no move
    pending = {**blank, "url": ""}
    assert router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": pending}})) == []
    # once home, even a plain about:blank is a move
    out = router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": blank}}))
    assert out and isinstance(out[0], Note) and "sending it back" in out[0].text
    [(_, attach_command)] = sent(out[1:])
    [(_, navigate)] = sent(router.from_chrome(j({"id": attach_command["id"], "result": {"sessionId": "OWN"}})))
    router.from_chrome(j({"id": navigate["id"], "result": {}, "sessionId": "OWN"}))
    # on its way back: what it shows before the editor page starts nothing (it looped, sending it
    # back again at each "" of its own navigation)
    for url in ("", "about:blank", ""):
        on_its_way = {**blank, "url": url}
        assert router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": on_its_way}})) == []


def keeper(router: Router, client: int, root: str) -> None:
    [(_, command)] = sent(router.open_client(client, keep=True))
    router.from_chrome(j({"id": command["id"], "result": {"sessionId": root}}))


def test_kept_targets_are_bounded_for_all_clients_together_the_oldest_closed() -> None:
    # three `?keep=1` clients x 32 tabs left 96 tabs (Chrome at 11.9 GB) after they left
    router = Router()
    discovering(router)
    serial = 0
    for client, root in ((A, "SA"), (B, "SB"), (3, "SC")):
        keeper(router, client, root)
        for _ in range(20):
            serial += 1
            asked = ask(
                router, client, {"id": serial, "method": "Target.createTarget", "params": {"url": "about:blank"}}
            )
            answer(router, asked, {"targetId": f"T{serial:03}"}, root)
        if client == 3:
            asked = ask(router, client, {"id": 99, "method": "Target.createBrowserContext"})
            answer(router, asked, {"browserContextId": "X1"}, root)
    assert commands(router.client_gone(A))[1:] == []  # 20 kept: under the bound
    out = router.client_gone(B)  # 40: the 8 oldest (A's first) go
    assert [p["targetId"] for _, m, p in commands(out) if m == "Target.closeTarget"] == [
        f"T{n:03}" for n in range(1, 9)
    ]
    assert out[-1] == Note(
        "kept past their clients: over 32 targets or 32 browser contexts, closed the oldest 8 targets and 0 browser contexts"
    )
    out = router.client_gone(3)
    assert len([m for _, m, _ in commands(out) if m == "Target.closeTarget"]) == 20
    kept = router.kept()
    assert [t["targetId"] for t in kept["targets"]] == [f"T{n:03}" for n in range(29, 61)]
    assert kept["targets"][0]["client"] == B and kept["targets"][-1]["client"] == 3
    assert kept["contexts"] == [{"browserContextId": "X1", "client": 3}]
    # a kept page's popup is kept too, and the bound holds: the oldest goes
    out = router.from_chrome(created("POPUP", openerId="T060"))
    assert [p["targetId"] for _, m, p in commands(out)] == ["T029"]
    assert [t["targetId"] for t in router.kept()["targets"]][-1] == "POPUP"
    # a kept target that closes is forgotten
    router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": "T030"}}))
    assert len(router.kept()["targets"]) == 31


def test_popups_of_a_clients_pages_count_against_its_cap() -> None:
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    for n in range(31):
        answer(
            router,
            ask(router, A, {"id": n, "method": "Target.createTarget", "params": {"url": "x"}}),
            {"targetId": f"P{n}"},
            "SA",
        )
    assert router.from_chrome(created("POP1", openerId="P0")) == []  # the 32nd: A's
    out = router.from_chrome(created("POP2", openerId="POP1"))
    assert commands(out) == [(None, "Target.closeTarget", {"targetId": "POP2"})]
    assert out[-1] == Note("closed popup POP2: its opener's client is at its limit of 32 targets")
    assert len(router.status(A)["targets"]) == 32  # type: ignore[index]
    why = refused_with(ask(router, A, {"id": 99, "method": "Target.createTarget", "params": {"url": "x"}}), A, 99)
    assert "32 targets open" in why


def test_a_tab_launched_blank_takes_the_address_pix3_editor_gives_it_and_keeps_it() -> None:
    # A cold `pix3 editor` launches Chrome on about:blank before the dev server's address is
    # known, then navigates that tab to the editor page: that first address is the editor tab's.
    router = Router(editor_url="about:blank")
    [(_, command)] = sent(router.watch_targets())
    router.from_chrome(created("ED", url="about:blank"))
    router.from_chrome(j({"id": command["id"], "result": {}}))
    attach(router, A, "SP", page="ED")
    assert ask(router, A, {"id": 1, "method": "Page.navigate", "params": {"url": EDITOR_URL}})[0][0] == "chrome"
    for url in ("", "about:blank", EDITOR_URL):
        info = {"targetId": "ED", "type": "page", "url": url}
        assert router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": info}})) == []
    assert refused_with(ask(router, A, {"id": 2, "method": "Page.navigate", "params": {"url": "about:blank#x"}}), A, 2)
    moved = {"targetId": "ED", "type": "page", "url": "http://elsewhere.example/"}
    out = router.from_chrome(j({"method": "Target.targetInfoChanged", "params": {"targetInfo": moved}}))
    assert out[0] == Note(f"editor tab ED was moved to http://elsewhere.example/; sending it back to {EDITOR_URL}")
    out = router.from_chrome(j({"method": "Target.targetDestroyed", "params": {"targetId": "ED"}}))
    assert (None, "Target.createTarget", {"url": EDITOR_URL}) in commands(out)


@st.composite
def _debugger_traffic(draw: st.DrawFn) -> list[tuple[str, int]]:
    kinds = st.sampled_from(["auto_on", "auto_off", "waiting", "running", "resume", "detach"])
    return [(draw(kinds), draw(st.integers(0, 9))) for _ in range(draw(st.integers(0, 30)))]


@settings(max_examples=200, deadline=None)
@given(_debugger_traffic(), st.integers(0, 3))
def test_every_target_left_waiting_runs_once_and_the_root_goes_last(steps: list[tuple[str, int]], late: int) -> None:
    router = Router()
    discovering(router)
    attach(router, A, "SA")
    sessions = ["SA"]  # A's sessions, in the order they came
    parents: dict[str, str] = {}
    waiting: set[str] = set()  # children still waiting for a debugger
    auto: set[str] = set()
    for serial, (kind, number) in enumerate(steps, 1):
        on = sessions[number % len(sessions)]
        if kind in ("auto_on", "auto_off"):
            params = {"autoAttach": kind == "auto_on", "waitForDebuggerOnStart": True, "flatten": True}
            ask(router, A, {"id": serial, "method": "Target.setAutoAttach", "params": params, "sessionId": on})
            (auto.add if kind == "auto_on" else auto.discard)(on)
        elif kind in ("waiting", "running"):
            child = f"C{serial}"
            info = {"sessionId": child, "targetInfo": {"targetId": f"T{serial}", "type": "page"}}
            event = {**info, "waitingForDebugger": kind == "waiting"}
            router.from_chrome(j({"method": "Target.attachedToTarget", "params": event, "sessionId": on}))
            sessions.append(child)
            parents[child] = on
            if kind == "waiting":
                waiting.add(child)
        elif kind == "resume" and on in waiting:
            ask(router, A, {"id": serial, "method": "Runtime.runIfWaitingForDebugger", "sessionId": on})
            waiting.discard(on)
        elif kind == "detach" and on != "SA":  # Chrome detached a child (and its children)
            event = {"sessionId": on, "targetId": "T"}
            router.from_chrome(j({"method": "Target.detachedFromTarget", "params": event, "sessionId": parents[on]}))
            gone = {on}
            while below := {s for s in sessions if parents.get(s) in gone} - gone:
                gone |= below
            assert router.sessions_of(A) == set(sessions) - gone
            sessions = [s for s in sessions if s not in gone]
            waiting -= gone
            auto -= gone
    out = router.client_gone(A)
    ran = [str(s) for s, m, _ in commands(out) if m == "Runtime.runIfWaitingForDebugger"]
    detached = [p["sessionId"] for _, m, p in commands(out) if m == "Target.detachFromTarget"]
    assert sorted(ran) == sorted(waiting)  # each once, only what still waits
    if not auto:
        assert detached == ["SA"] and commands(out)[-1][1] == "Target.detachFromTarget"
        return
    assert detached == []  # the root waits for Chrome's answer to the auto-attach's undo
    offs = [(m["sessionId"], m["id"]) for _, m in sent(out) if m["method"] == "Target.setAutoAttach"]
    assert sorted(s for s, _ in offs) == sorted(auto)
    # targets Chrome auto-attached meanwhile, on any of A's sessions, are let run
    for n in range(late):
        event = {"sessionId": f"L{n}", "targetInfo": {"targetId": f"LT{n}"}, "waitingForDebugger": True}
        parent = sessions[n % len(sessions)]
        assert commands(
            router.from_chrome(j({"method": "Target.attachedToTarget", "params": event, "sessionId": parent}))
        ) == [(f"L{n}", "Runtime.runIfWaitingForDebugger", {})]
    for _, pipe_id in offs[:-1]:
        assert router.from_chrome(j({"id": pipe_id, "result": {}})) == []
    assert commands(router.from_chrome(j({"id": offs[-1][1], "result": {}}))) == [
        (None, "Target.detachFromTarget", {"sessionId": "SA"})
    ]
    # after the detach, nothing of A's is listened to any more
    event = {"sessionId": "Z", "targetInfo": {"targetId": "ZT"}, "waitingForDebugger": True}
    assert router.from_chrome(j({"method": "Target.attachedToTarget", "params": event, "sessionId": "SA"})) == []
