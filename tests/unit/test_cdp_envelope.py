"""The envelope splice (docs/cdp-proxy.md, "Big messages") agrees with parse-and-dump on every message shape."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pix3net.wire.envelope import ClientRequest, chrome_envelope, client_request, members

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_SESSION = st.from_regex(r"[0-9A-F]{1,32}", fullmatch=True)


def _expected(message: dict[str, Any], client_id: str | None, drop: bool) -> dict[str, Any]:
    out = dict(message)
    if client_id is not None:
        out["id"] = json.loads(client_id)
    if drop:
        out.pop("sessionId", None)
    return out


@given(
    st.integers(1, 2**31 - 1),
    _JSON,
    st.one_of(st.none(), _SESSION),
    st.booleans(),
    st.sampled_from(["1", "-7", "1.5", "9007199254740993"]),
    st.booleans(),
)
def test_reply_splice_matches_parse_and_dump(
    pipe_id: int, result: Any, session: str | None, drop: bool, client_id: str, chrome_order: bool
) -> None:
    message: dict[str, Any] = {"id": pipe_id, "result": result}
    if session is not None:
        message["sessionId"] = session
    if not chrome_order:  # any other member order takes the parsing path
        message = dict(reversed(list(message.items())))
    raw = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
    envelope = chrome_envelope(raw)
    assert envelope is not None and envelope.id == pipe_id and envelope.session == session
    out = b"".join(bytes(p) for p in envelope.for_client(client_id, drop_session=drop))
    assert json.loads(out) == _expected(message, client_id, drop)


@given(
    st.from_regex(r"[A-Z][a-z]{1,8}\.[a-z]{1,12}", fullmatch=True), _JSON, st.one_of(st.none(), _SESSION), st.booleans()
)
def test_event_splice_matches_parse_and_dump(method: str, params: Any, session: str | None, drop: bool) -> None:
    message: dict[str, Any] = {"method": method, "params": params}
    if session is not None:
        message["sessionId"] = session
    raw = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
    envelope = chrome_envelope(raw)
    assert envelope is not None and envelope.id is None and envelope.session == session
    assert envelope.method == method
    out = b"".join(bytes(p) for p in envelope.for_client(None, drop_session=drop))
    assert json.loads(out) == _expected(message, None, drop)


def test_a_session_id_inside_a_string_is_not_the_envelope() -> None:
    raw = b'{"id":3,"result":{"value":"x\\",\\"sessionId\\":\\"S9\\"}"}}'
    envelope = chrome_envelope(raw)
    assert envelope is not None and envelope.session is None
    raw = b'{"id":3,"result":{"sessionId":"S9"}}'
    envelope = chrome_envelope(raw)
    assert envelope is not None and envelope.session is None


@given(_JSON)
def test_members_agrees_with_json_loads(value: Any) -> None:
    text = json.dumps(value, indent=1)
    found = members(text)
    if isinstance(value, dict):
        assert found is not None and {m.key: m.value for m in found} == value
        for member in found:
            assert json.loads(text[member.value_start : member.value_end]) == member.value
    else:
        assert found is None


def _chrome_members(data: bytes) -> list[tuple[str, Any]]:
    """Chrome's view of a message: every member in order, duplicates kept."""
    found = members(data.decode())
    assert found is not None
    return [(m.key, m.value) for m in found]


@given(
    st.dictionaries(st.sampled_from(["params", "x", "id2", "method2", "y"]), _JSON, max_size=3),
    st.integers(-(2**40), 2**40),
    st.one_of(st.none(), _SESSION),
    st.integers(0, 3),
    st.booleans(),
)
def test_client_request_splice_matches_parse_and_dump(
    others: dict[str, Any], client_id: int, given_session: str | None, position: int, spaced: bool
) -> None:
    members_in = [("method", "M"), *others.items()]
    members_in.insert(min(position, len(members_in)), ("id", client_id))
    if given_session is not None:
        members_in.insert(min(position + 1, len(members_in)), ("sessionId", given_session))
    text = json.dumps(dict(members_in)) if spaced else json.dumps(dict(members_in), separators=(",", ":"))
    request = client_request(text)
    assert isinstance(request, ClientRequest)
    assert request.id_text == str(client_id)
    sent = request.for_chrome(77, given_session or "ROOT")
    pairs = _chrome_members(sent)
    assert [k for k, _ in pairs].count("id") == 1 and [k for k, _ in pairs].count("sessionId") == 1
    assert dict(pairs) == {**dict(members_in), "id": 77, "sessionId": given_session or "ROOT"}


def test_client_request_keys_written_otherwise_are_never_spliced_past() -> None:
    # Chrome takes the last of duplicate keys: whatever the client wrote, Chrome sees one id
    # (ours) and one sessionId (the checked one).
    texts = [
        '{"id":1,"method":"M","\\u0069d":1}',
        '{"id":1,"method":"M","i\\u0064":5,"sessionId":"S"}',
        '{"id":1,"method":"M","sessionId":"S","session\\u0049d":"OTHER"}',
        '{"id":1,"method":"M","params":{"id":3},"sessionId":"S"}',
        '{"id":1,"method":"M","params":"\\"id\\":2,","sessionId":"S"}',
        '{"id":1,"method":"M","params":{"sessionId":"OTHER"}}',
        '{"id":1,"method":"M","id":1}',
    ]
    for text in texts:
        request = client_request(text)
        assert isinstance(request, ClientRequest), text
        pairs = _chrome_members(request.for_chrome(77, "S"))
        keys = [k for k, _ in pairs]
        assert keys.count("id") == 1 and keys.count("sessionId") == 1, text
        assert dict(pairs)["id"] == 77 and dict(pairs)["sessionId"] == "S", text
