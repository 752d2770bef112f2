"""A YAML text that does not parse: the reason in plain words, at the place to fix, with the line
and a caret (docs/validate.md, "Bad input"). A table of the mistakes people make in scenes."""

from __future__ import annotations

import pytest

from pix3tools.scene import YamlError, parse_yaml

NODE = "version: 1.0.0\nroot:\n  - id: a\n    type: Sprite2D\n"

# (name, text, line, column, words the reason holds, the parser's words it must not repeat)
CASES = [
    # A key lined up with the list's `- ` (the parser: "expected <block end>, but found '?'").
    ("key-at-item-column", NODE + "  properties:\n    width: 3\n", 5, 3,
     ["the key `properties` is indented 2 spaces", "`- ` items on line 3", "4 spaces (like line 4)"], "<block end>"),
    ("key-between-columns", NODE + "   name: x\n", 5, 4,
     ["indented 3 spaces", "nothing above it starts", "4 spaces (like line 4)"], "<block"),
    ("item-out-of-line", "root:\n  - id: a\n   - id: b\n", 3, 4, ["`- ` item is indented 3 spaces", "2 spaces (like line 2)"], "<block"),
    # A missing `]`: the parser notices on the next line; the caret goes under the `[`.
    ("unclosed-list", NODE + "    properties:\n      transform:\n        position: [1, 2\n      width: 4\n", 7, 19,
     ["a `[` is not closed on its line", "add the `]`", "line 8"], "expected ','"),
    ("unclosed-mapping", NODE + "    properties: {width: 3\n  - id: b\n", 5, 17, ["a `{` is not closed", "`}`"], "expected ','"),
    ("list-at-the-end", "version: 1.0.0\nroot: [\n", 2, 7, ["the file ends inside a `[`", "`]`"], "node content"),
    ("wrong-closer", "root:\n  - p: {a: 1 ]\n", 2, 14, ["`]` cannot close the `{`", "use `}`"], "expected"),
    ("missing-comma", "root:\n  - p: {x: 1 y: 2}\n", 2, 15, ["where a `,` or the closing `}` should"], "expected"),
    ("stray-closer", "root:\n  - p: [1, 2]]\n", 2, 14, ["a `]` that closes nothing"], "<block end>"),
    ("colon-in-value", NODE + "    properties:\n      label: Score: 10\n", 6, 19,
     ["a second `: ` in the value of `label`", '`label: "Score: 10"`'], "mapping values"),
    ("indented-more", NODE + "      width: 3\n", 5, 7, ["indented more than line 4", "4 spaces"], "mapping values"),
    ("quote-inside-quotes", "root:\n  - name: 'it's'\n", 2, 15, ["text follows the closing `'`", "`'it''s'`"], "<scalar>"),
    ("unclosed-quote", 'root:\n  - name: "open\n    type: X\n', 2, 11, ['a quoted text is never closed', 'closing `"`'], "stream"),
    ("no-colon", "root:\n  - id: a\n    type Sprite2D\n    name: x\n", 3, 5, ["`type Sprite2D` has no `: `"], "simple key"),
    ("no-space", "root:\n  - id: a\n    type:Sprite2D\n    name: x\n", 3, 5, ["needs a space after it"], "simple key"),
    ("tab", NODE + "    properties:\n    \twidth: 3\n", 6, 5, ["a tab", "spaces only"], "token"),
    ("reserved", "root:\n  - name: @coin\n", 2, 11, ["cannot start with `@`", "quote the value"], "token"),
    ("escape", 'root:\n  - name: "a\\q"\n', 2, 14, ["`\\q` is not an escape"], "unknown escape"),
    ("repeated-key", NODE + "    type: Group2D\n", 5, 5, ["the key `type` appears twice"], "unique"),
    ("repeated-in-flow", "root:\n  - p: {x: 1, x: 2}\n", 2, 15, ["the key `x` appears twice"], "unique"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "line", "column", "words", "jargon"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_reason_in_plain_words_at_the_place_to_fix(
    text: str, line: int, column: int, words: list[str], jargon: str
) -> None:
    with pytest.raises(YamlError) as raised:
        parse_yaml(text)
    error = raised.value
    assert (error.line, error.column) == (line, column), error.message
    for word in words:
        assert word in error.message, error.message
    assert jargon not in error.message
    source = text.split("\n")[line - 1].replace("\t", " ")
    number = str(line)
    assert error.excerpt == f"  {number} | {source}\n  {' ' * len(number)} | {' ' * (column - 1)}^"


def test_a_long_line_is_cut_around_the_caret() -> None:
    text = "root:\n  - name: " + "x" * 300 + " y: 1 " + "z" * 300 + "\n"
    with pytest.raises(YamlError) as raised:
        parse_yaml(text)
    error = raised.value
    assert error.excerpt is not None
    shown, caret = error.excerpt.split("\n")
    assert len(shown) < 120 and shown.count("…") == 2
    assert shown[caret.index("^")] == ":"  # the caret still points at what is wrong
