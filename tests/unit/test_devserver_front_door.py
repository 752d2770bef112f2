"""The dev server's front door keeps one name and one implementation per part (docs/architecture.md):
the public listener, the `.pix3` private-URL rule, the JSON answer, the reading of a flush reply,
and a construction without mutable boxes. Read from the source, so a second copy fails here."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pix3net

PACKAGE = Path(pix3net.__file__).parent
DEVSERVER = PACKAGE / "devserver"


@functools.cache  # the same source, read once for every question
def _trees(folder: Path, recursive: bool = True) -> dict[Path, ast.Module]:
    files = folder.rglob("*.py") if recursive else folder.glob("*.py")
    return {path: ast.parse(path.read_text(), str(path)) for path in sorted(files)}


def _defined(name: str) -> list[str]:
    found = []
    for path, tree in _trees(PACKAGE).items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
                found.append(str(path.relative_to(PACKAGE)))
    return found


def test_the_public_listener_has_one_name() -> None:
    assert not (DEVSERVER / "front.py").exists()
    assert _defined("FrontDoor") == []
    assert _defined("PublicListener") == ["devserver/front/listener.py"]


def test_one_json_answer_helper_and_one_flush_reader() -> None:
    assert _defined("json_response") == ["devserver/http/_answers.py"]
    assert _defined("read_flush_answer") == ["clients/flush.py"]
    users = sorted(
        str(path.relative_to(PACKAGE))
        for path, tree in _trees(PACKAGE).items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id == "read_flush_answer"
    )
    assert "devserver/app/_checks.py" in users and "clients/flush.py" in users


def test_one_way_to_answer_an_error() -> None:
    """An error is answered by the http leaves alone: for Quart, raw ASGI and a raw socket, and
    what an exception answers is decided once (the file routes once had their own 500s)."""
    for name in ("error_response", "send_error", "error_bytes", "answer_errors", "api_error_of"):
        assert len(_defined(name)) == 1 and _defined(name)[0].startswith("devserver/http/"), name
    for gone in ("refuse", "not_found_route", "vite_unavailable", "_vite_unavailable", "no_space_route"):
        assert _defined(gone) == [], gone
    internal = [
        str(path.relative_to(PACKAGE))
        for path, tree in _trees(PACKAGE).items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == "Internal error."
    ]
    assert internal == ["devserver/http/_errors.py"]


def test_the_private_url_rule_is_coded_once() -> None:
    """Which URLs are `.pix3` ones is decided in front/targets.py alone (bytes, decoded); the
    other front-door modules ask `targets.route_of`."""
    spelled = sorted(
        path.name
        for folder in (DEVSERVER, DEVSERVER / "front")
        for path, tree in _trees(folder, recursive=False).items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in (".pix3", b".pix3", "/.pix3", b"/.pix3")
    )
    assert spelled == ["targets.py"]


def test_the_host_rule_is_coded_once() -> None:
    """One Host rule for both daemons (pix3net/wire/hostrule.py): no second parser, no second list of
    loopback names."""
    assert _defined("host_allowed") == ["wire/hostrule.py"]
    assert _defined("host_name") == [] and _defined("parse_host") == []
    loopback_sets = sorted(
        {
            str(path.relative_to(PACKAGE))
            for path, tree in _trees(PACKAGE).items()
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign | ast.AnnAssign)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name) and "LOOPBACK" in target.id
        }
    )
    assert loopback_sets == ["wire/hostrule.py"]


def test_the_construction_needs_no_boxes() -> None:
    """`wiring.build` makes each part after the parts it needs: no empty list (or one-element
    list) made to be filled in later so that two parts can reach each other."""
    tree = ast.parse((DEVSERVER / "wiring.py").read_text())
    build = next(node for node in ast.walk(tree) if isinstance(node, ast.AsyncFunctionDef) and node.name == "build")
    boxes = [
        node.lineno
        for node in ast.walk(build)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and isinstance(node.value, ast.List)
        and (not node.value.elts or (len(node.value.elts) == 1 and ast.unparse(node.value.elts[0]) == "None"))
    ]
    assert boxes == []
