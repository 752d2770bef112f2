"""The tests' own house rules (docs/architecture.md, "Tests and benchmarks"), read from the source.

Shared helpers live in ``tests/support`` (one copy each), fixtures in ``conftest.py``; a test
module never imports another test module or a conftest, and a test file is named after the
module or behaviour it tests, not after a milestone.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LAYERS = ("unit", "integration", "e2e")
# Names the tests once had: milestones ("polish") and prefixes that are no package ("devapp" is
# pix3net.devserver, "devfiles" its file API: test_devserver_files_*).
RETIRED_PREFIXES = ("polish", "devapp", "devfiles")
# Helpers that were copied from file to file (free_port seven times, pid_alive three): each has
# one home in tests/support, also under a private name (``_free_port``).
ONCE_COPIED = frozenset(
    {"free_port", "free_port_run", "pid_alive", "pid_exists", "wait_gone", "pix3_env", "pix3_argv", "run_pix3"}
)


def _python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "node_modules" not in p.parts)


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 0, f"{path}:{node.lineno}: import tests modules by their full name"
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
    return found


def _is_test_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] == "tests" and any(part.startswith("test_") or part == "conftest" for part in parts[1:])


def test_no_module_imports_a_test_module_or_a_conftest() -> None:
    offenders = [
        f"{path.relative_to(TESTS.parent)}:{line}: imports {name}"
        for path in _python_files()
        for line, name in _imported_modules(path)
        if _is_test_module(name)
    ]
    assert offenders == [], "move what is shared to tests/support (fixtures to a conftest.py):\n" + "\n".join(offenders)


def test_helpers_live_in_tests_support() -> None:
    strays = [
        str(path.relative_to(TESTS.parent))
        for layer in LAYERS
        for path in (TESTS / layer).rglob("*.py")
        if not (path.name.startswith("test_") or path.name in ("conftest.py", "__init__.py"))
    ]
    assert strays == [], "a helper module belongs in tests/support, named after what it helps with"


def test_test_files_are_named_after_what_they_test() -> None:
    retired = re.compile(rf"test_({'|'.join(RETIRED_PREFIXES)})_")
    wrong = [str(p.relative_to(TESTS.parent)) for p in _python_files() if retired.match(p.name)]
    assert wrong == []


def _top_level_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and not node.name.startswith("_")
    }


def test_each_support_helper_is_defined_once() -> None:
    places: dict[str, list[str]] = defaultdict(list)
    for path in sorted((TESTS / "support").glob("*.py")):
        for name in _top_level_names(path) - {"main"}:  # a script's entry point
            places[name].append(path.name)
    assert {name: where for name, where in places.items() if len(where) > 1} == {}


def test_the_helpers_once_copied_around_are_only_in_tests_support() -> None:
    copies = [
        f"{path.relative_to(TESTS.parent)}: {name}"
        for path in _python_files()
        if "support" not in path.parts
        for name in sorted(_defined_functions(path) & ONCE_COPIED)
    ]
    assert copies == [], "import these from tests/support instead"


def _defined_functions(path: Path) -> set[str]:
    """Every module-level function, a private one under its public name (``_free_port``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name.lstrip("_") for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
