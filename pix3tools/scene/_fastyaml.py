"""A line-based reader for the YAML subset editors and agents write in scenes.

Why: through its Python binding, libyaml hands every event to Python as an object (about a million
for 10 MB of scenes); reading lines does less work for the same result. It covers block mappings
and sequences (compact ``- key: v`` included), plain/quoted scalars, simply quoted keys and
one-line flow collections. Anything else — anchors, tags, block scalars, multi-line scalars, tabs,
comments inside flow collections, odd indentation, duplicate keys — raises :class:`Unsupported` and
the caller parses the text with the full parser, which also reports real errors with their line.

What makes it fast (docs/validate.md, "Performance"): what a line does is worked out once per
distinct line and kept (scenes repeat most of their lines: the same keys, values and indents), so
the usual line costs a dictionary lookup and a few comparisons; the one-line flows a scene does
not repeat (a node's transform) are numbers, read by json's C decoder once their keys are quoted.

The scalars and the one-line flow collections are read by ``_fastflow``. The result must equal the
full parser's; ``tests/unit/test_validate_fastyaml.py`` compares the
four readers on fixtures, tricky snippets and generated documents.
"""

from __future__ import annotations

import re
from typing import Any

from pix3tools.scene._fastflow import BAD_START, Unsupported, read_flow, resolve, scalar_key, simple_flow, tail
from pix3tools.scene._scalars import MAX_DEPTH

__all__ = ["Unsupported", "fast_load"]


