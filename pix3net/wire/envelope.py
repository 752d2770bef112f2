"""Find and change a CDP message's envelope (``id``, ``sessionId``) without re-serialising it.

A 30 MB screenshot must not go through ``json.loads``/``json.dumps``. Chrome
writes compact JSON with ``id`` (replies) or ``method`` (events) first and splices
``,"sessionId":"…"}`` onto the end of session messages; :func:`chrome_envelope` recognises that
shape with two anchored regular expressions (O(1) in the message size) and falls back to a full
parse for anything else. The fast path is exact for valid JSON: the last member before the final
``}`` of a JSON text is a member of the top-level object, and a first member ``{"id":<digits>,``
cannot be anything else either.

Client messages are always parsed (the -32700/-32600 checks of docs/cdp-proxy.md,
"Session model", need the whole text to be JSON), but by C-level scanning member by member so
the outgoing text is spliced from the members' own source text rather than dumped again.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "INVALID_REQUEST",
    "PARSE_ERROR",
    "SMALL_CLIENT_TEXT",
    "ChromeMessage",
    "Chunk",
    "ClientRequest",
    "Member",
    "NotJson",
    "chrome_envelope",
    "client_request",
    "error_reply",
    "is_number",
    "members",
]


Chunk = bytes | memoryview

_HEAD_ID = re.compile(rb'\{"id":(\d{1,16}),')
_HEAD_METHOD = re.compile(rb'\{"method":"([A-Za-z0-9_.]{1,200})"[,}]')
# Session ids are hex in Chrome; anything without quotes/backslashes/control bytes is accepted.
_TAIL_SESSION = re.compile(rb',"sessionId":"([^"\\\x00-\x1f]{1,200})"\}\Z')
_TAIL_WINDOW = 256
_WS = re.compile(r"[ \t\n\r]*")


def _reject_constant(name: str) -> Any:
    # Python's json accepts NaN/Infinity; JSON (and JavaScript's JSON.parse) does not.
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_COMPACT = json.JSONEncoder(separators=(",", ":"))
_scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]


class NotJson(ValueError):
    pass


@dataclass
class Member:
    key: str
    value: Any
    key_start: int  # index of the key's opening quote
    value_start: int
    value_end: int


def members(text: str) -> list[Member] | None:
    """The top-level members of a JSON text in source order; None when it is JSON but not an
    object. Raises :class:`NotJson` when it is not JSON at all."""
    try:
        return _members(text)
    except (ValueError, StopIteration, IndexError, RecursionError) as error:
        raise NotJson(str(error)) from None


def _members(text: str) -> list[Member] | None:
    index = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if index >= len(text) or text[index] != "{":
        _, end = _DECODER.raw_decode(text, index)
        if _WS.match(text, end).end() != len(text):  # type: ignore[union-attr]
            raise ValueError("extra data")
        return None
    found: list[Member] = []
    index = _WS.match(text, index + 1).end()  # type: ignore[union-attr]
    if text[index] == "}":
        index += 1
    else:
        while True:
            if text[index] != '"':
                raise ValueError("expected a key")
            key_start = index
            key, index = _scanstring(text, index + 1, True)
            index = _WS.match(text, index).end()  # type: ignore[union-attr]
            if text[index] != ":":
                raise ValueError("expected ':'")
            value_start = _WS.match(text, index + 1).end()  # type: ignore[union-attr]
            value, value_end = _DECODER.scan_once(text, value_start)  # type: ignore[attr-defined]
            found.append(Member(key, value, key_start, value_start, value_end))
            index = _WS.match(text, value_end).end()  # type: ignore[union-attr]
            if text[index] == ",":
                index = _WS.match(text, index + 1).end()  # type: ignore[union-attr]
                continue
            if text[index] == "}":
                index += 1
                break
            raise ValueError("expected ',' or '}'")
    if _WS.match(text, index).end() != len(text):  # type: ignore[union-attr]
        raise ValueError("extra data")
    return found


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass
class ChromeMessage:
    """What the router needs from a message Chrome sent, and how to rebuild it for a client."""

    raw: bytes
    id: int | None
    session: str | None
    method: str | None
    # Fast path: byte offsets to splice; fallback: the parsed members.
    id_span: tuple[int, int] | None = None
    session_cut: int | None = None  # where ``,"sessionId":…}`` starts (fast path)
    parsed: list[Member] | None = field(default=None, repr=False)
    text: str | None = field(default=None, repr=False)

    def body(self) -> dict[str, Any]:
        """The whole message parsed (only for small control messages: attach/detach, internal)."""
        if self.parsed is None:
            self.text = self.raw.decode("utf-8", "replace")
            self.parsed = members(self.text) or []
        return {m.key: m.value for m in self.parsed}

    def is_error(self) -> bool:
        """A reply that is an error: on the fast path one look at the member after ``id`` (Chrome
        writes ``{"id":N,"error":`` or ``{"id":N,"result":``), else the parsed members."""
        if self.parsed is None and self.id_span is not None:
            return self.raw.startswith(b'"error"', self.id_span[1] + 1)
        return "error" in self.body()

    def for_client(self, client_id: str | None, *, drop_session: bool) -> tuple[Chunk, ...]:
        """The message as the client sees it: ``id`` restored, its root's ``sessionId`` removed."""
        if self.session_cut is not None:
            return self._splice(client_id, drop_session)
        return self._rebuild(client_id, drop_session)

    def _splice(self, client_id: str | None, drop_session: bool) -> tuple[Chunk, ...]:
        view = memoryview(self.raw)
        end = len(self.raw)
        tail: tuple[Chunk, ...] = ()
        if drop_session and self.session_cut is not None:
            end = self.session_cut
            tail = (b"}",)
        if client_id is None or self.id_span is None:
            return (view[:end], *tail) if tail else (self.raw,)
        start, stop = self.id_span
        return (view[:start], client_id.encode("ascii"), view[stop:end], *tail)

    def _rebuild(self, client_id: str | None, drop_session: bool) -> tuple[Chunk, ...]:
        self.body()
        assert self.parsed is not None and self.text is not None
        text = self.text
        pieces = []
        for member in self.parsed:
            if member.key == "sessionId" and drop_session:
                continue
            if member.key == "id" and client_id is not None:
                pieces.append(text[member.key_start : member.value_start] + client_id)
            else:
                pieces.append(text[member.key_start : member.value_end])
        return (("{" + ",".join(pieces) + "}").encode("utf-8"),)


def chrome_envelope(raw: bytes) -> ChromeMessage | None:
    """The envelope of one message from Chrome; None when it is not a JSON object (dropped)."""
    head = _HEAD_ID.match(raw)
    tail = _TAIL_SESSION.search(raw, max(0, len(raw) - _TAIL_WINDOW))
    if head is not None and tail is not None and tail.start() > head.end() - 2:
        return ChromeMessage(
            raw, int(head.group(1)), tail.group(1).decode("ascii", "replace"), None, head.span(1), tail.start()
        )
    if head is None and tail is not None:
        method = _HEAD_METHOD.match(raw)
        if method is not None and tail.start() >= method.end() - 1:
            return ChromeMessage(raw, None, tail.group(1).decode(), method.group(1).decode(), None, tail.start())
    try:
        text = raw.decode("utf-8")
        parsed = members(text)
    except (UnicodeDecodeError, NotJson):
        return None
    if parsed is None:
        return None
    values = {m.key: m.value for m in parsed}
    message_id = values.get("id")
    session = values.get("sessionId")
    method = values.get("method")
    return ChromeMessage(
        raw,
        message_id if isinstance(message_id, int) and not isinstance(message_id, bool) else None,
        session if isinstance(session, str) else None,
        method if isinstance(method, str) else None,
        parsed=parsed,
        text=text,
    )


PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def error_reply(id_text: str, code: int, message: str, session_text: str | None = None) -> bytes:
    """A proxy-made error reply in Chrome's own shape (compact JSON)."""
    error = json.dumps({"code": code, "message": message}, separators=(",", ":"))
    session = f',"sessionId":{session_text}' if session_text is not None else ""
    return f'{{"id":{id_text},"error":{error}{session}}}'.encode()


# Client texts up to this size are parsed whole by the C parser and their other members dumped
# again (measured: 3× faster than scanning member by member); larger ones are spliced.
SMALL_CLIENT_TEXT = 16 * 1024


@dataclass
class ClientRequest:
    """A client message that is a JSON object with a numeric ``id`` and a string ``method``."""

    id_text: str  # the id as the client wrote it, echoed back in the reply
    method: str
    has_session: bool
    session_value: Any
    session_text: str | None  # the given sessionId as written (for the -32001 echo); None = dump it
    rest: str  # every other member as JSON text, comma-separated, without braces
    # Spliced instead (see _spliceable): the client's text and the span of its id's digits.
    source: str = ""
    id_span: tuple[int, int] | None = None

    def session_json(self) -> str:
        return self.session_text if self.session_text is not None else json.dumps(self.session_value)

    def for_chrome(self, pipe_id: int, session: str) -> bytes:
        """The message with our id and the session it runs on; every other member kept."""
        if self.id_span is not None:
            # The client's own text with our id in place of its id; a given sessionId stays
            # where it was written (the router forwards only a given session as it is), the
            # root's is put first.
            text = self.source
            start, end = self.id_span
            if self.has_session:
                return (text[:start] + str(pipe_id) + text[end:]).encode("utf-8", "surrogatepass")
            brace = text.index("{") + 1
            head = f'{text[:brace]}"sessionId":{_session_json(session)},{text[brace:start]}'
            return (head + str(pipe_id) + text[end:]).encode("utf-8", "surrogatepass")
        head = f'{{"id":{pipe_id},"sessionId":{_session_json(session)}'
        return (head + ("," + self.rest if self.rest else "") + "}").encode("utf-8", "surrogatepass")


_INVALID = "Message must have an integer id and a string method"


@functools.lru_cache(maxsize=1024)
def _session_json(session: str) -> str:
    """A session id as JSON text; a client uses the same few sessions for every message."""
    return json.dumps(session)


def client_request(text: str) -> ClientRequest | bytes:
    """Check a client's text (the first two checks of docs/cdp-proxy.md, "Session model").

    Duplicate keys: the last one counts (as in JavaScript), and the text sent to Chrome has
    exactly one ``id`` and one ``sessionId``, so a second ``sessionId`` cannot smuggle another
    client's session past the check.
    """
    if len(text) <= SMALL_CLIENT_TEXT:
        small = _small_request(text)
        if small is not None:
            return small
    try:
        found = members(text)
    except NotJson:
        return error_reply("0", PARSE_ERROR, "Message must be valid JSON")
    last = {m.key: m for m in found or []}
    id_member = last.get("id")
    if found is None or id_member is None or not is_number(id_member.value):
        return error_reply("0", INVALID_REQUEST, _INVALID)
    id_text = text[id_member.value_start : id_member.value_end]
    method = last.get("method")
    if method is None or not isinstance(method.value, str):
        return error_reply(id_text, INVALID_REQUEST, _INVALID)
    session = last.get("sessionId")
    rest = ",".join(text[m.key_start : m.value_end] for m in found if m.key not in ("id", "sessionId"))
    return ClientRequest(
        id_text,
        method.value,
        session is not None,
        session.value if session else None,
        text[session.value_start : session.value_end] if session else "",
        rest,
    )


def _small_request(text: str) -> ClientRequest | bytes | None:
    """The whole-parse path; None when the id is a float or the sessionId is not a string (their
    exact text comes from the scan)."""
    try:
        value = _decode_whole(text)
    except (ValueError, RecursionError, StopIteration):
        return error_reply("0", PARSE_ERROR, "Message must be valid JSON")
    if not isinstance(value, dict):
        return error_reply("0", INVALID_REQUEST, _INVALID)
    message_id = value.get("id")
    if not is_number(message_id):
        return error_reply("0", INVALID_REQUEST, _INVALID)
    if isinstance(message_id, float):
        return None
    id_text = str(message_id)
    method = value.get("method")
    if not isinstance(method, str):
        return error_reply(id_text, INVALID_REQUEST, _INVALID)
    has_session = "sessionId" in value
    session = value.get("sessionId")
    if has_session and not isinstance(session, str):
        # The router refuses it (-32001) echoing it as written: the scan keeps its text, while
        # dumping a value parsed just below the depth limit again goes deeper (RecursionError).
        return None
    span = _spliceable(text, has_session)
    if span is not None:
        return ClientRequest(id_text, method, has_session, session, None, "", text, span)
    value.pop("sessionId", None)
    del value["id"]
    rest = "".join(_encode_compact(value, 0))[1:-1]
    return ClientRequest(id_text, method, has_session, session, None, rest)


# An integer id's digits after its key (the key is the text's only ``"id"``, see below).
_ID_VALUE = re.compile(r'"id"[ \t\n\r]*:[ \t\n\r]*(-?[0-9]+)[ \t\n\r]*[,}]')


def _spliceable(text: str, has_session: bool) -> tuple[int, int] | None:
    """The span of the id's digits when the text can go to Chrome with only those replaced.

    ``text`` is a valid JSON object with an integer ``id`` (checked by the caller). Exactly one
    ``"id"`` in the text and at most one ``"sessionId"``, and no ``\\u`` escape (the only way to
    write those keys differently), means no duplicate of either key can follow the one the
    router checked: Chrome takes the last of duplicate keys, and a second ``id`` would route
    another client's reply. Anything else is dumped again from the parsed members.
    """
    if text.count('"id"') != 1 or "\\u" in text or text.count('"sessionId"') > (1 if has_session else 0):
        return None
    found = _ID_VALUE.search(text)
    return found.span(1) if found is not None else None


# The C scanner and encoder behind ``json``, called directly: a request is parsed and dumped once
# per message, and the Python wrappers around them cost as much as the work (measured). No cycle
# check (``markers`` None): a parsed value has no cycles; NaN cannot be in it (_reject_constant).
_scan: Any = _DECODER.scan_once  # type: ignore[attr-defined]
_encode_compact: Any = json.encoder.c_make_encoder(  # type: ignore[attr-defined]
    None, _COMPACT.default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True
)


def _decode_whole(text: str) -> Any:
    """``json.loads`` of a text that must be one JSON value (surrounding whitespace allowed)."""
    start = 0 if text[:1] in ("{", "[") else _WS.match(text, 0).end()  # type: ignore[union-attr]
    value, end = _scan(text, start)
    if end != len(text) and _WS.match(text, end).end() != len(text):  # type: ignore[union-attr]
        raise ValueError("extra data")
    return value
