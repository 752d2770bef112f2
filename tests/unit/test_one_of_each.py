"""One of each thing (docs/architecture.md, "Where each rule lives"), read from the source.

A second copy drifts: the default ports were defined six times, the npm version reader three, the
parent-death signal twice. Each check below names what was copied, so a new copy fails here with
where it stands.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("pix3net", "pix3tools")
# The default ports, as numbers in code: only pix3tools/core/ports.py may write them.
PORTS = frozenset({9333, 9339, 5173})
PORTS_HOME = REPO / "pix3tools" / "core" / "ports.py"


def _sources() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (REPO / package).rglob("*.py"))


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}:{line}"


def port_literals(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value in PORTS:
                found.append(f"{_where(path, node.lineno)}: {node.value}")
    return found


def test_the_default_ports_are_written_once() -> None:
    assert port_literals([p for p in _sources() if p != PORTS_HOME]) == []
    assert port_literals([PORTS_HOME]) != []


def test_the_usage_texts_print_the_ports_the_commands_use() -> None:
    from pix3tools.core.ports import CDP_PORT, CDP_PORT_SPAN, DEV_PORT
    from pix3tools.core.usage import COMMAND_USAGE, HIDDEN_USAGE

    assert f"127.0.0.1:{CDP_PORT} by default" in COMMAND_USAGE["editor"]
    assert f"(default {CDP_PORT}, then the next free one up to {CDP_PORT + CDP_PORT_SPAN})" in COMMAND_USAGE["editor"]
    assert f"(default: {DEV_PORT}, or the next free one)" in HIDDEN_USAGE["__dev-server"]


def top_level_functions(paths: list[Path]) -> dict[str, list[str]]:
    """Every module-level function and method name of the packages → where it is defined."""
    places: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                places[node.name.lstrip("_")].append(_where(path, node.lineno))
    return places


# Helpers that had several homes, each defined once now (a private copy counts too: ``_iso_time``).
ONCE = frozenset(
    {
        "iso_time",  # toISOString: daemon/chromerecord, devrecord, new, gap
        "package_version",  # the npm version reader: pix3tools/_npm, check/_layout, devserver/front/vite
        "installed_version",
        "find_installed",  # node_modules/<x> walking up: editor/devserver, front/vite, wiring
        "find_vite",
        "dies_with_us",  # the parent-death signal: smoke/_devserver, devserver/front/vite
        "die_with_parent",
        "tail_lines",  # a log's tail: devserver/control, owner/control
        "first_free_port",  # the first free port from 5173: front/bind, editor/devserver
        "any_free_port",
    }
)
# The names the copies had: a new definition under one of them is a copy coming back.
RETIRED = frozenset(
    {
        "iso_now",
        "iso_ms",
        "iso",
        "find_upward",
        "find_vite_bin",
        "find_editor_css",
        "free_loopback_port",
        "loopback_free",
    }
)


def test_each_helper_that_had_several_homes_has_one() -> None:
    places = top_level_functions(_sources())
    assert {name: where for name, where in places.items() if name in ONCE and len(where) > 1} == {}
    assert {name: where for name, where in places.items() if name in RETIRED} == {}
    assert places.keys() >= ONCE


def test_the_checks_can_fail(tmp_path: Path) -> None:
    copy = tmp_path / "copy.py"
    copy.write_text("PORT = 9333\n\n\ndef iso_now():\n    pass\n\n\ndef _iso_now():\n    pass\n")
    assert port_literals([copy]) == [f"{copy}:1: 9333"]
    assert len(top_level_functions([copy])["iso_now"]) == 2
