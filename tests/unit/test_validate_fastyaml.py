"""The line-based YAML reader gives exactly the full parser's data, or steps aside."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pix3tools.scene._fastyaml import Unsupported, fast_load
from pix3tools.scene._yaml import YamlError, _build

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _same(text: str) -> bool:
    """True when the fast reader handled the text (and then it must agree with the parser)."""
    try:
        fast = fast_load(text)
    except Unsupported:
        return False
    try:
        full, _, _ = _build(text, False)
    except YamlError as exc:
        raise AssertionError(f"fast reader accepted text the parser rejects ({exc.message}): {text!r}") from None
    assert json.dumps(fast, sort_keys=True, default=str) == json.dumps(full, sort_keys=True, default=str), text
    return True


def test_every_fixture_scene_is_read_alike() -> None:
    ours = [*(FIXTURES / "projects").rglob("*.pix3scene"), *(FIXTURES / "scenes").rglob("*.pix3scene")]
    assert ours and all(_same(p.read_text()) for p in ours)
    for other in FIXTURES.rglob("*.pix3scene"):  # others' fixtures: whatever the reader takes must agree
        _same(other.read_text())


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb:\n  - x\n  - {c: 2, d: [1, 2]}\n",
        "root:\n- id: a\n  children:\n  - id: b\n  type: X\nnext: 1\n",
        "a: #c\n  b: 1\n",
        "a: '#fff'\nb: \"#fff\"\nc: #fff\n",
        "a: 'it''s'\nb: \"x\" # c\n",
        "a: [1, 2, ]\nb: {}\nc: []\nd: [ ]\n",
        "a: res://x/y.png\nb: {url: res://x.png, type: texture}\n",
        "a: yes\nb: 0o17\nc: 0x1F\nd: 1e3\ne: .inf\nf: ~\ng: -5\nh: +3\n",
        "-\n  a: 1\n- b\n-   c: 2\n    d: 3\n",
        "a:\n  - - 1\n",
        "a: b: c\n",
        "a: 1\n  b: 2\n",
        "a:\n    b: 1\n  c: 2\n",
        "a: 1\na: 2\n",
        "a: [1, 2\n",
        "a: |\n  text\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a:\tb\n",
        "\ta: 1\n",
        "a: {b: 1 c: 2}\n",
        "a: {b:1}\n",
        "a: [,]\n",
        "a: [- x]\n",
        "a: plain\n  continued\n",
        "? a\n: b\n",
        "---\na: 1\n",
        "a: 1 # comment: yes\n",
        "key with spaces: v\n",
        "a: {x: [1, 2], y: [3, 4], z: 5}\n",
        "a: {x: 'q', y: \"r\"}\n",
        "1: a\ntrue: b\nnull: c\n",
        "a: -\n",
        "a: :x\n",
        "a: x:\n",
        "a: [a#b, 'c']\n",
        "a: [a #b]\n",
        "a: {b: {c: {d: 1}}}\n",
        "",
        "# only a comment\n",
        "hello\n",
        "a: 1\r\nb: 2\r\n",
    ],
)
def test_tricky_snippets(text: str) -> None:
    _same(text)


_scalars = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32).filter(lambda f: not math.isnan(f)),
    st.booleans(),
    st.none(),
    st.text(alphabet="ab: #-'\"[]{},&*!|>?%@`\\/.0123456789eE+xoyn~é🪙\t", max_size=8),
)
_keys = st.text(alphabet="abcxyz_ -:#.'\"0123456789", min_size=1, max_size=6)
_data = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_keys, _data, min_size=1, max_size=4), st.sampled_from([None, False, True]))
def test_agrees_with_the_parser_on_dumped_data(data: dict[str, Any], flow: bool | None) -> None:
    dumper = YAML(typ="safe", pure=True)
    dumper.default_flow_style = flow
    dumper.width = 10**6
    dumper.allow_unicode = True
    out = io.StringIO()
    dumper.dump(data, out)
    _same(out.getvalue())


_tame_scalars = st.one_of(
    st.integers(-(10**4), 10**4),
    st.sampled_from([0.5, -1.25, 1e-3, 100.0]),
    st.booleans(),
    st.none(),
    st.text(alphabet="abcXYZ019 ._/:-#", min_size=1, max_size=10),
    st.sampled_from(["res://sprites/a.png", "#ff8800", "core:Rotate", "yes", "1.0.0", "-", "a: b", "x #y"]),
)
_tame_keys = st.text(alphabet="abcxyz_09", min_size=1, max_size=6)
_tame = st.recursive(
    _tame_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_tame_keys, inner, max_size=4)),
    max_leaves=16,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_tame_keys, _tame, min_size=1, max_size=5), st.sampled_from([None, False]))
def test_agrees_on_scene_like_data(data: dict[str, Any], flow: bool | None) -> None:
    dumper = YAML(typ="safe", pure=True)
    dumper.default_flow_style = flow
    dumper.width = 10**6
    out = io.StringIO()
    dumper.dump(data, out)
    _same(out.getvalue())
