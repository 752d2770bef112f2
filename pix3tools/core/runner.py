"""Running a command from its declared syntax: the usage error, ``--help``, the project, then the
command's own work (docs/cli.md, "How a command declares its arguments").

Every command's ``main`` is ``run(SYNTAX, argv, body, …)``: the parse (:mod:`.argv`) decides, this
writes what the user sees — a usage error (exit 2, ``pix3 <cmd>: <error>``, a blank line and the
usage on stderr), the usage on stdout (exit 0), or the one "no project" message (exit 2) — and
only then calls ``body`` with a :class:`Call`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, TextIO

from pix3tools.core.argv import Args, Syntax, UsageError, parse
from pix3tools.core.project import ProjectLookup, lookup_project
from pix3tools.core.usage import command_usage

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "Call", "help_text", "run", "usage_error_text"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class Call(NamedTuple):
    """One run of a command: its parse, where it runs, its streams, and its project once found."""

    syntax: Syntax
    args: Args
    cwd: Path
    out: TextIO
    err: TextIO
    root: Path | None = None

    @property
    def name(self) -> str:
        return self.syntax.name

    @property
    def project(self) -> Path:
        """The project root; only for a command that declares ``project=Project(…)``."""
        if self.root is None:
            raise RuntimeError(f"pix3 {self.name} declares no project")
        return self.root

    def fail(self, message: str, code: int = EXIT_FAILED) -> int:
        """``pix3 <cmd>: <message>`` on stderr; returns ``code``."""
        self.err.write(f"pix3 {self.name}: {message}\n")
        return code

    def lookup(self) -> ProjectLookup:
        """``--project`` when given, else the upward search (from where the syntax says)."""
        rule = self.syntax.project
        start = rule.start(self.args, self.cwd) if rule is not None and rule.start is not None else None
        return lookup_project(self.cwd, self.args.text("--project"), start=start)

    def find_project(self) -> Path | None:
        """The project root, or None after writing the one "no project" message."""
        found = self.lookup()
        if found.root is None:
            rule = self.syntax.project
            self.err.write(found.message(self.name, parent_hint=rule.parent_hint if rule is not None else None))
        return found.root


def help_text(syntax: Syntax) -> str:
    return command_usage(syntax.name) + (syntax.more_help() if syntax.more_help is not None else "")


def usage_error_text(syntax: Syntax, error: UsageError) -> str:
    tail = f"\n{command_usage(syntax.name)}" if error.usage else ""
    return f"pix3 {syntax.name}: {error.message}\n{tail}"


def run(
    syntax: Syntax,
    argv: list[str],
    body: Callable[[Call], int],
    *,
    cwd: Path | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Parse ``argv`` by ``syntax`` and run ``body``; a :class:`UsageError` from either is exit 2."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        args = parse(syntax, argv)
        if args.help:
            out.write(help_text(syntax))
            return EXIT_OK
        call = Call(syntax, args, Path.cwd() if cwd is None else cwd, out, err)
        if syntax.project is not None:
            root = call.find_project()
            if root is None:
                return EXIT_USAGE
            call = call._replace(root=root)
        return body(call)
    except UsageError as error:
        err.write(usage_error_text(syntax, error))
        return EXIT_USAGE
