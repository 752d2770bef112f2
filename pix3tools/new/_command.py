"""The `pix3 new` command (spec/cli.md §5.1)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def _parse(argv: list[str]) -> tuple[list[str], str | None]:
    """Positionals and ``--name``; other flags are ignored, as in the reference."""
    positionals: list[str] = []
    name: str | None = None
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--name":
            if i + 1 >= len(argv):
                raise ValueError("--name needs a value")
            name = argv[i + 1]
            i += 2
            continue
        if token.startswith("--name="):
            name = token.partition("=")[2]
        elif not token.startswith("-"):
            positionals.append(token)
        i += 1
    return positionals, name


def run(argv: list[str], *, cwd: Path, env: Mapping[str, str], out: TextIO, err: TextIO) -> int:
    from pix3net.cli.usage import command_usage, usage_error

    if "--help" in argv or "-h" in argv:
        out.write(command_usage("new"))
        return EXIT_OK
    try:
        positionals, name = _parse(argv)
    except ValueError as exc:
        err.write(usage_error("new", str(exc)))
        return EXIT_USAGE
    from pix3tools.new._templates import TemplateError, find_template, list_templates, one_line, templates_root

    templates = list_templates(templates_root(env), err=err)
    if not positionals:
        visible = [t for t in templates if not t.hidden]
        width = max((len(t.id) for t in visible), default=0)
        lines = ["Starters:"]
        lines += [f"  {t.id:<{width}}  {t.title} — {one_line(t.description)}" for t in visible]
        lines += ["", "Create one: pix3 new <id> [dir] (or: npm create pix3)"]
        out.write("\n".join(lines) + "\n")
        return EXIT_OK
    try:
        template = find_template(templates, positionals[0])
    except TemplateError as exc:
        err.write(f"pix3: {exc}\n")
        return EXIT_FAILED
    from pix3tools.kit import install_plan
    from pix3tools.kit._install import KitError
    from pix3tools.kit._writes import WriteError, relative
    from pix3tools.new._create import CreateError, create_project

    target = cwd / (positionals[1] if len(positionals) > 1 else f"pix3-{template.id}")

    def kit_step(root: Path) -> list[str]:
        plan = install_plan(root, durable=False)
        return [relative(path, root) for path, data in plan.changes.writes.items() if data is not None]

    try:
        created = create_project(template, target, name=name, post_create=kit_step)
    except (CreateError, KitError, WriteError) as exc:
        err.write(f"pix3: {exc}\n")
        return EXIT_FAILED
    except OSError as exc:
        err.write(f"pix3: could not create {target.resolve()} ({exc.strerror or exc}); nothing was left behind.\n")
        return EXIT_FAILED
    out.write(_report(created, cwd))
    return EXIT_OK


def _report(created: object, cwd: Path) -> str:
    from pix3net.cli._table import COMMANDS
    from pix3tools.new._create import Created

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
    lines += [
        "  npm install              the engine, Vite and the CLI (2.0.0-alpha: see README.md until published)",
        "  npm run dev              play the game in the browser",
        "  npm run build            a production build in dist/",
        "  npm run editor           the Pix3 editor in Chrome",
    ]
    if "agent-setup" in COMMANDS:
        lines.append("  pix3 agent-setup         give your coding agent the editor's browser tools")
    lines += [
        "",
        "Your coding agent reads AGENTS.md (CLAUDE.md for Claude Code) and the skills in .claude/skills/;",
        "after a batch of edits it runs npm run check.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    return run(argv, cwd=Path.cwd(), env=os.environ, out=sys.stdout, err=sys.stderr)
