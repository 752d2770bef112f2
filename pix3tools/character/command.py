"""`pix3 character-compile <spec> [--dry-run] [--force] [--json] [--project <dir>]`.

Exit 0 written or already current (or a dry run without conflicts), 1 refused (the spec does not
compile, or files exist with other content), 2 usage, no project, or no spec file (docs/character-compile.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from pix3tools._js import js_number
from pix3tools.core.argv import Option, Project, Syntax
from pix3tools.core.pathtest import exists
from pix3tools.core.runner import Call, run

__all__ = ["SYNTAX", "main"]

_VERBS = {
    "written": ("wrote", "would write"),
    "replaced": ("replaced", "would replace"),
    "unchanged": ("current", "current"),
    "conflict": ("EXISTS", "EXISTS"),
}


SYNTAX = Syntax(
    "character-compile",
    flags=("--dry-run", "--force", "--json"),
    options=(Option("--project"),),
    words=1,
    required="name the spec file.",
    too_many="one spec at a time (got {first} and {arg})",
    unknown="unknown argument {arg}",
    help="parsed",
    project=Project(),
)


def main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run(SYNTAX, argv, _compile, cwd=cwd, out=out, err=err)


def _dump(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _compile(call: Call) -> int:
    from pix3tools.character._compile import compile_spec
    from pix3tools.character._spec import CharacterError, load_spec
    from pix3tools.character._write import conflict_error, plan_actions, write_files
    from pix3tools.core.private import Refused

    args, root, out = call.args, call.project, call.out
    spec, dry_run, as_json = args.words[0], args.flag("--dry-run"), args.flag("--json")
    spec_file = (call.cwd / spec).absolute()
    if not exists(spec_file):
        return call.fail(f"{spec} does not exist.", 2)
    try:
        plan = compile_spec(load_spec(spec_file))
    except CharacterError as exc:
        if as_json:
            out.write(_dump({"ok": False, "error": str(exc)}))
            return 1
        return call.fail(str(exc))
    try:
        actions = plan_actions(root, plan.files, args.flag("--force"))
    except Refused as refused:  # a link where a target or its folder should be: nothing is written
        if as_json:
            out.write(_dump({"ok": False, "error": f"{refused.message} Nothing was written."}))
            return 1
        return call.fail(f"{refused.message} Nothing was written.")
    error = conflict_error(actions)
    if error is None and not dry_run:
        error = write_files(root, actions)
    ok = error is None
    report: dict[str, Any] = {
        "dryRun": dry_run,
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
    out.write(_dump(report) if as_json else _human(report))
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
