"""YAML 1.2 documents as plain data, with line numbers found on demand.

Scenes are parsed the way the reference validator's `yaml` package does (YAML 1.2 core schema:
``yes``/``on`` are strings, ``1_000`` is a string; duplicate keys are an error; no ``<<`` merges;
at most ``MAX_ALIASES`` alias expansions). Four readers, fastest first (cold, on the bench's
scenes, one core here): the line reader of ``_fastyaml`` for the subset scenes use (~40 MB/s);
libyaml's C parser through ruamel.yaml's C binding (``ruamel.yaml.clib``, a dependency), its events
read by a tight loop for plain documents (~8 MB/s) or by the general builder that also keeps lines,
anchors and tags (~6 MB/s); else ruamel.yaml's own pure-Python parser (~0.4 MB/s), where the
binding is not built or libyaml refuses valid YAML 1.2 (a ``:`` in a plain scalar inside a flow
mapping). They give the same data (``tests/unit/test_validate_fastyaml.py``).

Lines are not kept while loading (most files have no diagnostics): ``Document.line_of(path)``
parses the text once more in line mode, only for files that need a line.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pix3tools._diagnostic import PathSeg
from pix3tools.scene._scalars import MAX_DEPTH, resolve_plain

__all__ = ["MAX_ALIASES", "Document", "PathSeg", "YamlError", "parse_yaml"]

# The reference's `yaml` package caps alias expansion (billion-laughs guard).
MAX_ALIASES = 1000


class YamlError(Exception):
    """The text is not one valid YAML 1.2 document. ``message`` says why in plain words; ``line``
    and ``column`` (1-based, None when unknown) are where to fix it; ``excerpt`` is that line with a
    caret under the column (two lines of text), when the text is known. ``key``: the mapping key
    the error is about, for the caret."""

    def __init__(
        self, message: str, line: int | None, column: int | None = None, excerpt: str | None = None,
        key: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.excerpt = excerpt
        self.key = key

    def located(self, text: str) -> YamlError:
        """This error with its column and excerpt found in ``text`` (itself when it has them)."""
        if self.excerpt is not None or self.line is None:
            return self
        from pix3tools.scene._yamlerror import excerpt, explain_at_line

        found = explain_at_line(text, self.message, self.line, self.key)
        return YamlError(self.message, found.line, found.column, excerpt(text, found.line, found.column))


def _marked(text: str, exc: Any) -> YamlError:
    """A parser error (ruamel's ``MarkedYAMLError``) in plain words, at the place to fix."""
    from pix3tools.scene._yamlerror import excerpt, explain

    problem, context = exc.problem_mark, exc.context_mark
    found = explain(
        text, _first_line(exc.problem or str(exc)),
        problem.line + 1 if problem else None, problem.column + 1 if problem else None,
        exc.context, context.line + 1 if context else None, context.column + 1 if context else None,
    )  # fmt: skip
    return YamlError(found.reason, found.line, found.column, excerpt(text, found.line, found.column))


def _tagged(tag: str, value: str, line: int) -> Any:
    short = tag.rsplit(":", 1)[-1] if tag.startswith("tag:yaml.org,2002:") else tag
    if short in ("str", "!"):
        return value
    if short == "null":
        return None
    if short in ("int", "float", "bool"):
        resolved = resolve_plain(value)
        ok = (
            (short == "bool" and isinstance(resolved, bool))
            or (short == "int" and isinstance(resolved, int) and not isinstance(resolved, bool))
            or (short == "float" and isinstance(resolved, int | float) and not isinstance(resolved, bool))
        )
        if not ok:
            raise YamlError(f"Invalid !!{short} value {value!r}", line)
        return float(resolved) if short == "float" else resolved
    return value  # unknown local tags: the reference's parser warns and keeps the string


# -- event sources --------------------------------------------------------------------------------
# Each source yields tuples (kind, value, line, anchor, style, tag) with kind in
# "scalar" "map" "seq" "end" "alias"; line is 0-based.

Event = tuple[str, Any, int, Any, Any, Any]


def _libyaml() -> tuple[Any, Any, Any, Any] | None:
    """libyaml through ruamel.yaml's own C binding (``ruamel.yaml.clib``): CParser, the events
    module, MarkedYAMLError, YAMLError — or None where the binding is not built (the pure ruamel
    reader is used then)."""
    try:
        c_parser: Any = importlib.import_module("_ruamel_yaml").CParser
    except (ImportError, AttributeError):
        return None
    from ruamel.yaml import events
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    return c_parser, events, MarkedYAMLError, YAMLError


def _event_kinds(events: Any) -> dict[type, str]:
    """The event classes of ``events`` (libyaml's binding's or ruamel's own module) by the kind
    our readers name them."""
    return {
        events.ScalarEvent: "scalar",
        events.MappingStartEvent: "map",
        events.SequenceStartEvent: "seq",
        events.MappingEndEvent: "end",
        events.SequenceEndEvent: "end",
        events.AliasEvent: "alias",
        events.DocumentStartEvent: "doc",
    }


def _libyaml_events(text: str) -> Iterator[Event] | None:
    libyaml = _libyaml()
    if libyaml is None:
        return None
    CParser, events, MarkedYAMLError, YAMLError = libyaml
    kinds = _event_kinds(events)

    def gen() -> Iterator[Event]:
        parser = CParser(text)
        try:
            while True:
                try:
                    event = parser.get_event()
                except MarkedYAMLError as exc:
                    mark = exc.problem_mark or exc.context_mark
                    raise YamlError(_first_line(exc.problem or str(exc)), mark.line + 1 if mark else None) from None
                except (ValueError, YAMLError) as exc:  # libyaml refuses some bytes (e.g. NUL) this way
                    raise YamlError(_first_line(str(exc)), None) from None
                if event is None:
                    return
                kind = kinds.get(type(event))
                if kind is None:
                    if type(event) is events.StreamEndEvent:
                        return
                    continue
                if kind == "scalar":
                    yield kind, event.value, event.start_mark.line, event.anchor, event.style, event.tag
                else:
                    yield (
                        kind,
                        None,
                        event.start_mark.line,
                        getattr(event, "anchor", None),
                        None,
                        getattr(event, "tag", None),
                    )
        finally:
            parser.dispose()

    return gen()


def _ruamel_events(text: str) -> Iterator[Event]:
    from ruamel.yaml import YAML, events
    from ruamel.yaml.error import MarkedYAMLError

    kinds = _event_kinds(events)
    loader = YAML(typ="safe", pure=True)
    try:
        for event in loader.parse(text):
            kind = kinds.get(type(event))
            if kind is None:
                continue
            line = event.start_mark.line if event.start_mark is not None else 0
            if kind == "scalar":
                yield kind, event.value, line, event.anchor, event.style, event.tag
            else:
                yield kind, None, line, getattr(event, "anchor", None), None, getattr(event, "tag", None)
    except MarkedYAMLError as exc:
        raise _marked(text, exc) from None


def _events(text: str) -> Iterator[Event]:
    fast = _libyaml_events(text)
    if fast is None:
        return _ruamel_events(text)
    try:
        return iter(list(fast))
    except YamlError:
        # The libyaml bundled with ruamel.yaml.clib is stricter than YAML 1.2 in places (a `:` inside
        # a plain scalar in a flow mapping, e.g. `{ map: res://a.png }`): ruamel's own parser decides.
        return _ruamel_events(text)


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "parse error"


# -- building -------------------------------------------------------------------------------------


@dataclass
class _Loc:
    """Line info of one container: for a mapping key -> (key line, child), for a list the items'."""

    keys: dict[Any, tuple[int, _Loc | None]] = field(default_factory=dict)
    items: list[tuple[int, _Loc | None]] = field(default_factory=list)


def _build(text: str, with_lines: bool, events: Iterator[Event] | None = None) -> tuple[Any, _Loc | None, int]:
    """Data of the single document in ``text``; with its line tree when asked.

    Returns (data, loc, first content line (0-based)). ``events`` replaces the events of the
    usual source (libyaml, else ruamel's parser), for a test that compares the readers.
    """
    try:
        return _build_from(text, with_lines, events)
    except YamlError as exc:
        raise exc.located(text) from None


def _build_from(text: str, with_lines: bool, events: Iterator[Event] | None) -> tuple[Any, _Loc | None, int]:
    anchors: dict[str, tuple[Any, _Loc | None]] = {}
    aliases = 0
    docs = 0
    root: Any = None
    root_loc: _Loc | None = None
    first_line = 0
    have_root = False
    # stack entries: container, is_map, pending key, have key, key line, loc, anchor
    stack: list[list[Any]] = []
    cur: Any = None
    is_map = False
    pending: Any = None
    have_key = False
    key_line = 0
    loc: _Loc | None = None
    anchor_here: Any = None
    start = 0
    for kind, value, line, anchor, style, tag in _events(text) if events is None else events:
        child_loc: _Loc | None = None
        if kind == "scalar":
            if tag is not None and tag != "!":
                item: Any = _tagged(tag, value, line + 1)
            elif not style and tag is None:
                item = resolve_plain(value)
            else:
                item = value
            if anchor is not None:
                anchors[anchor] = (item, None)
        elif kind == "map" or kind == "seq":
            if len(stack) >= MAX_DEPTH:
                raise YamlError(f"nesting deeper than {MAX_DEPTH} levels", line + 1)
            if not have_root and cur is None and not stack:
                first_line = line
            stack.append([cur, is_map, pending, have_key, key_line, loc, anchor_here, start])
            start = line
            cur = {} if kind == "map" else []
            is_map = kind == "map"
            have_key = False
            loc = _Loc() if with_lines else None
            anchor_here = anchor
            if anchor is not None:
                anchors[anchor] = (cur, loc)
            continue
        elif kind == "end":
            item = cur
            child_loc = loc
            line = start
            cur, is_map, pending, have_key, key_line, loc, anchor_here, start = stack.pop()
        elif kind == "alias":
            aliases += 1
            if aliases > MAX_ALIASES:
                raise YamlError(f"more than {MAX_ALIASES} alias expansions", line + 1)
            if value is None:
                value = anchor
            found = anchors.get(anchor)
            if found is None:
                raise YamlError(f"`*{anchor}` names no anchor: define `&{anchor}` before it is used.", line + 1)
            item, child_loc = found
        elif kind == "doc":
            docs += 1
            if docs > 1:
                raise YamlError("the file holds more than one YAML document", line + 1)
            continue
        else:
            continue
        if not stack and cur is None:
            if not have_root and kind == "scalar":
                first_line = line
            root, root_loc, have_root = item, child_loc, True
            continue
        if is_map:
            if have_key:
                if loc is not None:
                    loc.keys[pending] = (key_line, child_loc)
                cur[pending] = item
                have_key = False
            else:
                if isinstance(item, dict | list):
                    item = _freeze_key(item)
                if item in cur:
                    raise YamlError(
                        f"the key `{item}` appears twice in this mapping: a key may appear once, keep one of them.",
                        line + 1,
                        key=str(item),
                    )
                pending, have_key, key_line = item, True, line
        else:
            if loc is not None:
                loc.items.append((line, child_loc))
            cur.append(item)
    return root, root_loc, first_line


def _freeze_key(item: Any) -> str:
    import json

    return json.dumps(item, default=str)


class _Fallback(Exception):
    """The fast loop met something it leaves to the general builder (anchors, tags, errors)."""


_NO_KEY = object()


def _fast_data(text: str) -> Any:
    """Data of a plain document straight from libyaml's events (no lines, no anchors or tags).

    Raises _Fallback for anything else, and when libyaml is not installed. This loop is where
    `pix3 validate` spends most of its time: it avoids a generator and a tuple per event.
    """
    libyaml = _libyaml()
    if libyaml is None:
        raise _Fallback
    parser: Any = libyaml[0](text)
    ev: Any = libyaml[1]
    scalar_t, map_t, seq_t = ev.ScalarEvent, ev.MappingStartEvent, ev.SequenceStartEvent
    map_end_t, seq_end_t, doc_t, end_t = (
        ev.MappingEndEvent,
        ev.SequenceEndEvent,
        ev.DocumentStartEvent,
        ev.StreamEndEvent,
    )
    marked: Any = libyaml[3]  # every error libyaml reports (marked or not) sends us to the full reader
    get = parser.get_event
    resolve = resolve_plain
    stack: list[tuple[Any, bool, Any]] = []
    push = stack.append
    pop = stack.pop
    cur: Any = None
    is_map = False
    key: Any = _NO_KEY
    root: Any = None
    docs = 0
    try:
        while True:
            try:
                event = get()
            except (marked, ValueError):
                raise _Fallback from None
            kind = type(event)
            if kind is scalar_t:
                if event.anchor is not None or event.tag is not None:
                    raise _Fallback
                value: Any = event.value if event.style else resolve(event.value)
            elif kind is map_t or kind is seq_t:
                if event.anchor is not None or event.tag is not None or len(stack) >= MAX_DEPTH:
                    raise _Fallback
                push((cur, is_map, key))
                if kind is map_t:
                    cur, is_map, key = {}, True, _NO_KEY
                else:
                    cur, is_map = [], False
                continue
            elif kind is map_end_t or kind is seq_end_t:
                value = cur
                cur, is_map, key = pop()
            elif kind is doc_t:
                docs += 1
                if docs > 1:
                    raise _Fallback
                continue
            elif kind is end_t:
                return root
            elif kind is scalar_t or kind.__name__ == "AliasEvent":
                raise _Fallback
            else:
                continue
            if cur is None:
                root = value
            elif is_map:
                if key is _NO_KEY:
                    if type(value) is dict or type(value) is list or value in cur:
                        raise _Fallback
                    key = value
                else:
                    cur[key] = value
                    key = _NO_KEY
            else:
                cur.append(value)
    finally:
        parser.dispose()


@dataclass
class Document:
    """One parsed YAML file: ``data`` (plain dicts/lists/scalars) and its text for line lookups."""

    text: str
    data: Any
    _loc: _Loc | None = None
    _first_line: int = 0
    _located: bool = False

    def _locate(self) -> _Loc | None:
        if not self._located:
            self._located = True
            try:
                _, self._loc, self._first_line = _build(self.text, True)
            except YamlError:
                self._loc = None
        return self._loc

    def line_of(self, path: Sequence[PathSeg]) -> int | None:
        """1-based line of ``path``: a key's line, a list item's start; the deepest existing
        segment wins; the empty path is the first line of content."""
        loc = self._locate()
        line = self._first_line + 1
        for seg in path:
            if loc is None:
                break
            if isinstance(seg, int):
                if not 0 <= seg < len(loc.items):
                    break
                at, loc = loc.items[seg]
            else:
                entry = loc.keys.get(seg)
                if entry is None:
                    break
                at, loc = entry
            line = at + 1
        return line


def parse_yaml(text: str) -> Document:
    """Parse one YAML 1.2 document; raise :class:`YamlError` (with its line) when it does not parse."""
    from pix3tools.scene._fastyaml import Unsupported, fast_load

    try:
        data = fast_load(text)
    except Unsupported:
        try:
            data = _fast_data(text)
        except _Fallback:
            data, _, _ = _build(text, False)
    return Document(text=text, data=data)


LineFinder = Callable[[Sequence[PathSeg]], int | None]
