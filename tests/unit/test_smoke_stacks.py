"""Source maps and stack rewriting for `pix3 smoke` (pure)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from pix3tools.smoke._sourcemap import Position, SourceMap, SourceMapError, decode_data_url, decode_vlq, map_url_of
from pix3tools.smoke._stack import map_location, project_path_of_url, rewrite_stack, stack_urls

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
ROOT = Path("/home/u/game")
ORIGIN = "http://localhost:5173"


def vlq(*values: int) -> str:
    out = ""
    for value in values:
        v = (-value << 1) | 1 if value < 0 else value << 1
        while True:
            digit, v = v & 31, v >> 5
            out += B64[digit | (32 if v else 0)]
            if not v:
                break
    return out


@pytest.mark.parametrize(
    ("text", "values"), [("AAAA", [0, 0, 0, 0]), ("AAgBC", [0, 0, 16, 1]), ("D", [-1]), ("2H", [123])]
)
def test_vlq(text: str, values: list[int]) -> None:
    assert decode_vlq(text) == values
    assert vlq(*values) == text


@pytest.mark.parametrize("bad", ["A!", "g"])
def test_bad_vlq(bad: str) -> None:
    with pytest.raises(SourceMapError):
        decode_vlq(bad)


def a_map(**extra: object) -> SourceMap:
    # line 0: col 0 → a.ts 2:4; col 10 → a.ts 3:0 named "boom"; col 20 → unmapped
    # line 1: empty; line 2: col 2 → b.ts 0:0 (absolute deltas continue across lines)
    line0 = ",".join([vlq(0, 0, 2, 4), vlq(10, 0, 1, -4, 0), vlq(10)])
    line2 = vlq(2, 1, -3, 0)
    data = {"version": 3, "sources": ["a.ts", "b.ts"], "names": ["boom"], "mappings": f"{line0};;{line2}", **extra}
    return SourceMap(json.dumps(data))


def test_lookup() -> None:
    m = a_map()
    assert m.lookup(0, 0) == Position("a.ts", 2, 4)
    assert m.lookup(0, 9) == Position("a.ts", 2, 4)
    assert m.lookup(0, 10) == Position("a.ts", 3, 0, "boom")
    assert m.lookup(0, 25) is None  # a column the map leaves unmapped
    assert m.lookup(1, 0) is None
    assert m.lookup(2, 1) is None  # left of the first segment
    assert m.lookup(2, 5) == Position("b.ts", 0, 0)
    assert m.lookup(9, 0) is None
    assert a_map(sourceRoot="/src").lookup(0, 0) == Position("/src/a.ts", 2, 4)


@pytest.mark.parametrize("text", ["not json", "[]", '{"version":3}'])
def test_not_a_map(text: str) -> None:
    with pytest.raises(SourceMapError):
        SourceMap(text)


def test_map_comments_and_data_urls() -> None:
    inline = "data:application/json;base64," + base64.b64encode(b'{"a":1}').decode()
    assert map_url_of("code();\n//# sourceMappingURL=main.js.map\n") == "main.js.map"
    assert map_url_of("code();\n/*# sourceMappingURL=x.map */") == "x.map"
    assert map_url_of("x\n//# sourceMappingURL=" + inline) == inline
    big = "x\n//# sourceMappingURL=data:application/json;base64," + "A" * 10000
    assert map_url_of(big) == big.split("=", 1)[1]
    assert map_url_of("no comment here") is None
    assert decode_data_url(inline) == '{"a":1}'
    assert decode_data_url("data:application/json,%7B%7D") == "{}"
    assert decode_data_url("http://x") is None


@pytest.mark.parametrize(
    ("url", "path"),
    [
        (f"{ORIGIN}/scripts/Foo.ts?t=123", "scripts/Foo.ts"),
        (f"{ORIGIN}/art/a%20b.png", "art/a b.png"),
        (f"{ORIGIN}/@fs/home/u/game/lib/x.ts", "lib/x.ts"),
        (f"{ORIGIN}/@fs/elsewhere/x.ts", None),
        ("http://127.0.0.1:5173/x.js", None),
        ("file:///home/u/game/scripts/a.ts", "scripts/a.ts"),
        ("/home/u/game/s.ts", "s.ts"),
        ("pix3-smoke://page.js", None),
    ],
)
def test_project_path_of_url(url: str, path: str | None) -> None:
    assert project_path_of_url(url, ORIGIN, ROOT) == path


def test_map_location_through_a_map_and_without() -> None:
    m = a_map()
    url = f"{ORIGIN}/scripts/a.ts"
    assert map_location(m, url, url, 1, 11, ORIGIN, ROOT) == ("scripts/a.ts", 4, 1)
    assert map_location(m, url, url, 1, 25, ORIGIN, ROOT) == ("scripts/a.ts", 1, 25)  # unmapped: the served position
    assert map_location(None, url, url, 7, 3, ORIGIN, ROOT) == ("scripts/a.ts", 7, 3)
    absolute = SourceMap(json.dumps({"version": 3, "sources": ["/home/u/game/src/b.ts"], "mappings": "AAAA"}))
    assert map_location(absolute, url, url, 1, 1, ORIGIN, ROOT) == ("src/b.ts", 1, 1)
    assert map_location(None, "https://cdn.example/x.js", "https://cdn.example/x.js", 1, 1, ORIGIN, ROOT) is None


def test_rewrite_stack() -> None:
    stack = (
        "Error: boom\n"
        f"    at loop ({ORIGIN}/games/throws.js:4:44)\n"
        "    at run (pix3-smoke://page.js:60:16)\n"
        f"    at {ORIGIN}/main.js?v=1:2:3\n"
        "    at new Thing (https://cdn.example/lib.js:1:1)\n"
        "    at async Promise.all (index 0)"
    )
    assert stack_urls(stack) == [
        f"{ORIGIN}/games/throws.js",
        "pix3-smoke://page.js",
        f"{ORIGIN}/main.js?v=1",
        "https://cdn.example/lib.js",
    ]
    out = rewrite_stack(
        stack,
        lambda url, line, col: map_location(None, url, url, line, col, ORIGIN, ROOT),
        lambda url: url.startswith("pix3-smoke:"),
    )
    assert out == (
        "Error: boom\n"
        "    at loop (games/throws.js:4:44)\n"
        "    at main.js:2:3\n"
        "    at new Thing (https://cdn.example/lib.js:1:1)\n"
        "    at async Promise.all (index 0)"
    )
