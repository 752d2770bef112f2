"""The package graph points down (docs/architecture.md, "The package graph"), read from the source.

Every ``import`` in ``pix3tools`` and ``pix3net`` counts, also the ones inside functions and under
``TYPE_CHECKING``: a lazy import may keep start-up fast, never hide an edge. Run as a script
(``python -m tests.unit.test_import_graph``) to print the graph between subpackages, as
docs/architecture.md must show it.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("pix3tools", "pix3net")
NETWORK = ("trio", "trio_websocket", "httpx", "hypercorn", "quart", "quart_trio", "wsproto", "h11")


@dataclass(frozen=True)
class Edge:
    source: str  # the importing module
    target: str  # the imported module (a name imported from it is resolved to a module when it is one)
    line: int


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    base = REPO.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _modules() -> dict[str, Path]:
    return {_module_of(path): path for package in PACKAGES for path in sorted((REPO / package).rglob("*.py"))}


@functools.cache
def edges() -> list[Edge]:
    """Every import of every module of both packages (third-party ones too)."""
    found: list[Edge] = []
    for name, path in _modules().items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.extend(Edge(name, alias.name, node.lineno) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    found.append(Edge(name, candidate if _is_module(candidate) else base, node.lineno))
    return found


def subpackage(module: str) -> str:
    """The graph's node: ``pix3tools.kit`` for ``pix3tools.kit._install``; a package's own
    ``__init__`` and top-level modules are nodes of their own (``pix3net``, ``pix3net.clients.flush``).
    One level deeper, a subpackage's own subpackages are nodes too (``pix3net.devserver.files``
    for ``pix3net.devserver.files._filecore``), so a cycle between them is seen; the subpackage's
    other modules stay its node (``pix3net.devserver`` for ``pix3net.devserver.wiring``)."""
    parts = module.split(".")
    if len(parts) > 3 and (REPO.joinpath(*parts[:3]) / "__init__.py").is_file():
        return ".".join(parts[:3])
    if len(parts) == 3 and (REPO.joinpath(*parts) / "__init__.py").is_file():
        return module
    return ".".join(parts[:2])


def _private_inside(module: str) -> bool:
    """A private module inside a node (``pix3tools.kit._install``, ``pix3net.devserver.files._filecore``)."""
    return any(part.startswith("_") for part in module.split(".")[len(subpackage(module).split(".")) :])


def _private_anywhere(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split(".")[1:])


def _ours(edge: Edge) -> bool:
    return edge.target.split(".")[0] in PACKAGES


def graph() -> dict[str, set[str]]:
    nodes: dict[str, set[str]] = defaultdict(set)
    for edge in filter(_ours, edges()):
        source, target = subpackage(edge.source), subpackage(edge.target)
        nodes[source]
        if source != target:
            nodes[source].add(target)
    return nodes


def _cycles(nodes: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(nodes.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return found


def _where(edge: Edge) -> str:
    return f"{edge.source}:{edge.line} imports {edge.target}"


def test_pix3tools_never_imports_pix3net() -> None:
    upward = [_where(e) for e in edges() if e.source.startswith("pix3tools") and e.target.split(".")[0] == "pix3net"]
    assert upward == []


def test_no_private_module_across_packages_or_subpackages() -> None:
    crossing = []
    for edge in filter(_ours, edges()):
        across_packages = edge.source.split(".")[0] != edge.target.split(".")[0]
        if (across_packages and _private_anywhere(edge.target)) or (
            subpackage(edge.source) != subpackage(edge.target) and _private_inside(edge.target)
        ):
            crossing.append(_where(edge))
    assert crossing == []


# A test that reaches a private module of pix3net to inject a fault no public name can: (test file,
# module) and why. Anything else a test needs is offered by the package's facade or a public module.
FAULT_INJECTION = {
    # the disk made slower than loopback by wrapping the store's one write
    ("tests/integration/test_devserver_files_http.py", "pix3net.devserver.files._store"),
}


def _test_files() -> list[Path]:
    return [path for path in sorted((REPO / "tests").rglob("*.py")) if "node_modules" not in path.parts]


@functools.cache
def edges_of_tests() -> list[Edge]:
    """Every import of ours in tests/ (inside functions too), ``source`` the test file's path."""
    found: list[Edge] = []
    for path in _test_files():
        source = str(path.relative_to(REPO))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.extend(Edge(source, alias.name, node.lineno) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                for alias in node.names:
                    candidate = f"{node.module}.{alias.name}"
                    found.append(Edge(source, candidate if _is_module(candidate) else node.module, node.lineno))
    return [edge for edge in found if _ours(edge)]


def private_reaches(edges: list[Edge], package: str = "pix3net") -> list[str]:
    """The imports of a private module of ``package`` (``pix3net.owner.proxy._hot``, ``from pix3net.commands.editor
    import _x``) that are not a declared fault injection."""
    return [
        _where(edge)
        for edge in edges
        if edge.target.split(".")[0] == package
        and _private_anywhere(edge.target)
        and (edge.source, edge.target) not in FAULT_INJECTION
    ]


def test_tests_import_only_public_names_of_pix3net() -> None:
    """Tests use pix3net as a reader would: a package's facade (its ``__init__``'s ``__all__``) or
    its public modules, never a private module (another package of ours may not either:
    test_no_private_module_across_packages_or_subpackages). pix3tools' tests do not hold to it
    yet (they import private modules of check, scene, kit, …), so the rule is pix3net's."""
    assert edges_of_tests() and private_reaches(edges_of_tests()) == []


def test_the_test_import_rule_can_fail() -> None:
    made_up = [
        Edge("tests/unit/a.py", "pix3net.owner.proxy._hot", 1),
        Edge("tests/unit/a.py", "pix3net.owner.proxy.transport", 2),
        Edge("tests/unit/a.py", "pix3net.devserver.files._table", 3),
        Edge("tests/integration/test_devserver_files_http.py", "pix3net.devserver.files._store", 4),
        Edge("tests/unit/a.py", "pix3tools.check._chain", 5),
    ]
    assert private_reaches(made_up) == [
        "tests/unit/a.py:1 imports pix3net.owner.proxy._hot",
        "tests/unit/a.py:3 imports pix3net.devserver.files._table",
    ]
    assert private_reaches(made_up, "pix3tools") == ["tests/unit/a.py:5 imports pix3tools.check._chain"]
    assert any(e.target == "pix3net.owner.proxy.transport" for e in edges_of_tests())  # the reader sees tests' imports


def test_no_cycle_between_subpackages() -> None:
    assert _cycles(graph()) == []


def test_no_cycle_between_modules() -> None:
    """Inside a subpackage too, no two modules import each other, even for a type only: the
    names both need live in a module of their own (`scene._scalars`) or as the protocol of
    what one uses of the other (`files._changeset.ChangesetCore`, `files._diskwatch.WatchedStore`)."""
    modules: dict[str, set[str]] = defaultdict(set)
    for edge in filter(_ours, edges()):
        modules[edge.source]
        if edge.source != edge.target:
            modules[edge.source].add(edge.target)
    assert _cycles(modules) == []


def test_the_core_is_stdlib_only_and_the_file_tools_never_load_the_network() -> None:
    stdlib = sys.stdlib_module_names
    core = [
        _where(e)
        for e in edges()
        if subpackage(e.source) == "pix3tools.core"
        and not e.target.startswith("pix3tools.core")
        and e.target.split(".")[0] not in stdlib
    ]
    assert core == []
    network = [_where(e) for e in edges() if e.source.startswith("pix3tools") and e.target.split(".")[0] in NETWORK]
    assert network == []


def test_the_checks_can_fail() -> None:
    """The cycle finder and the private rule on made-up graphs, so a green run means something."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    assert _private_inside("pix3tools.kit._install") and not _private_inside("pix3tools._js")
    assert _private_anywhere("pix3tools._js") and not _private_anywhere("pix3tools.core.argv")
    assert subpackage("pix3net.devserver.files._filecore") == "pix3net.devserver.files"
    assert subpackage("pix3net.devserver.files") == "pix3net.devserver.files"
    assert subpackage("pix3net.devserver.wiring") == "pix3net.devserver"
    assert _private_inside("pix3net.devserver.files._filecore") and not _private_inside("pix3net.devserver.files")


def test_the_subpackages_one_level_deeper_are_nodes() -> None:
    """The dev server's rooms are nodes of their own: the shared leaves point at none of the
    others, and the file API never reaches back into the app or the dev server around it."""
    nodes = graph()
    rooms = {"pix3net.devserver." + room for room in ("app", "files", "front", "http")}
    assert rooms <= set(nodes)
    assert not nodes["pix3net.devserver.http"] & (rooms | {"pix3net.devserver"})
    assert not nodes["pix3net.devserver.files"] & {"pix3net.devserver", "pix3net.devserver.app"}


# The one Python module that names the editor page's folder: everything else reads a page file
# through it (`read_page_file`, the names it declares), so the dependency is an import this test sees.
PAGE_LOADER = "pix3net/devserver/page/__init__.py"


def page_folder_reads(sources: dict[str, str]) -> list[str]:
    """``path:line`` of each place in ``sources`` (path → Python text) that reaches a file of the
    editor page by path instead of through the loader: ``resources.files("pix3net.devserver…")``, a
    ``"page"`` joined to a path (``/`` or ``joinpath``), or a text naming ``devserver/page``
    (docstrings aside)."""
    found: set[str] = set()
    for path, text in sources.items():
        tree = ast.parse(text)
        docstrings = {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        }
        for node in ast.walk(tree):
            hit = False
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                first = node.args[0].value
                hit = (name == "files" and str(first).startswith("pix3net.devserver")) or (
                    name == "joinpath" and any(isinstance(a, ast.Constant) and a.value == "page" for a in node.args)
                )
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                hit = any(isinstance(side, ast.Constant) and side.value == "page" for side in (node.left, node.right))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                hit = "devserver/page" in node.value
            if hit:
                found.add(f"{path}:{getattr(node, 'lineno', 0)}")
    return sorted(found)


def test_page_files_are_read_only_through_the_declared_loader() -> None:
    """Smoke installs recorder.js, judge.js and smokerun.js into each game page: read by path they
    were a dependency no import showed. Now only the loader names the folder, and the graph has
    ``pix3net.commands.smoke -> pix3net.devserver.page``."""
    sources = {
        str(path.relative_to(REPO)): path.read_text(encoding="utf-8")
        for path in _modules().values()
        if str(path.relative_to(REPO)) != PAGE_LOADER
    }
    assert page_folder_reads(sources) == []
    assert "pix3net.devserver.page" in graph()["pix3net.commands.smoke"]
    from pix3net.devserver.page import READ_ELSEWHERE

    assert all((REPO / PAGE_LOADER).with_name(name).is_file() for name in READ_ELSEWHERE)


def test_the_page_rule_can_fail() -> None:
    made_up = {
        "a.py": 'from importlib import resources\nfolder = resources.files("pix3net.devserver").joinpath("page")\n',
        "b.py": 'from pathlib import Path\nJS = Path(__file__).parent / "devserver" / "page" / "recorder.js"\n',
        "c.py": '"""Reads pix3net/devserver/page/ (a docstring may say so)."""\nopen("pix3net/devserver/page/judge.js")\n',
        "d.py": '"""Fine."""\nfrom pix3net.devserver.page import read_page_file\nread_page_file("recorder.js")\n',
    }
    assert page_folder_reads(made_up) == ["a.py:2", "b.py:2", "c.py:2"]


# The distribution that provides an import name, where the two are spelled differently.
DISTRIBUTIONS = {"trio_websocket": "trio-websocket", "quart_trio": "quart-trio", "ruamel": "ruamel.yaml"}


def declared() -> set[str]:
    """The distributions pyproject.toml's ``dependencies`` name (versions and markers dropped)."""
    table = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return {re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0].lower() for line in table["project"]["dependencies"]}


