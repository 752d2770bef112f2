"""The one argv rule the file tools share for an option that takes a value (spec/cli.md §1.1)."""

from __future__ import annotations

__all__ = ["option_value"]


def option_value(argv: list[str], i: int) -> tuple[str | None, int]:
    """The value of the option at ``argv[i]`` and the index after it.

    ``--name=value`` gives what follows the first ``=`` (maybe empty); ``--name value`` gives the
    next token unless it is another option (starts with ``--``). None when the value is missing.
    """
    _, eq, inline = argv[i].partition("=")
    if eq:
        return inline, i + 1
    if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
        return argv[i + 1], i + 2
    return None, i + 1
