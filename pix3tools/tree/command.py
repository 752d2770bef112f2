"""`pix3 tree [scene] [--depth N] [--types A,B] [--props] [--json] [--project <dir>]`.

Exit 0 shown, 1 a scene does not parse, 2 a usage error, no project, or a scene not found
(docs/tree.md, "Exit codes"). Like every command that reads a project, tree needs one: outside a
project it says so rather than outline whatever folder it was started in.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from pix3tools.core.argv import Option, Project, Syntax, comma_list, whole_number
from pix3tools.core.pathtest import is_file
from pix3tools.core.runner import Call, run
from pix3tools.tree._outline import OutlineOptions, build_outline, count_nodes
from pix3tools.tree._paths import SceneError, read_scene
from pix3tools.tree._scene_json import json_safe, manifest_data, viewport_of

__all__ = ["SYNTAX", "main"]

# Python 3.11 recursion costs heap frames, not C stack: 20 000 covers ~3 000 nested nodes.
RECURSION_LIMIT = 20_000


SYNTAX = Syntax(
    "tree",
    flags=("--props", "--json"),
    options=(Option("--depth", convert=whole_number), Option("--types", convert=comma_list), Option("--project")),
    words=1,
    too_many="one scene at a time (got {first} and {arg})",
    unknown="unknown argument {arg}",
    help="parsed",
    project=Project(),
)


def main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run(SYNTAX, argv, _tree, cwd=cwd, out=out, err=err)


def _locate(arg: str, root: Path, cwd: Path) -> Path | None:
    inside = arg[6:] if arg[:6].lower() == "res://" else arg
    candidate = root / inside.lstrip("/")
    if is_file(candidate):
        return candidate
    direct = cwd / arg
    if is_file(direct):
        return direct
    return None


def _display(path: Path, root: Path) -> str:
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return str(absolute)


def _dump(data: object) -> str:
    return json.dumps(json_safe(data), indent=2, ensure_ascii=False) + "\n"


def _tree(call: Call) -> int:
    # Scenes nest: a few hundred levels are legal YAML and the reader and the outline recurse.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    args, root, cwd, out, err = call.args, call.project, call.cwd, call.out, call.err
    scene = args.words[0] if args.words else None
    depth = args.get("--depth", int)
    types: tuple[str, ...] = args.get("--types", tuple) or ()
    manifest = manifest_data(root)
    if scene is None:
        from pix3tools.tree._overview import build_overview, overview_json, overview_lines

        view = build_overview(root, manifest)
        out.write(_dump(overview_json(view)) if args.flag("--json") else "\n".join(overview_lines(view)) + "\n")
        return 1 if view.failed else 0
    path = _locate(scene, root, cwd)
    if path is None:
        err.write(f"pix3 tree: {scene} not found (looked in {root} and {cwd}).\n")
        return 2
    shown_path = _display(path, root)
    try:
        doc = read_scene(path)
    except SceneError as exc:
        err.write(f"pix3 tree: {shown_path} {exc}.\n" + (f"{exc.excerpt}\n" if exc.excerpt else ""))
        return 1
    reader = None
    if args.flag("--props"):
        from pix3tools.tree._props import PropsReader

        reader = PropsReader()
    options = OutlineOptions(depth, types)
    nodes = build_outline(doc, root, viewport_of(manifest), options, reader.props if reader else None)
    note = reader.note if reader else None
    if args.flag("--json"):
        from pix3tools.tree._render import node_json

        data: dict[str, Any] = {"scene": shown_path, "nodes": [node_json(n) for n in nodes]}
        if note:
            data["note"] = note
        out.write(_dump(data))
        return 0
    from pix3tools.tree._render import header, node_lines

    total = count_nodes(doc["root"])
    lines = [header(shown_path, total, sum(n.shown() for n in nodes), depth, types)]
    node_lines(nodes, lines)
    if note:
        lines.append(note)
    out.write("\n".join(lines) + "\n")
    return 0