def test_every_library_imported_is_declared() -> None:
    """A library the code imports directly is a dependency of ours, even when another one brings it
    (h11 and wsproto were imported for a while and declared nowhere)."""
    imported = {e.target.split(".")[0] for e in edges()} - set(sys.stdlib_module_names) - set(PACKAGES)
    assert (
        imported
        and sorted(
            DISTRIBUTIONS.get(name, name) for name in imported if DISTRIBUTIONS.get(name, name) not in declared()
        )
        == []
    )


EVERYONE_MAY_USE = "pix3tools.core"  # not drawn: every node may use it
DOC = REPO / "docs" / "architecture.md"
FENCE = "```imports"


def drawn() -> list[str]:
    """The graph as docs/architecture.md draws it: one line per node, ``node -> what it imports``
    (a leaf alone), every node of both packages, ``pix3tools.core`` left out of the targets."""
    nodes = graph()
    names = {subpackage(module) for module in _modules()} | set(nodes)
    lines = []
    for node in sorted(names):
        targets = sorted(nodes.get(node, set()) - {EVERYONE_MAY_USE})
        lines.append(f"{node} -> {', '.join(targets)}" if targets else node)
    return lines


def documented(text: str) -> list[str]:
    """The lines of the one ```` ```imports ```` block of ``text``."""
    start = text.index(FENCE + "\n") + len(FENCE) + 1
    return text[start : text.index("```", start)].splitlines()


