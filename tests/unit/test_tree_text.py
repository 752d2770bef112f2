"""JavaScript number printing and the outline's small text helpers."""

from __future__ import annotations

import pytest

from pix3tools._js import js_number, js_round, plain_number
from pix3tools.tree._text import quote_short, value_text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (-0.0, "0"),
        (3.0, "3"),
        (-340, "-340"),
        (0.1, "0.1"),
        (-0.5, "-0.5"),
        (123.456, "123.456"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-10, "1.5e-10"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (2.0**60, "1152921504606847000"),
        (12345678901234567.0, "12345678901234568"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (float("nan"), "NaN"),
        (True, "true"),
    ],
)
def test_js_number(value: float, text: str) -> None:
    assert js_number(value) == text


def test_js_round_halves_go_up() -> None:
    assert js_round(0.123456) == 0.1235
    assert js_round(-0.00005) == 0  # Math.round(-0.5) is -0
    assert js_round(2.5, 0) == 3 and js_round(-2.5, 0) == -2
    assert plain_number(12.0) == 12 and isinstance(plain_number(12.0), int) and plain_number(12.5) == 12.5


def test_quotes_and_values() -> None:
    assert quote_short("a\n  b\tc", 40) == '"a b c"'
    assert quote_short("x" * 41, 40) == '"' + "x" * 39 + '…"'
    assert quote_short("x" * 40, 40) == '"' + "x" * 40 + '"'
    assert quote_short('say "hi" ünï', 40) == '"say \\"hi\\" ünï"'
    assert value_text("#141a2e") == "#141a2e"
    assert value_text("res://a/b.png") == "res://a/b.png"
    assert value_text("two words") == '"two words"'
    assert value_text(None) == "null" and value_text(False) == "false" and value_text(1.50) == "1.5"
    assert value_text([1, 2.5]) == "(1,2.5)" and value_text({"x": 1, "y": 2}) == "(1,2)"
    assert value_text({"type": "texture", "url": "res://t.png"}) == "res://t.png"
    assert value_text({"a": [1, {"b": "c"}]}) == '{"a":[1,{"b":"c"}]}'
    assert value_text(["a"] * 40).endswith("…") and len(value_text(["a"] * 40)) == 80


def test_default_equality_and_flattening() -> None:
    from pix3tools.tree._props import flatten, same_value

    assert same_value(60.0000001, 60) and not same_value(60.00001, 60)
    assert same_value([1, 1], {"x": 1, "y": 1}) and not same_value([1, 1], [1, 1, 1])
    assert same_value("#FFF", "#ffffff") and same_value("#AbC", "#aabbcc") and not same_value("#fff", "#fffffe")
    assert same_value(None, None) and not same_value(False, 0) and not same_value("0", 0)
    assert flatten({"transform": {"scale": [1, 1], "position": {"x": 1, "y": 2}}, "texture": {"url": "a"}}) == {
        "transform.scale": [1, 1],
        "transform.position": {"x": 1, "y": 2},
        "texture": {"url": "a"},
    }
    assert flatten({"offset": {"x": 1, "y": 2}, "empty": {}}) == {"offset": {"x": 1, "y": 2}, "empty": {}}
