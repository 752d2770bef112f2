"""Golden outlines of our own scenes (tests/fixtures/tree/*): every line-format feature of
docs/tree.md. The expected text lives in tests/fixtures/tree/golden/."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pix3tools.tree.command import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tree"

# (golden file, project folder, argv, exit code)
CASES = [
    ("main.txt", "tapper", ["scenes/main.pix3scene"], 0),
    ("main-depth0.txt", "tapper", ["res://scenes/main.pix3scene", "--depth", "0"], 0),
    ("main-depth1.txt", "tapper", ["/scenes/main.pix3scene", "--depth=1"], 0),
    ("main-types.txt", "tapper", ["scenes/main.pix3scene", "--types", "label2d, instance,"], 0),
    ("main-types-component.txt", "tapper", ["scenes/main.pix3scene", "--types=user:Spawner", "--depth", "1"], 0),
    ("main.json", "tapper", ["scenes/main.pix3scene", "--json"], 0),
    ("main-props.txt", "tapper", ["scenes/main.pix3scene", "--props"], 0),
    ("main-props.json", "tapper", ["scenes/main.pix3scene", "--props", "--json", "--depth", "1"], 0),
    ("props-odd.txt", "w21", ["scenes/odd.pix3scene", "--props"], 0),
    ("tapper-overview.txt", "tapper", [], 0),
    ("tapper-overview.json", "tapper", ["--json"], 0),
    ("w21-hud.txt", "w21", ["scenes/hud.pix3scene"], 0),
    ("w21-hud.json", "w21", ["scenes/hud.pix3scene", "--json"], 0),
    ("w21-starter.txt", "w21", ["scenes/starter.pix3scene"], 0),
    ("level.txt", "instances", ["scenes/level.pix3scene"], 0),
    ("level.json", "instances", ["scenes/level.pix3scene", "--json"], 0),
    ("instances-overview.txt", "instances", [], 0),
]


def outline(project: str, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, cwd=FIXTURES / project, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("golden", "project", "argv", "code"), CASES, ids=[c[0] for c in CASES])
def test_golden(golden: str, project: str, argv: list[str], code: int) -> None:
    done, out, err = outline(project, argv)
    assert (done, err) == (code, "")
    assert out == (FIXTURES / "golden" / golden).read_text(encoding="utf-8").replace("<ROOT>", str(FIXTURES / project))


if __name__ == "__main__":  # regenerate after a deliberate format change, then review the diff
    for golden, project, argv, _ in CASES:
        text = outline(project, argv)[1].replace(str(FIXTURES / project), "<ROOT>")
        (FIXTURES / "golden" / golden).write_text(text, encoding="utf-8")