def test_the_documented_graph_is_the_code_s() -> None:
    """docs/architecture.md's graph is derived from the imports; when it differs, print the
    new one (``python -m tests.unit.test_import_graph``) and paste it there."""
    assert documented(DOC.read_text(encoding="utf-8")) == drawn()


def test_the_drawn_graph_can_fail() -> None:
    text = f"intro\n{FENCE}\na -> b\nc\n```\nafter ```x```\n"
    assert documented(text) == ["a -> b", "c"]
    assert "pix3net.cli -> pix3net.clients" in drawn()  # an edge the code has
    assert all(EVERYONE_MAY_USE not in line.partition(" -> ")[2] for line in drawn())


# The layers of pix3net, bottom first (docs/architecture.md, "The house"): a node imports only from
# its own layer's folder or from a layer below. `owner` and `devserver` share a layer and never
# import each other: the two daemons meet only over their sockets and records.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("wire",),
    ("daemon",),
    ("clients",),
    ("owner", "devserver"),
    ("commands",),
    ("cli",),
)


def _layer_folder(node: str) -> str | None:
    parts = node.split(".")
    return parts[1] if parts[0] == "pix3net" and len(parts) > 1 and not parts[1].startswith("__") else None


def layer_breaks(nodes: dict[str, set[str]], layers: tuple[tuple[str, ...], ...] = LAYERS) -> list[str]:
    """Each edge of ``nodes`` that points up a layer or across to another folder of its own layer."""
    rank = {folder: i for i, layer in enumerate(layers) for folder in layer}
    breaks = []
    for source, targets in sorted(nodes.items()):
        here = _layer_folder(source)
        for target in sorted(targets):
            there = _layer_folder(target)
            if here is None or there is None or here == there:
                continue
            if rank.get(there, len(layers)) >= rank.get(here, len(layers)):
                breaks.append(f"{source} -> {target}")
    return breaks


def test_pix3net_is_layered_by_what_runs() -> None:
    assert {_layer_folder(node) for node in graph() if _layer_folder(node)} <= {f for layer in LAYERS for f in layer}
    assert layer_breaks(graph()) == []


def test_the_wire_is_standard_library_only() -> None:
    """`wire` is sans-IO: nothing of ours but itself and the core, no third-party library."""
    stdlib = sys.stdlib_module_names
    found = [
        _where(e)
        for e in edges()
        if subpackage(e.source) == "pix3net.wire"
        and not e.target.startswith(("pix3net.wire", "pix3tools.core"))
        and e.target.split(".")[0] not in stdlib
    ]
    assert found == []


def test_the_layer_rule_can_fail() -> None:
    nodes = {
        "pix3net.wire": {"pix3net.daemon"},
        "pix3net.owner": {"pix3net.devserver", "pix3net.wire"},
        "pix3net.owner.proxy": {"pix3net.owner"},
        "pix3net.commands.editor": {"pix3net.owner"},
    }
    assert layer_breaks(nodes) == ["pix3net.owner -> pix3net.devserver", "pix3net.wire -> pix3net.daemon"]


if __name__ == "__main__":
    print(FENCE, *drawn(), "```", sep="\n")