_KEY = re.compile(r"([^\s#'\"\[\]{},&*!|>%@`?:\-][^:#]*?|-[^\s:#][^:#]*?)[ ]*:(?:[ ]+|$)")
# The most common lines: ``key: value`` with an identifier key and a plain value holding no ``:``
# or ``#`` (so no comment, no nested mapping), a simple double-quoted value, or nothing (a
# block follows); they skip the general path.
_FAST_ENTRY = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*):(?: +(?:((?:[A-Za-z0-9_+/]|\.(?=[0-9])|-(?=\S))[^:#\t]*?)|\"([^\"\\]*)\"))? *$"
)
# A quoted key ('0': …, "a/b": …), without escapes: the editor quotes keys YAML would read as numbers.
_QUOTED_KEY = re.compile(r"""(?:'((?:[^']|'')*)'|"([^"\\]*)")[ ]*:(?:[ ]+|$)""")
_FLOW_ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*): +(?=[\[{])")
_DQ = re.compile(r'"([^"\\]*)"')
_SQ = re.compile(r"'((?:[^']|'')*)'")


def _inline(text: str) -> Any:
    """A value written after ``key: `` or ``- `` on the same line (comment included)."""
    first = text[0]
    if first == '"':
        match = _DQ.match(text)
        if not match:
            raise Unsupported
        tail(text, match.end())
        return match.group(1)
    if first == "'":
        match = _SQ.match(text)
        if not match:
            raise Unsupported
        tail(text, match.end())
        return match.group(1).replace("''", "'")
    if first == "[" or first == "{":
        value, end = read_flow(text, 0, 0)
        tail(text, end)
        return value
    if first in BAD_START or (first in "-:" and (len(text) == 1 or text[1] == " ")):
        raise Unsupported
    cut = text.find(" #")
    if cut >= 0:
        text = text[:cut]
    text = text.rstrip(" ")
    if ": " in text or text.endswith(":") or "\t" in text:
        raise Unsupported
    return resolve(text)


# What one line of the subset does, cached per distinct line (scenes repeat most of their lines:
# in the bench's 2 000 generated scenes 11 % of the lines are distinct, in the starters ~40 %).
# An entry is (indent, op, key, value, inner indent); ``value`` of a *_FLOW op is a template that
# is cloned per use, so no two documents share a list or a mapping.
_SKIP, K_SCALAR, K_OPEN, K_FLOW, I_SCALAR, I_OPEN, I_FLOW, IK_SCALAR, IK_OPEN, IK_FLOW = range(10)
_BLANK = (-1, _SKIP, None, None, 0)
_LINES: dict[str, tuple[int, int, Any, Any, int]] = {}
_LINES_MAX = 1 << 16  # ~10 MB of cached lines at most; the cache starts over when full
_FLOW_OPS = frozenset((K_FLOW, I_FLOW, IK_FLOW))
_ONCE: tuple[int, int, Any, Any, int] = (-1, _SKIP, None, None, 0)  # a flow line seen once


def _clone(value: Any) -> Any:
    if type(value) is list:
        return [_clone(v) if type(v) is list or type(v) is dict else v for v in value]
    return {k: (_clone(v) if type(v) is list or type(v) is dict else v) for k, v in value.items()}


def _value_op(value: Any, scalar: int) -> int:
    return scalar + 2 if type(value) is list or type(value) is dict else scalar


def _general_key(text: str) -> tuple[Any, int] | None:
    """A mapping key at the start of ``text`` (plain, or simply quoted) and where its value
    starts; None when ``text`` does not start with a key."""
    match = _KEY.match(text)
    if match is not None:
        key = scalar_key(match.group(1).rstrip(" "))
        if isinstance(key, float):
            raise Unsupported
        return key, match.end()
    match = _QUOTED_KEY.match(text)
    if match is not None:
        single, double = match.group(1), match.group(2)
        return (single.replace("''", "'") if single is not None else double), match.end()
    return None


def _analyse(line: str) -> tuple[int, int, Any, Any, int]:
    """What ``line`` does; raises :class:`Unsupported` outside the subset."""
    content = line.lstrip(" ")
    if not content or content[0] == "#":
        return _BLANK
    indent = len(line) - len(content)
    first = content[0]
    if first == "\t" or first == "%" or (indent == 0 and content[:3] in ("---", "...")):
        raise Unsupported
    if first == "-" and (len(content) == 1 or content[1] == " "):
        rest = content[1:].lstrip(" ")
        if not rest or rest[0] == "#":
            return (indent, I_OPEN, None, None, 0)
        inner = indent + len(content) - len(rest)
        simple = _FAST_ENTRY.match(rest)
        if simple is not None:
            plain, quoted = simple.group(2), simple.group(3)
            key = resolve(simple.group(1))
            if plain is not None:
                return (indent, IK_SCALAR, key, resolve(plain), inner)
            if quoted is not None:
                return (indent, IK_SCALAR, key, quoted, inner)
            return (indent, IK_OPEN, key, None, inner)
        found_key = _general_key(rest)
        if found_key is None:
            if rest[0] == "-" and (len(rest) == 1 or rest[1] == " "):
                raise Unsupported
            value = _inline(rest)
            return (indent, _value_op(value, I_SCALAR), None, value, 0)
        key, end = found_key
        value_text = rest[end:]
        if not value_text or value_text[0] == "#":
            return (indent, IK_OPEN, key, None, inner)
        value = _inline(value_text)
        return (indent, _value_op(value, IK_SCALAR), key, value, inner)
    simple = _FAST_ENTRY.match(content)
    if simple is not None:
        plain, quoted = simple.group(2), simple.group(3)
        key = resolve(simple.group(1))
        if plain is not None:
            return (indent, K_SCALAR, key, resolve(plain), 0)
        if quoted is not None:
            return (indent, K_SCALAR, key, quoted, 0)
        return (indent, K_OPEN, key, None, 0)
    flow = _FLOW_ENTRY.match(content)
    if flow is not None:
        found = simple_flow(content[flow.end() :])
        if found is not None and found[1] == len(content) - flow.end():
            return (indent, K_FLOW, resolve(flow.group(1)), found[0], 0)
    found_key = _general_key(content)
    if found_key is None:
        raise Unsupported
    key, end = found_key
    value_text = content[end:]
    if not value_text or value_text[0] == "#":
        return (indent, K_OPEN, key, None, 0)
    value = _inline(value_text)
    return (indent, _value_op(value, K_SCALAR), key, value, 0)


_NONE = object()


def fast_load(text: str) -> Any:
    """The data of ``text`` if it is in the subset; raises :class:`Unsupported` otherwise.

    One pass over the lines with the innermost open block in locals (indent, container, is it a
    mapping, the key or index still waiting for a nested block, and whether it is a list written
    at its parent key's column); the blocks around it wait on ``stack``.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            raise Unsupported
    cache = _LINES
    lookup = cache.get
    analyse = _analyse
    clone = _clone
    once = _ONCE
    none = _NONE
    holder: dict[int, Any] = {}
    stack: list[tuple[int, Any, bool, Any, bool]] = []
    push = stack.append
    pop = stack.pop
    # The innermost block; below the document a stand-in whose pending slot receives the root.
    t_ind: int = -1
    t_obj: Any = holder
    t_map: bool = True
    t_pend: Any = 0
    t_same: bool = False
    started = False
    for line in text.split("\n"):
        entry = lookup(line)
        if entry is None or entry is once:
            fresh = entry is None
            entry = analyse(line)
            if len(cache) >= _LINES_MAX:
                cache.clear()
            if fresh and entry[1] in _FLOW_OPS:
                # A flow value seen for the first time is used as built (most are never seen
                # again: positions differ from node to node); a second sighting keeps a template.
                cache[line] = once
                entry = (entry[0], entry[1] - 2, entry[2], entry[3], entry[4])
            else:
                cache[line] = entry
        ind, op, key, value, inner = entry
        if op == K_SCALAR and ind == t_ind and t_map:
            # The most common line by far: `key: scalar` in the mapping being read.
            if key in t_obj:
                raise Unsupported
            t_obj[key] = value
            t_pend = none
            continue
        if op == 0:
            continue
        while ind < t_ind:
            t_ind, t_obj, t_map, t_pend, t_same = pop()
        is_item = op >= I_SCALAR
        if ind > t_ind:
            if t_pend is none or len(stack) >= MAX_DEPTH or (not started and ind):
                raise Unsupported
            started = True
            child: Any = [] if is_item else {}
            t_obj[t_pend] = child
            push((t_ind, t_obj, t_map, none, t_same))
            t_ind, t_obj, t_map, t_pend, t_same = ind, child, not is_item, none, False
        elif is_item:
            if t_map:
                if t_pend is none or len(stack) >= MAX_DEPTH:
                    raise Unsupported
                child = []
                t_obj[t_pend] = child
                push((t_ind, t_obj, t_map, none, t_same))
                t_ind, t_obj, t_map, t_pend, t_same = ind, child, False, none, True
        elif t_same:
            t_ind, t_obj, t_map, t_pend, t_same = pop()
        if t_map == is_item:
            raise Unsupported
        if op == K_SCALAR:
            if key in t_obj:
                raise Unsupported
            t_obj[key] = value
            t_pend = none
        elif op >= IK_SCALAR:  # a compact `- key: …` opens a mapping in the list
            if len(stack) >= MAX_DEPTH:
                raise Unsupported
            mapping = {key: clone(value) if op == IK_FLOW else value}
            t_obj.append(mapping)
            push((t_ind, t_obj, False, none, t_same))
            t_ind, t_obj, t_map, t_pend, t_same = inner, mapping, True, (key if op == IK_OPEN else none), False
        elif op == K_OPEN:
            if key in t_obj:
                raise Unsupported
            t_obj[key] = None
            t_pend = key
        elif op == K_FLOW:
            if key in t_obj:
                raise Unsupported
            t_obj[key] = clone(value)
            t_pend = none
        elif op == I_SCALAR:
            t_obj.append(value)
            t_pend = none
        elif op == I_OPEN:
            t_obj.append(None)
            t_pend = len(t_obj) - 1
        else:
            t_obj.append(clone(value))
            t_pend = none
    if not started:
        raise Unsupported
    return holder[0]
