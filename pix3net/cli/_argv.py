"""The entry's tiny argv pre-parser (spec/cli.md §1.1). Pure: argv in, a parse out."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class EntryArgs:
    """What the entry needs to decide: flags seen anywhere, positionals, the command's own argv."""

    flags: dict[str, str | bool] = field(default_factory=dict)
    positionals: list[str] = field(default_factory=list)
    command: str | None = None
    command_argv: list[str] = field(default_factory=list)


def parse_entry(argv: list[str]) -> EntryArgs:
    """Pre-parse the whole argv the way the reference entry does.

    ``--name=value`` sets a flag; ``--name value`` swallows the next token unless it starts with
    ``-``; exactly ``-v``/``-h`` are ``version``/``help``; anything else is a positional. The
    command is the first positional and receives only the tokens after its first occurrence.
    """
    flags: dict[str, str | bool] = {}
    positionals: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token.startswith("--") and len(token) > 2:
            name, eq, value = token[2:].partition("=")
            if eq:
                flags[name] = value
            elif i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                flags[name] = argv[i + 1]
                i += 1
            else:
                flags[name] = True
        elif token == "-v":
            flags["version"] = True
        elif token == "-h":
            flags["help"] = True
        else:
            positionals.append(token)
        i += 1
    command = positionals[0] if positionals else None
    command_argv = argv[argv.index(command) + 1 :] if command is not None else []
    return EntryArgs(flags=flags, positionals=positionals, command=command, command_argv=command_argv)
