"""The dev server's media types (docs/devserver.md, "Media types"): one table, whatever the
machine's own says."""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path

import pytest

from pix3net.devserver.http import COMPILED_SOURCE, CONTENT_TYPES, content_type


@pytest.mark.parametrize("name", ["main.ts", "src/Game.TSX", "a.mts", "a.cts", "view.jsx", "types.d.ts"])
def test_source_a_browser_cannot_run_is_plain_text(name: str) -> None:
    assert content_type(name) == "text/plain; charset=utf-8"


def test_the_system_table_is_never_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> tuple[str, None]:
        raise AssertionError("the system's mime table was asked")

    monkeypatch.setattr(mimetypes, "guess_type", refuse)
    assert content_type("main.ts") == "text/plain; charset=utf-8"
    assert content_type("x.unknownext") == "application/octet-stream"
    assert "trolltech" not in " ".join(CONTENT_TYPES.values()) and "mp2t" not in " ".join(CONTENT_TYPES.values())


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("game.js", "text/javascript; charset=utf-8"),
        ("game.MJS", "text/javascript; charset=utf-8"),
        ("lib.cjs", "text/javascript; charset=utf-8"),
        ("index.html", "text/html; charset=utf-8"),
        ("main.pix3scene", "text/yaml; charset=utf-8"),
        ("game.js.map", "application/json; charset=utf-8"),
        ("coin.png", "image/png"),
        ("favicon.ico", "image/x-icon"),
        ("hit.ogg", "audio/ogg"),
        ("rapier.wasm", "application/wasm"),
        ("README", "application/octet-stream"),
        (".hidden", "application/octet-stream"),
        ("dir.d/file", "application/octet-stream"),
    ],
)
def test_known_and_unknown_extensions(name: str, kind: str) -> None:
    assert content_type(name) == kind


def test_the_judge_and_the_server_agree_on_what_needs_compiling() -> None:
    """The shared rules (judge.js) call a refused script TypeScript by these same suffixes."""
    rules = (Path(__file__).parents[2] / "pix3net/devserver/page/judge.js").read_text()
    found = re.search(r"const COMPILED_SOURCE = \[([^\]]*)\];", rules)
    assert found is not None
    assert {ext.strip().strip('"').lstrip(".") for ext in found[1].split(",")} == COMPILED_SOURCE
