"""Diagnostics are ordered like JavaScript's ``localeCompare`` (docs/validate.md, "Output")."""

from __future__ import annotations

from pix3tools.validate import Diagnostic, locale_key
from pix3tools.validate._report import sort_diagnostics

# The order Node 20 (full ICU) gives with ``a.sort((x, y) => x.localeCompare(y))``.
NODE_ORDER = [
    "",
    "a_b",
    "a,b",
    "a;b",
    "a:b",
    "a!b",
    "a?b",
    "a.b",
    "a'b",
    'a"b',
    "a[b",
    "a{b",
    "a@b",
    "a*b",
    "a/b",
    "a\\b",
    "a&b",
    "a#b",
    "a%b",
    "a`b",
    "a^b",
    "a+b",
    "a<b",
    "a=b",
    "a>b",
    "a|b",
    "E_MISSING_RESOURCE",
    "E_SHAPE",
    "E_SVG_INVALID",
    "locales/en.json",
    "pix3project.yaml",
    "root[0].children[1]",
    "root[0].children[10]",
    "root[0].children[2]",
    "root[0].properties.x",
    "root[0].type",
    "root[1]",
    "scenes/_x.pix3scene",
    "scenes/10.pix3scene",
    "scenes/2.pix3scene",
    "scenes/a b.pix3scene",
    "scenes/a-b.pix3scene",
    "scenes/a.pix3scene",
    "scenes/A.pix3scene",
    "Scenes/a.pix3scene",
    "scenes/a(1).pix3scene",
    "scenes/a~.pix3scene",
    "scenes/a$.pix3scene",
    "scenes/ab.pix3scene",
    "scenes/B.pix3scene",
    "scenes/e.pix3scene",
    "scenes/é.pix3scene",
    "scenes/f.pix3scene",
    "scripts",
    "sprites/coin/coin.pix3anim",
    "W_TYPE_CASE",
]


def test_locale_key_matches_node() -> None:
    shuffled = sorted(NODE_ORDER, key=lambda s: s[::-1])
    assert sorted(shuffled, key=locale_key) == NODE_ORDER


def test_sort_by_file_line_path_code() -> None:
    diags = [
        Diagnostic("W_TYPE_CASE", "scenes/b.pix3scene", "m", path=("root", 0, "type"), line=4),
        Diagnostic("E_SHAPE", "scenes/a.pix3scene", "m"),
        Diagnostic("E_UNKNOWN_PROPERTY", "scenes/a.pix3scene", "m", path=("root", 0, "properties", "b"), line=7),
        Diagnostic("E_PROPERTY_TYPE", "scenes/a.pix3scene", "m", path=("root", 0, "properties", "a"), line=7),
        Diagnostic("E_PROPERTY_ENUM", "scenes/a.pix3scene", "m", path=("root", 0, "properties", "a"), line=7),
        Diagnostic("E_YAML", "Scenes/a.pix3scene", "m", line=1),
    ]
    assert [(d.file, d.line, d.path_text, d.code) for d in sort_diagnostics(diags)] == [
        ("scenes/a.pix3scene", 7, "root[0].properties.a", "E_PROPERTY_ENUM"),
        ("scenes/a.pix3scene", 7, "root[0].properties.a", "E_PROPERTY_TYPE"),
        ("scenes/a.pix3scene", 7, "root[0].properties.b", "E_UNKNOWN_PROPERTY"),
        ("scenes/a.pix3scene", None, None, "E_SHAPE"),
        ("Scenes/a.pix3scene", 1, None, "E_YAML"),
        ("scenes/b.pix3scene", 4, "root[0].type", "W_TYPE_CASE"),
    ]
