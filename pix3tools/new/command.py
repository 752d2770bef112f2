"""`pix3 new [<2d|3d> [dir]] [--name <n>]`: list the starters, or create a project (docs/new.md).

Exit 0 created or listed; 1 a folder that cannot be used; 2 a usage error (an unknown starter, an
unknown option, ``--name`` without a value, a third word), before anything is written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from pix3tools.core.argv import Option, Syntax, UsageError
from pix3tools.core.commandtable import COMMANDS
from pix3tools.core.runner import EXIT_FAILED, EXIT_OK, Call, run

__all__ = ["SYNTAX", "main"]

SYNTAX = Syntax(
    "new",
    options=(Option("--name", stop=None),),
    words=2,
    too_many='new takes a starter and a folder, not also "{arg}"',
)


def main(
    argv: list[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    return run(SYNTAX, argv, lambda call: _new(call, os.environ if env is None else env), cwd=cwd, out=out, err=err)


def _new(call: Call, env: Mapping[str, str]) -> int:
    from pix3tools.new._templates import TemplateError, find_template, list_templates, one_line, templates_root

    out, err = call.out, call.err
    templates = list_templates(templates_root(env), err=err)
    if not call.args.words:
        visible = [t for t in templates if not t.hidden]
        width = max((len(t.id) for t in visible), default=0)
        lines = ["Starters:"]
        lines += [f"  {t.id:<{width}}  {t.title} — {one_line(t.description)}" for t in visible]
        lines += ["", "Create one: pix3 new <id> [dir] (or: npm create pix3)"]
        out.write("\n".join(lines) + "\n")
        return EXIT_OK
    try:
        template = find_template(templates, call.args.words[0])
    except TemplateError as exc:
        raise UsageError(str(exc)) from None  # a word that names no starter is a bad argument: exit 2
    from pix3tools.kit import KitError, WriteError, install_plan, relative
    from pix3tools.new._create import CreateError, create_project

    words = call.args.words
    target = call.cwd / (words[1] if len(words) > 1 else f"pix3-{template.id}")

    def kit_step(root: Path) -> list[str]:
        plan = install_plan(root, durable=False)
        return [relative(path, root) for path, data in plan.changes.writes.items() if data is not None]

    try:
        created = create_project(template, target, name=call.args.text("--name"), post_create=kit_step)
    except (CreateError, KitError, WriteError) as exc:
        err.write(f"pix3: {exc}\n")
        return EXIT_FAILED
    except OSError as exc:
        err.write(f"pix3: could not create {target.resolve()} ({exc.strerror or exc}); nothing was left behind.\n")
        return EXIT_FAILED
    out.write(_report(created, call.cwd))
    return EXIT_OK


def _report(created: object, cwd: Path) -> str:
    from pix3tools.new._create import Created
    from pix3tools.scripttypes import USE_GENERATED_TYPES

    assert isinstance(created, Created)
    rel = os.path.relpath(created.root, cwd.resolve())
    lines = [
        f"Created {created.project_name} ({created.template.title}) in {created.root}",
        f"  {len(created.files)} files, project id {created.project_id}, agent kit {created.kit_version}",
        "",
        "Next:",
    ]
    if rel != ".":
        lines.append(f"  cd {rel}")
    # While the @pix3 packages are unpublished, a starter whose package.json names them has a
    # tsconfig.json that wants them in a node_modules npm cannot make (docs/new.md, "Before the
    # packages are published"); check says the same. The demo has neither (plain JavaScript).
    packages = "package.json" in created.files
    if packages:
        lines += [
            f"  {USE_GENERATED_TYPES}",
            "                           type-check the scripts against the types pix3 generates",
            "  pix3 check               validate the scenes and type-check the scripts",
            "  pix3 editor              the editor page in Chrome: scenes, node trees, Check",
        ]
    else:
        lines += [
            "  pix3 editor              the editor page in Chrome: the game plays in its frame (Play)",
            "  pix3 check               validate the scenes",
        ]
    if "agent-setup" in COMMANDS:
        lines.append("  pix3 agent-setup         give your coding agent the editor's browser tools")
    lines.append("")
    if packages:
        lines += [
            "The @pix3 packages are not on npm yet: npm install fails (E404), and the game needs them to",
            "start (npm run dev). Once they are published: npm install, then npm run dev to play.",
        ]
    else:
        lines.append("The game is plain JavaScript (src/game.js): no npm install, nothing to build.")
    lines += [
        "",
        "Your coding agent reads AGENTS.md (CLAUDE.md for Claude Code) and the skills in .claude/skills/;",
        "after a batch of edits it runs pix3 check.",
    ]
    return "\n".join(lines) + "\n"
