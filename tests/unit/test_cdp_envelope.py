"""The envelope splice (docs/cdp-proxy.md, "Big messages") agrees with parse-and-dump on every message shape."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pix3net.cdp._envelope import chrome_envelope, members

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
