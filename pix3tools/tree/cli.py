"""`pix3 tree [scene] [--depth N] [--types A,B] [--props] [--json] [--project <dir>]`.

Exit 0 shown, 1 a scene does not parse, 2 bad arguments or a missing file (spec/validate.md §4.1).
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from pix3net.home import PROJECT_FILE, find_project_root
from pix3tools.tree._args import ArgError, TreeArgs, parse_args
from pix3tools.tree._outline import OutlineOptions, Size, build_outline, count_nodes
from pix3tools.tree._paths import SceneError, read_scene
from pix3tools.tree._text import is_number

__all__ = ["main", "run"]

# Python 3.11 recursion costs heap frames, not C stack: 20 000 covers ~3 000 nested nodes.
RECURSION_LIMIT = 20_000


def _usage() -> str:
    from pix3net.cli.usage import command_usage

    return command_usage("tree")


def _find_root(cwd: Path, explicit: str | None) -> Path:
    """The project, else the folder itself: tree also outlines a folder that is not a project."""
    if explicit is not None:
        return (cwd / explicit).resolve()
    return find_project_root(cwd) or cwd.resolve()


def _manifest(root: Path) -> dict[str, Any] | None:
    if not (root / PROJECT_FILE).is_file():
        return None
    from pix3tools.project import load_manifest

    doc = load_manifest(root)
    return doc.data if doc is not None and isinstance(doc.data, dict) else {}


def _viewport(manifest: dict[str, Any] | None) -> Size:
    size = manifest.get("viewportBaseSize") if manifest else None
    if isinstance(size, dict):
        w, h = size.get("width"), size.get("height")
        return (float(w) if is_number(w) else None, float(h) if is_number(h) else None)
    return (None, None)


def _locate(arg: str, root: Path, cwd: Path) -> Path | None:
    inside = arg[6:] if arg[:6].lower() == "res://" else arg
    candidate = root / inside.lstrip("/")
    if candidate.is_file():
        return candidate
    direct = cwd / arg
    if direct.is_file():
        return direct
    return None


def _display(path: Path, root: Path) -> str:
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return str(absolute)


def _json_safe(value: Any) -> Any:
    """JSON.stringify writes NaN and ±Infinity (legal YAML: .nan, .inf) as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def _dump(data: object) -> str:
    return json.dumps(_json_safe(data), indent=2, ensure_ascii=False) + "\n"


def run(args: TreeArgs, cwd: Path, out: TextIO, err: TextIO) -> int:
    """The command after argument parsing (no ``--help``)."""
    # Scenes nest: a few hundred levels are legal YAML and the reader and the outline recurse.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    root = _find_root(cwd, args.project)
    if not root.is_dir():
        err.write(f"pix3 tree: {root} is not a folder; pass --project an existing project folder.\n")
        return 2
    manifest = _manifest(root)
    if args.scene is None:
        from pix3tools.tree._overview import build_overview, overview_json, overview_lines

        view = build_overview(root, manifest)
        out.write(_dump(overview_json(view)) if args.json else "\n".join(overview_lines(view)) + "\n")
        return 1 if view.failed else 0
    path = _locate(args.scene, root, cwd)
    if path is None:
        err.write(f"pix3 tree: {args.scene} not found (looked in {root} and {cwd}).\n")
        return 2
    shown_path = _display(path, root)
    try:
        doc = read_scene(path)
    except SceneError as exc:
        err.write(f"pix3 tree: {shown_path} {exc}.\n")
        return 1
    reader = None
    if args.props:
        from pix3tools.tree._props import PropsReader

        reader = PropsReader()
    options = OutlineOptions(args.depth, args.types)
    nodes = build_outline(doc, root, _viewport(manifest), options, reader.props if reader else None)
    note = reader.note if reader else None
    if args.json:
        from pix3tools.tree._render import node_json

        data: dict[str, Any] = {"scene": shown_path, "nodes": [node_json(n) for n in nodes]}
        if note:
            data["note"] = note
        out.write(_dump(data))
        return 0
    from pix3tools.tree._render import header, node_lines

    total = count_nodes(doc["root"])
    lines = [header(shown_path, total, sum(n.shown() for n in nodes), args.depth, args.types)]
    node_lines(nodes, lines)
    if note:
        lines.append(note)
    out.write("\n".join(lines) + "\n")
    return 0


def main(argv: list[str]) -> int:
    try:
        args = parse_args(argv)
    except ArgError as exc:
        from pix3net.cli.usage import usage_error

        sys.stderr.write(usage_error("tree", str(exc)))
        return 2
    if args.help:
        sys.stdout.write(_usage())
        return 0
    return run(args, Path.cwd(), sys.stdout, sys.stderr)
