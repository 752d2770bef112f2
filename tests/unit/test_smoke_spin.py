"""Where a script spun, as one line (pix3tools/smoke/_spin.py): the words the watchdog and
`pix3 smoke` share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pix3tools.smoke import SourceMap, map_location, spin_frames, where_text
from tests.support.sourcemaps import source_map

ORIGIN = "http://127.0.0.1:5173"
ROOT = Path("/home/dev/game")


def call(name: str, script: str, line: int, column: int, url: str = "") -> dict[str, Any]:
    return {
        "functionName": name,
        "url": url,
        "location": {"scriptId": script, "lineNumber": line, "columnNumber": column},
    }


def served(url: str, line: int, column: int) -> tuple[str, int, int] | None:
    return map_location(None, url, url, line, column, ORIGIN, ROOT)


@pytest.mark.parametrize(
    ("frames", "scripts", "where"),
    [
        # a plain script: the path the dev server served, 1-based
        ([call("frame", "1", 131, 30)], {"1": f"{ORIGIN}/src/game.js"}, "frame() at src/game.js:132:31"),
        # an anonymous function
        ([call("", "1", 0, 0)], {"1": f"{ORIGIN}/src/game.js"}, "(anonymous)() at src/game.js:1:1"),
        # an eval without a URL says nothing; its caller does
        ([call("", "9", 0, 0), call("tick", "1", 9, 4)], {"1": f"{ORIGIN}/main.js"}, "tick() at main.js:10:5"),
        # the deprecated frame URL when the script was not seen parsed
        ([call("f", "5", 1, 1, url=f"{ORIGIN}/a.js")], {}, "f() at a.js:2:2"),
        # another origin is named by its URL
        ([call("f", "1", 0, 0)], {"1": "https://cdn.example/lib.js"}, "f() at https://cdn.example/lib.js:1:1"),
        # nothing with a URL
        ([call("", "9", 0, 0)], {}, None),
        ([], {}, None),
        ("not frames", {}, None),
    ],
)
def test_where_names_the_first_frame_a_person_can_open(frames: Any, scripts: dict[str, str], where: str | None) -> None:
    assert spin_frames(frames, scripts, served)[0] == where


def test_frames_are_mapped_through_the_source_map_and_hidden_ones_dropped() -> None:
    compiled = SourceMap(source_map("game.ts", [(131, 0, 140, 8)]))
    url = f"{ORIGIN}/src/game.ts"

    def locate(at: str, line: int, column: int) -> tuple[str, int, int] | None:
        return map_location(compiled if at == url else None, url, at, line, column, ORIGIN, ROOT)

    frames = [call("probe", "2", 0, 0), call("frame", "1", 131, 30), call("loop", "1", 131, 2)]
    scripts = {"1": url, "2": f"{ORIGIN}/__pix3/recorder.js"}
    where, mapped = spin_frames(frames, scripts, locate, hidden=lambda at: at.endswith("/__pix3/recorder.js"))
    assert where == "frame() at src/game.ts:141:9"
    assert mapped == [
        {"functionName": "frame", "url": "src/game.ts", "line": 141, "column": 9},
        {"functionName": "loop", "url": "src/game.ts", "line": 141, "column": 9},
    ]
    assert where_text(mapped[1]) == "loop() at src/game.ts:141:9"


def test_a_deep_stack_keeps_ten_frames() -> None:
    frames = [call(f"f{n}", "1", n, 0) for n in range(50)]
    _, mapped = spin_frames(frames, {"1": f"{ORIGIN}/a.js"}, served)
    assert [f["functionName"] for f in mapped] == [f"f{n}" for n in range(10)]


def test_without_a_project_root_a_file_outside_the_served_paths_keeps_its_url() -> None:
    # The owner serves every project and knows no root: /@fs/ paths stay URLs.
    url = f"{ORIGIN}/@fs/home/dev/lib/x.js"
    where, _ = spin_frames(
        [call("x", "1", 0, 0)], {"1": url}, lambda u, row, col: map_location(None, u, u, row, col, ORIGIN, None)
    )
    assert where == f"x() at {url}:1:1"
