"""`pix3 character-compile <spec> [--dry-run] [--force] [--json] [--project <dir>]`.

Exit 0 written or already current (or a dry run without conflicts), 1 refused (the spec does not
compile, or files exist with other content), 2 usage, no project, or no spec file (spec/tools.md §4).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pix3net.home import PROJECT_FILE
from pix3tools._argv import option_value
from pix3tools._js import js_number
from pix3tools._project import lookup_project

__all__ = ["CompileArgs", "main", "parse_args", "run"]

_VERBS = {
    "written": ("wrote", "would write"),
    "replaced": ("replaced", "would replace"),
    "unchanged": ("current", "current"),
    "conflict": ("EXISTS", "EXISTS"),
}


class ArgError(ValueError):
    pass


@dataclass(frozen=True)
class CompileArgs:
    spec: str | None = None
    dry_run: bool = False
    force: bool = False
    json: bool = False
    project: str | None = None
    help: bool = False


def parse_args(argv: list[str]) -> CompileArgs:
    spec: str | None = None
    dry_run = force = as_json = wants_help = False
    project: str | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg.partition("=")[0] == "--project":
            project, i = option_value(argv, i)
            if project is None:
                raise ArgError("--project needs a value")
            continue
        i += 1
        if arg == "--dry-run":
            dry_run = True
        elif arg == "--force":
            force = True
        elif arg == "--json":
            as_json = True
        elif arg in ("--help", "-h"):
            wants_help = True
        elif arg.startswith("-") and arg != "-":
            raise ArgError(f"unknown argument {arg}")
        elif spec is not None:
            raise ArgError(f"one spec at a time (got {spec} and {arg})")
        else:
            spec = arg
    return CompileArgs(spec, dry_run, force, as_json, project, wants_help)


def _dump(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def run(args: CompileArgs, cwd: Path, out: TextIO, err: TextIO) -> int:
    """The command after parsing (a spec was named, no ``--help``)."""
    from pix3tools.character._compile import compile_spec
    from pix3tools.character._spec import CharacterError, load_spec
    from pix3tools.character._write import conflict_error, plan_actions, write_files

    assert args.spec is not None
    lookup = lookup_project(cwd, args.project)
    root = lookup.root
    if root is None:
        where = str(lookup.start) if lookup.explicit else f"{lookup.start} or above"
        err.write(
            f"pix3 character-compile: no {PROJECT_FILE} in {where} — run inside a project or pass --project <dir>.\n"
        )
        return 2
    spec_file = (cwd / args.spec).absolute()
    if not spec_file.exists():
        err.write(f"pix3 character-compile: {args.spec} does not exist.\n")
        return 2
    try:
        plan = compile_spec(load_spec(spec_file))
    except CharacterError as exc:
        if args.json:
            out.write(_dump({"ok": False, "error": str(exc)}))
        else:
            err.write(f"pix3 character-compile: {exc}\n")
        return 1
    actions = plan_actions(root, plan.files, args.force)
    error = conflict_error(actions)
    if error is None and not args.dry_run:
        error = write_files(root, actions)
    ok = error is None
    report: dict[str, Any] = {
        "dryRun": args.dry_run,
        "name": plan.name,
        "slug": plan.slug,
        "animationPath": plan.animation_path,
        "prefabPath": plan.prefab_path,
        "clips": [{"name": c.name, "frames": c.frames, "fps": c.fps, "loop": c.loop} for c in plan.clips],
        "warnings": plan.warnings,
        "ok": ok,
        "files": [{"path": a.file.path, "kind": a.file.kind, "action": a.action} for a in actions],
    }
    if error is not None:
        report["error"] = error
    out.write(_dump(report) if args.json else _human(report))
    return 0 if ok else 1


def _human(report: dict[str, Any]) -> str:
    dry = report["dryRun"]
    frames = sum(c["frames"] for c in report["clips"])
    head = f"pix3 character-compile: {report['name']} ({report['slug']}) — {len(report['clips'])} clip(s), {frames} frame(s)"
    lines = [head + (" — dry run, nothing written" if dry else "")]
    for clip in report["clips"]:
        lines.append(
            f"  clip {clip['name'].ljust(20)} {clip['frames']} frame(s), {js_number(clip['fps'])} fps,"
            f" {'loop' if clip['loop'] else 'once'}"
        )
    for entry in report["files"]:
        verb = _VERBS[entry["action"]][1 if dry else 0]
        tail = "  (other content; --force replaces it)" if entry["action"] == "conflict" else ""
        lines.append(f"  {verb.ljust(13)} {entry['path']}{tail}")
    lines.extend(f"warning: {w}" for w in report["warnings"])
    if "error" in report:
        lines.append(f"error: {report['error']}")
    elif not dry:
        lines.append(
            f"Next: instance it in a scene (`instance: res://{report['prefabPath']}`), drive it from a script"
            " with core:CharacterVisual2D's playState / setVariant, then pix3 check."
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    from pix3net.cli.usage import command_usage, usage_error

    try:
        args = parse_args(argv)
    except ArgError as exc:
        sys.stderr.write(usage_error("character-compile", str(exc)))
        return 2
    if args.help:
        sys.stdout.write(command_usage("character-compile"))
        return 0
    if args.spec is None:
        sys.stderr.write(usage_error("character-compile", "name the spec file."))
        return 2
    return run(args, Path.cwd(), sys.stdout, sys.stderr)
