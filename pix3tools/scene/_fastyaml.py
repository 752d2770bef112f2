"""A line-based reader for the YAML subset editors and agents write in scenes.

Why: through its Python binding, libyaml hands every event to Python as an object (about a million for 10 MB
of scenes); reading lines with a few regexes does less work for the same result. It covers block
mappings and sequences (compact ``- key: v`` included), plain/quoted scalars and one-line flow
collections. Anything else — anchors, tags, block scalars, multi-line scalars, tabs, comments
inside flow collections, odd indentation, duplicate keys — raises :class:`Unsupported` and the
caller parses the text with the full parser, which also reports real errors with their line.
The result must equal the full parser's; ``tests/unit/test_validate_fastyaml.py`` checks that.
"""

from __future__ import annotations

import re
from typing import Any

from pix3tools.scene._yaml import MAX_DEPTH, resolve_plain

__all__ = ["Unsupported", "fast_load"]


class Unsupported(Exception):
    """Not in the subset: parse with the full parser."""


_KEY = re.compile(r"([^\s#'\"\[\]{},&*!|>%@`?:\-][^:#]*?|-[^\s:#][^:#]*?)[ ]*:(?:[ ]+|$)")
# The most common lines: ``key: value`` with an identifier key and a plain value holding no ``:``
# or ``#`` (so no comment, no nested mapping), a simple double-quoted value, or nothing (a
# block follows); they skip the general path.
_FAST_ENTRY = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*):(?: +(?:((?:[A-Za-z0-9_+/]|\.(?=[0-9])|-(?=\S))[^:#\t]*?)|\"([^\"\\]*)\"))? *$"
)
_FLOW_ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*): +(?=[\[{])")
_BAD_START = frozenset("&*!|>%@`?'\"[]{},#")
_DQ = re.compile(r'"([^"\\]*)"')
_SQ = re.compile(r"'((?:[^']|'')*)'")


_RESOLVED: dict[str, Any] = {}


def _resolve(raw: str) -> Any:
    """resolve_plain, memoised: scenes repeat the same few scalars ("0", "64", "true")."""
    try:
        return _RESOLVED[raw]
    except KeyError:
        value = resolve_plain(raw)
        if len(_RESOLVED) < 4096:
            _RESOLVED[raw] = value
        return value


def _scalar_key(raw: str) -> Any:
    key = _resolve(raw)
    if isinstance(key, float) and key != key:  # NaN never equals itself: leave it to the full parser
        raise Unsupported
    return key


def _inline(text: str) -> Any:
    """A value written after ``key: `` or ``- `` on the same line (comment included)."""
    first = text[0]
    if first == '"':
        match = _DQ.match(text)
        if not match:
            raise Unsupported
        _tail(text, match.end())
        return match.group(1)
    if first == "'":
        match = _SQ.match(text)
        if not match:
            raise Unsupported
        _tail(text, match.end())
        return match.group(1).replace("''", "'")
    if first == "[" or first == "{":
        value, end = _flow(text, 0, 0)
        _tail(text, end)
        return value
    if first in _BAD_START or (first in "-:" and (len(text) == 1 or text[1] == " ")):
        raise Unsupported
    cut = text.find(" #")
    if cut >= 0:
        text = text[:cut]
    text = text.rstrip(" ")
    if ": " in text or text.endswith(":") or "\t" in text:
        raise Unsupported
    return _resolve(text)


def _tail(text: str, end: int) -> None:
    rest = text[end:].strip(" ")
    if rest and not rest.startswith("#"):
        raise Unsupported
    if rest and text[end] != " ":
        raise Unsupported


_FLOW_TOKEN = re.compile(
    r"""[ ]*(?:([\[\]{},])|"([^"\\]*)"|'((?:[^']|'')*)'|((?:[^,\[\]{}:#\s'"&*!|>%@`?-]|-(?=[^\s,\[\]{}]))"""
    r"""(?:[^,\[\]{}:#]|:(?=[^\s,\[\]{}])|(?<=\S)#)*)|(:)(?=[ ,\[\]{}]|$))"""
)
_END_OF_FLOW = re.compile(r"[ ]*(?:#.*)?$")


_SIMPLE_SEQ = re.compile(r"\[([^\[\]{}'\"#]*)\]")
_SIMPLE_MAP = re.compile(r"\{([^{}'\"#]*)\}")
_SIMPLE_ENTRY = re.compile(r"[ ]*([^,:\[\]{}\s&*!|>%@`?-][^,:\[\]{}]*?)[ ]*:[ ]+(\[[^\[\]]*\]|[^,\[\]]*?)[ ]*(?:,|$)")


def _simple_items(inner: str) -> list[Any]:
    if not inner.strip(" "):
        return []
    parts = inner.split(",")
    if parts[-1].strip(" ") == "":
        parts.pop()
    items: list[Any] = []
    for part in parts:
        raw = part.strip(" ")
        if not raw:
            raise Unsupported
        if raw[0] in _BAD_START or raw[0] == ":" or raw == "-" or raw[:2] == "- " or ": " in raw or raw[-1] == ":":
            raise Unsupported
        items.append(_resolve(raw))
    return items


_FLOW_CACHE: dict[str, tuple[Any, int] | None] = {}


def _copy(value: Any) -> Any:
    """A fresh copy of a simple flow value (a mapping or list of scalars and scalar lists)."""
    if type(value) is list:
        return value[:]
    return {k: (v[:] if type(v) is list else v) for k, v in value.items()}


def _cached_flow(text: str) -> tuple[Any, int] | None:
    """``_simple_flow`` memoised: scenes repeat the same flow values (layout blocks, scales,
    texture slots) over and over; each caller gets its own copy."""
    try:
        found = _FLOW_CACHE[text]
    except KeyError:
        found = _simple_flow(text)
        if len(text) <= 256 and len(_FLOW_CACHE) < 4096:
            _FLOW_CACHE[text] = found
    return None if found is None else (_copy(found[0]), found[1])


def _simple_flow(text: str) -> tuple[Any, int] | None:
    """The common shapes, without a tokenizer: ``[1, 2]`` and ``{ a: 1, b: [1, 2] }`` with plain
    scalars only. None when the text is anything else."""
    if text[0] == "[":
        match = _SIMPLE_SEQ.match(text)
        return (_simple_items(match.group(1)), match.end()) if match else None
    match = _SIMPLE_MAP.match(text)
    if not match:
        return None
    inner = match.group(1)
    if not inner.strip(" "):
        return {}, match.end()
    mapping: dict[Any, Any] = {}
    pos = 0
    for entry in _SIMPLE_ENTRY.finditer(inner):
        if entry.start() != pos:
            return None
        pos = entry.end()
        key = _scalar_key(entry.group(1))
        if key in mapping or isinstance(key, float):
            raise Unsupported
        raw = entry.group(2)
        if raw.startswith("["):
            mapping[key] = _simple_items(raw[1:-1])
        elif (
            not raw
            or raw[0] in _BAD_START
            or raw[0] == ":"
            or raw == "-"
            or raw[:2] == "- "
            or ": " in raw
            or raw[-1] == ":"
        ):
            return None
        else:
            mapping[key] = _resolve(raw)
    if pos != len(inner):
        return None
    return mapping, match.end()


def _flow(text: str, i: int, depth: int) -> tuple[Any, int]:
    """A one-line flow collection starting at ``text[i]``: (value, end index)."""
    if i == 0:
        simple = _cached_flow(text)
        if simple is not None:
            return simple
    tokens: list[tuple[str, Any]] = []
    pos = i
    opened = 0
    for match in _FLOW_TOKEN.finditer(text, i):
        if match.start() != pos:
            raise Unsupported
        pos = match.end()
        punct, dq, sq, plain, colon = match.groups()
        if punct is not None:
            tokens.append((punct, None))
            if punct in "[{":
                opened += 1
            elif punct in "]}":
                opened -= 1
                if opened == 0:
                    break
        elif colon is not None:
            tokens.append((":", None))
        elif plain is not None:
            tokens.append(("p", plain.rstrip(" ")))
        else:
            tokens.append(("s", dq if dq is not None else sq.replace("''", "'")))
    if opened != 0 or depth + len(tokens) > 10 * MAX_DEPTH:
        raise Unsupported
    value, used = _flow_tokens(tokens, 0, depth)
    if used != len(tokens):
        raise Unsupported
    return value, pos


def _flow_value(tokens: list[tuple[str, Any]], k: int, depth: int) -> tuple[Any, int]:
    kind, value = tokens[k]
    if kind == "p":
        if value == "-" or value.startswith("- "):
            raise Unsupported
        return _resolve(value), k + 1
    if kind == "s":
        return value, k + 1
    if kind in "[{":
        return _flow_tokens(tokens, k, depth + 1)
    raise Unsupported


def _flow_tokens(tokens: list[tuple[str, Any]], k: int, depth: int) -> tuple[Any, int]:
    if depth > MAX_DEPTH:
        raise Unsupported
    opener = tokens[k][0]
    k += 1
    if opener == "[":
        items: list[Any] = []
        while True:
            kind = tokens[k][0]
            if kind == "]":
                return items, k + 1
            value, k = _flow_value(tokens, k, depth)
            items.append(value)
            kind = tokens[k][0]
            if kind == ",":
                k += 1
            elif kind != "]":
                raise Unsupported
    if opener != "{":
        raise Unsupported
    mapping: dict[Any, Any] = {}
    while True:
        kind, raw = tokens[k]
        if kind == "}":
            return mapping, k + 1
        if kind != "p" or tokens[k + 1][0] != ":":
            raise Unsupported
        key = _scalar_key(raw)
        if key in mapping or isinstance(key, float):
            raise Unsupported
        k += 2
        if tokens[k][0] in ",}":
            mapping[key] = None
        else:
            mapping[key], k = _flow_value(tokens, k, depth)
        kind = tokens[k][0]
        if kind == ",":
            k += 1
        elif kind != "}":
            raise Unsupported


class _Frame:
    __slots__ = ("indent", "is_map", "obj", "pending", "same_indent_child")

    def __init__(self, indent: int, obj: Any, is_map: bool) -> None:
        self.indent = indent
        self.obj = obj
        self.is_map = is_map
        self.pending: Any = _NONE  # key (map) or index (seq) whose value may be a nested block
        self.same_indent_child = False  # a sequence written at its parent key's column


_NONE = object()


def fast_load(text: str) -> Any:
    """The data of ``text`` if it is in the subset; raises :class:`Unsupported` otherwise."""
    stack: list[_Frame] = []
    root: Any = _NONE
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            raise Unsupported
    fast_entry = _FAST_ENTRY.match
    resolve = _resolve
    for line in text.split("\n"):
        content = line.lstrip(" ")
        if not content or content[0] == "#":
            if "\t" in content[:1]:
                raise Unsupported
            continue
        indent = len(line) - len(content)
        if content[0] == "\t" or (indent == 0 and content[:3] in ("---", "...")) or content[0] == "%":
            raise Unsupported
        is_item = content[0] == "-" and (len(content) == 1 or content[1] == " ")
        while stack and stack[-1].indent > indent:
            stack.pop()
        if not is_item and stack and stack[-1].indent == indent and stack[-1].same_indent_child:
            stack.pop()
        if not stack:
            if root is not _NONE:
                raise Unsupported
            if indent != 0:
                raise Unsupported
            frame = _Frame(0, [] if is_item else {}, not is_item)
            root = frame.obj
            stack.append(frame)
        top = stack[-1]
        if top.indent < indent:
            if top.pending is _NONE or len(stack) >= MAX_DEPTH:
                raise Unsupported
            frame = _Frame(indent, [] if is_item else {}, not is_item)
            top.obj[top.pending] = frame.obj
            top.pending = _NONE
            stack.append(frame)
            top = frame
        elif top.is_map and is_item:
            if top.pending is _NONE or len(stack) >= MAX_DEPTH:
                raise Unsupported
            frame = _Frame(indent, [], False)
            frame.same_indent_child = True
            top.obj[top.pending] = frame.obj
            top.pending = _NONE
            stack.append(frame)
            top = frame
        if top.is_map == is_item:
            raise Unsupported
        top.pending = _NONE
        if is_item:
            rest = content[1:].lstrip(" ")
            seq = top.obj
            if not rest or rest[0] == "#":
                seq.append(None)
                top.pending = len(seq) - 1
                continue
            if len(stack) >= MAX_DEPTH:
                raise Unsupported
            simple = fast_entry(rest)
            if simple is not None:
                frame = _Frame(indent + (len(content) - len(rest)), {}, True)
                seq.append(frame.obj)
                stack.append(frame)
                _fast_value(frame, resolve(simple.group(1)), simple)
                continue
            key_match = _KEY.match(rest)
            if key_match is None:
                if rest[0] == "-" and (len(rest) == 1 or rest[1] == " "):
                    raise Unsupported
                seq.append(_inline(rest))
                continue
            mapping: dict[Any, Any] = {}
            seq.append(mapping)
            frame = _Frame(indent + (len(content) - len(rest)), mapping, True)
            stack.append(frame)
            _entry(frame, key_match, rest)
        else:
            simple = fast_entry(content)
            if simple is not None:
                key = resolve(simple.group(1))
                if key in top.obj:
                    raise Unsupported
                _fast_value(top, key, simple)
                continue
            flow = _FLOW_ENTRY.match(content)
            if flow is not None:
                simple_flow = _cached_flow(content[flow.end() :])
                if simple_flow is not None and simple_flow[1] == len(content) - flow.end():
                    key = resolve(flow.group(1))
                    if key in top.obj:
                        raise Unsupported
                    top.obj[key] = simple_flow[0]
                    continue
            key_match = _KEY.match(content)
            if key_match is None:
                raise Unsupported
            _entry(top, key_match, content)
    if root is _NONE:
        raise Unsupported
    return root


def _fast_value(frame: _Frame, key: Any, match: re.Match[str]) -> None:
    plain, quoted = match.group(2), match.group(3)
    if plain is not None:
        frame.obj[key] = _resolve(plain)
    elif quoted is not None:
        frame.obj[key] = quoted
    else:
        frame.obj[key] = None
        frame.pending = key


def _entry(frame: _Frame, match: re.Match[str], content: str) -> None:
    key = _scalar_key(match.group(1).rstrip(" "))
    mapping = frame.obj
    if key in mapping or isinstance(key, float):
        raise Unsupported
    value_text = content[match.end() :]
    if not value_text or value_text[0] == "#":
        mapping[key] = None
        frame.pending = key
        return
    mapping[key] = _inline(value_text)
