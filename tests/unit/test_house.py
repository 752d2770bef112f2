"""House rules read from the source (docs/architecture.md, "The house"): no module of pix3net or
pix3tools runs past MAX_LINES lines unless its docstring says why it must be one file; no loose
module at the top of pix3net; every package of pix3net lists its modules; no name for two things."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("pix3net", "pix3tools")
# Past this a module is read in parts: the newcomer's test (issue 33) found every longer module
# doing two or three jobs (a transport with its executor and handlers, a command with its scheduler).
MAX_LINES = 500
# A line of the module docstring starting with this, followed by the reason, lets a module be long.
MARKER = "One file because"
_REASON = re.compile(rf"^\s*{MARKER}\s+\S+\s+\S+")  # the marker and at least two words of reason


def too_long(sources: dict[str, str], limit: int = MAX_LINES) -> list[str]:
    """``path: N lines`` for each of ``sources`` (path → Python text) longer than ``limit`` whose
    module docstring has no line starting with :data:`MARKER` and a reason."""
    found = []
    for path, text in sorted(sources.items()):
        lines = len(text.splitlines())
        if lines <= limit:
            continue
        docstring = ast.get_docstring(ast.parse(text), clean=False) or ""
        if not any(_REASON.match(line) for line in docstring.splitlines()):
            found.append(f"{path}: {lines} lines")
    return found


def _sources() -> dict[str, str]:
    return {
        str(path.relative_to(REPO)): path.read_text(encoding="utf-8")
        for package in PACKAGES
        for path in (REPO / package).rglob("*.py")
    }


def test_no_module_is_over_the_limit_without_saying_why() -> None:
    """Split a long module by what it does (same package, a module beside it), or say in its
    docstring, on a line starting "One file because", why it must stay one."""
    sources = _sources()
    assert len(sources) > 100 and too_long(sources) == []


def test_the_line_rule_can_fail() -> None:
    body = "x = 1\n" * MAX_LINES
    made_up = {
        "short.py": '"""Short."""\n' + "x = 1\n" * (MAX_LINES - 1),
        "long.py": '"""Long, and no reason given."""\n' + body,
        "reasoned.py": '"""A table.\n\nOne file because it is one table, read top to bottom.\n"""\n' + body,
        "bare_marker.py": '"""A table.\n\nOne file because\n"""\n' + body,
        "in_a_comment.py": '"""A table."""\n# One file because it is one table, read top to bottom.\n' + body,
    }
    assert too_long(made_up) == [
        f"bare_marker.py: {MAX_LINES + 4} lines",
        f"in_a_comment.py: {MAX_LINES + 2} lines",
        f"long.py: {MAX_LINES + 1} lines",
    ]


# --- Where modules live and what they are called (docs/architecture.md, "The house") ---------------
#
# - No module at the top of ``pix3net/`` but the entry points: every other module lives in the
#   package of what runs it (``wire``, ``daemon``, ``owner``, ``devserver``, ``clients``, ``commands``).
# - Every package of pix3net lists its modules and subpackages in its docstring, under a line
#   ``Modules:`` (``- `name`: what it is``), and nothing else: a module added, removed or renamed
#   fails here until the list says so.
# - No name for two things: a module's name (without its leading underscore), an editor-page
#   script's name and a package's name are unique across both packages, except the role names
#   below, which mean the same role wherever they appear.
#
# Each checker takes a root, so each rule is also shown failing on a small tree of its own.

# pix3net's top level: the package itself and `python -m pix3net`.
ENTRY_POINTS = {"__init__.py", "__main__.py"}

# Names that mean one role wherever they appear: the name says the role and the folder says whose.
# A new name here needs its role; a clash of any other name fails.
ROLE_NAMES = {
    "command": "a command's entry: its arguments and `main(argv)` (every file tool, every network "
    "command, the two hidden daemon commands)",
    "control": "the parent's side of a daemon: find it, start it, stop it (the owner's, the dev server's)",
    "process": "a daemon's process, from start to stop (the owner's, the dev server's)",
    "listener": "a daemon's accept loop and who gets a connection (the proxy's, the front door's)",
    "routes": "a room's HTTP routes (the dev server's app, its file API)",
    "errors": "a package's own error types (the file API's, the dev server's HTTP refusals)",
    "run": "a file tool's run behind its command (check, validate)",
    "report": "a command's report: text, JSON, JUnit (validate, smoke's two halves)",
    "codes": "a file tool's diagnostic codes (check, validate)",
    "layout": "where generated type files go (check's and scripttypes' `.pix3/types`)",
    "nodes": "node schemas as a tool reads them (the scene model's, validate's checks of them)",
    "paths": "a tool's path rules (the file API's wire paths, tree's scene paths)",
    "project": "the project as a tool sees it (the core's lookup, smoke's scene list)",
    "artifacts": "what `pix3 smoke` writes, in its two halves (the pure side's names, the run's files)",
    "smoke": "`pix3 smoke`'s two halves: the pure side (pix3tools) and the run in Chrome (pix3net)",
}


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def loose_modules(root: Path) -> list[str]:
    """Modules at the top of ``root/pix3net`` that are not entry points."""
    return sorted(p.name for p in (root / "pix3net").glob("*.py") if p.name not in ENTRY_POINTS)


def packages(root: Path, names: tuple[str, ...] = PACKAGES) -> list[Path]:
    """Every package folder of ``names`` (a folder with an ``__init__.py``)."""
    found: list[Path] = []
    for name in names:
        found.extend(p.parent for p in sorted((root / name).rglob("__init__.py")) if "__pycache__" not in p.parts)
    return found


def members(package: Path) -> set[str]:
    """A package's modules and subpackages, by name."""
    names = {p.stem for p in package.glob("*.py") if p.name not in ENTRY_POINTS}
    names |= {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    return names


_SECTION = re.compile(r"^Modules\b[^\n]*:\n", re.M)
_BULLET = re.compile(r"^- (?P<head>[^:]*):", re.M)
_NAME = re.compile(r"``?([A-Za-z_]\w*)(?:\.py)?``?")


def listed(package: Path) -> set[str]:
    """The names the package's docstring lists: in its ``Modules:`` section (a line starting with
    "Modules" and ending with a colon), the backticked names before each bullet's colon. The
    section ends at the first paragraph that is not a bullet."""
    doc = _docstring(package / "__init__.py")
    start = _SECTION.search(doc)
    if start is None:
        return set()
    section = []
    for line in doc[start.end() :].splitlines():
        if line and not line.startswith(("- ", "  ")):
            break
        section.append(line)
    names: set[str] = set()
    for bullet in _BULLET.finditer("\n".join(section)):
        names.update(_NAME.findall(bullet.group("head")))
    return names


def list_drift(root: Path) -> list[str]:
    """Each package of pix3net whose docstring's list differs from its members."""
    drift = []
    for package in packages(root, ("pix3net",)):
        have, said = members(package), listed(package)
        if have != said:
            where = package.relative_to(root)
            drift.append(f"{where}: not listed {sorted(have - said)}, listed but absent {sorted(said - have)}")
    return drift


def name_clashes(root: Path, roles: dict[str, str]) -> dict[str, list[str]]:
    """Names used for more than one module, page script or package, that are not role names."""
    seen: dict[str, list[str]] = defaultdict(list)
    for name in PACKAGES:
        for path in sorted((root / name).rglob("*.py")):
            if "__pycache__" in path.parts or path.name in {"__init__.py", "__main__.py"}:
                continue
            seen[path.stem.lstrip("_")].append(str(path.relative_to(root)))
    for path in sorted((root / "pix3net" / "devserver" / "page").glob("*.js")):
        seen[path.stem].append(str(path.relative_to(root)))
    for package in packages(root):
        if package.name not in PACKAGES:
            seen[package.name].append(str(package.relative_to(root)) + "/")
    return {name: places for name, places in seen.items() if len(places) > 1 and name not in roles}


def test_no_loose_module_at_the_top_of_pix3net() -> None:
    assert loose_modules(REPO) == []


def test_every_package_lists_its_modules() -> None:
    assert list_drift(REPO) == []


def test_no_name_for_two_things() -> None:
    assert name_clashes(REPO, ROLE_NAMES) == {}


def test_every_role_name_is_in_use() -> None:
    """A role name no longer used twice leaves the list, so the list cannot hide a new clash."""
    assert set(ROLE_NAMES) - set(name_clashes(REPO, {})) == set()


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_layout_rules_can_fail(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pix3net/__init__.py": '"""pix3net.\n\nModules:\n\n- `wire`: the wire.\n"""\n',
            "pix3net/__main__.py": "",
            "pix3net/probe.py": "",
            "pix3net/wire/__init__.py": (
                '"""Wire.\n\n- `token`: not in the section.\n\nModules:\n\n- `frames`: frames.\n'
                '- `gone`: a module since removed.\n\nAfter: `token`.\n"""\n'
            ),
            "pix3net/wire/frames.py": "",
            "pix3net/wire/token.py": "",
            "pix3net/devserver/page/token.js": "",
            "pix3tools/__init__.py": '"""pix3tools."""\n',
            "pix3tools/frames/__init__.py": '"""Frames."""\n',
        },
    )
    assert loose_modules(root) == ["probe.py"]
    assert list_drift(root) == [
        "pix3net: not listed ['probe'], listed but absent []",
        "pix3net/wire: not listed ['token'], listed but absent ['gone']",
    ]
    token = ["pix3net/wire/token.py", "pix3net/devserver/page/token.js"]
    assert name_clashes(root, {}) == {"frames": ["pix3net/wire/frames.py", "pix3tools/frames/"], "token": token}
    assert name_clashes(root, {"frames": "a role"}) == {"token": token}
