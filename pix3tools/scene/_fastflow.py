"""The fast line reader's scalars and one-line flow collections (``[1, 2]``, ``{x: 0, y: 1}``).

Part of :mod:`pix3tools.scene._fastyaml`'s subset reader: a plain scalar resolved once per distinct
text, and a flow collection written on one line read by the cheapest way that gives the full
parser's data: a flow of numbers by json's C decoder once its keys are quoted, a simple one by
splitting, any other by a small tokenizer. Anything outside the subset raises :class:`Unsupported`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from pix3tools.scene._scalars import MAX_DEPTH, resolve_plain

__all__ = ["BAD_START", "Unsupported", "read_flow", "resolve", "scalar_key", "simple_flow", "tail"]

# What a plain scalar may not start with (an indicator of YAML's full syntax, or a quote).
BAD_START = frozenset("&*!|>%@`?'\"[]{},#")


class Unsupported(Exception):
    """Not in the subset: parse with the full parser."""


_RESOLVED: dict[str, Any] = {}


def resolve(raw: str) -> Any:
    """resolve_plain, memoised: scenes repeat the same few scalars ("0", "64", "true")."""
    try:
        return _RESOLVED[raw]
    except KeyError:
        value = resolve_plain(raw)
        if len(_RESOLVED) < 4096:
            _RESOLVED[raw] = value
        return value


def scalar_key(raw: str) -> Any:
    key = resolve(raw)
    if isinstance(key, float) and key != key:  # NaN never equals itself: leave it to the full parser
        raise Unsupported
    return key


def tail(text: str, end: int) -> None:
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
        if raw[0] in BAD_START or raw[0] == ":" or raw == "-" or raw[:2] == "- " or ": " in raw or raw[-1] == ":":
            raise Unsupported
        items.append(resolve(raw))
    return items


_FLOW_CACHE: dict[str, tuple[Any, int] | None] = {}


def _copy(value: Any) -> Any:
    """A fresh copy of a simple flow value (a mapping or list of scalars and scalar lists)."""
    if type(value) is list:
        return value[:]
    return {k: (v[:] if type(v) is list else v) for k, v in value.items()}


def _cached_flow(text: str) -> tuple[Any, int] | None:
    """``simple_flow`` memoised: scenes repeat the same flow values (layout blocks, scales,
    texture slots) over and over; each caller gets its own copy."""
    try:
        found = _FLOW_CACHE[text]
    except KeyError:
        found = simple_flow(text)
        if len(text) <= 256 and len(_FLOW_CACHE) < 4096:
            _FLOW_CACHE[text] = found
    return None if found is None else (_copy(found[0]), found[1])


# A flow of numbers (``{ position: [10, -4.5], rotation: 90 }``, ``[1, 1]``) is JSON once its keys
# are quoted, and json's C decoder builds it in a third of the time (most of the lines a scene
# does not repeat are such transforms). A key is an identifier between "{ " or ", " and ": ".
# What JSON accepts beyond that subset is refused after the decode (a word, a key YAML reads as a
# bool or null, a repeated key); the rest never decodes.
_YAML_WORDS = frozenset(("null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"))
_NOT_JSON = frozenset("\"'\\#\t")


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN / Infinity are JSON extensions; in YAML they are plain words


# The decoder's C scanner itself: ``decode`` wraps it in Python that a one-line flow does not need.
_DECODER: Any = json.JSONDecoder(parse_constant=_no_constant)  # typeshed does not list scan_once
_scan: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once


def _scalars(items: list[Any]) -> bool:
    for item in items:
        kind = type(item)
        if kind is str or kind is list or kind is dict:
            return False
    return True


def _number_flow(text: str) -> tuple[Any, int] | None:
    """``text`` (one whole flow collection) read as JSON when it is numbers, flags and nulls under
    identifier keys; None otherwise."""
    if not _NOT_JSON.isdisjoint(text):
        return None
    parts = text.split(": ")
    for index in range(len(parts) - 1):
        head, _, key = parts[index].rpartition(" ")
        if not key.isidentifier() or head[-1:] not in ("{", ","):
            return None
        parts[index] = f'{head} "{key}"'
    quoted = ": ".join(parts)
    try:
        value, end = _scan(quoted, 0)
    except (StopIteration, ValueError):
        return None
    if end != len(quoted) and quoted[end:].strip(" "):
        return None
    kind = type(value)
    if kind is list:
        return (value, len(text)) if _scalars(value) and ": " not in text else None
    if kind is not dict or len(value) != text.count(": ") or not _YAML_WORDS.isdisjoint(value):
        return None
    for item in value.values():
        item_kind = type(item)
        if item_kind is str or item_kind is dict or (item_kind is list and not _scalars(item)):
            return None
    return value, len(text)


def simple_flow(text: str) -> tuple[Any, int] | None:
    """The common shapes, without a tokenizer: ``[1, 2]`` and ``{ a: 1, b: [1, 2] }`` with plain
    scalars only. None when the text is anything else."""
    numbers = _number_flow(text)
    if numbers is not None:
        return numbers
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
        key = scalar_key(entry.group(1))
        if key in mapping or isinstance(key, float):
            raise Unsupported
        raw = entry.group(2)
        if raw.startswith("["):
            mapping[key] = _simple_items(raw[1:-1])
        elif (
            not raw
            or raw[0] in BAD_START
            or raw[0] == ":"
            or raw == "-"
            or raw[:2] == "- "
            or ": " in raw
            or raw[-1] == ":"
        ):
            return None
        else:
            mapping[key] = resolve(raw)
    if pos != len(inner):
        return None
    return mapping, match.end()


def read_flow(text: str, i: int, depth: int) -> tuple[Any, int]:
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
        return resolve(value), k + 1
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
        key = scalar_key(raw)
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
