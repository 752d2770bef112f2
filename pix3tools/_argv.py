"""The one argv rule the file tools share for an option that takes a value (spec/cli.md §1.1)."""

from __future__ import annotations

__all__ = ["option_value"]


def option_value(argv: list[str], i: int, *, stop: str = "--", empty: bool = True) -> tuple[str | None, int]:
    """The value of the option at ``argv[i]`` and the index after it.

    ``--name=value`` gives what follows the first ``=``; ``--name value`` gives the next token
    unless it starts with ``stop`` (another option). None when the value is missing, or empty
    and ``empty`` is false. tree, character-compile and sfx stop at ``--`` and take an empty
    value; validate, check and kit read ``--project`` stopping at ``-``, never empty.
    """
    _, eq, inline = argv[i].partition("=")
    if eq:
        value, after = inline, i + 1
    elif i + 1 < len(argv) and not argv[i + 1].startswith(stop):
        value, after = argv[i + 1], i + 2
    else:
        return None, i + 1
    return (value if value or empty else None), after
