"""The one argument parser. A command declares its arguments as data (a :class:`Syntax`);
:func:`parse` turns argv into :class:`Args` or raises :class:`UsageError`. Pure: argv in, a parse
or an error out, no I/O (docs/cli.md, "How a command declares its arguments").

The rules every command shares, walked left to right:

- ``--help`` / ``-h`` asks for the usage; ``Syntax.help`` says when it wins (anywhere in argv,
  as soon as it is reached, or only once the whole argv parsed).
- A flag is its exact token (``--json``; ``--json=1`` is not the flag).
- An option takes ``--name value`` and, unless ``Option.equals`` is off, ``--name=value`` (split at
  the first ``=``). The next token is not the value when it starts with ``Option.stop`` (``"--"``,
  ``"-"``, or ``None``: any token is). A missing value is ``Option.missing``.
- Any other token that looks like an option (``-x``; with ``dash_words`` only ``--x``) is
  ``Syntax.unknown``. The rest are words (positionals), at most ``Syntax.words`` of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Literal, NamedTuple, TypeVar

__all__ = [
    "HELP_TOKENS",
    "Args",
    "Convert",
    "Option",
    "Project",
    "Syntax",
    "UsageError",
    "comma_list",
    "js_port",
    "parse",
    "tcp_port",
    "whole_number",
]

T = TypeVar("T")

HELP_TOKENS = ("--help", "-h")

HelpRule = Literal["anywhere", "reached", "parsed", "none"]
"""When ``--help`` wins: ``anywhere`` in argv (over every error), as soon as it is ``reached``
(errors before it win), once the whole argv ``parsed`` (every error wins), or ``none`` (not a help
token: the entry's own pre-parse)."""


class UsageError(ValueError):
    """A usage error: ``pix3 <cmd>: <message>``, then (when ``usage``) a blank line and the usage."""

    def __init__(self, message: str, *, usage: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage


Convert = Callable[[str, str], object]
"""``(option name, text) -> value``; raises :class:`UsageError` for a bad value."""


class Option(NamedTuple):
    """An option that takes a value."""

    name: str
    missing: str = ""
    """The error for a missing value (default ``<name> needs a value``)."""
    stop: str | None = "--"
    """The next token is not the value when it starts with this (None: whatever it is)."""
    equals: bool = True
    """``--name=value`` is accepted (else it is an unknown option, with the spelling that works)."""
    empty: bool = True
    """An empty value counts (else it is a missing one)."""
    convert: Convert | None = None

    def missing_message(self) -> str:
        return self.missing or f"{self.name} needs a value"


class Args(NamedTuple):
    """A parse: the flags seen, the option values (converted), the words, or a help request."""

    flags: frozenset[str] = frozenset()
    values: Mapping[str, object] = MappingProxyType({})
    words: tuple[str, ...] = ()
    help: bool = False

    def flag(self, name: str) -> bool:
        return name in self.flags

    def text(self, name: str) -> str | None:
        return self.get(name, str)

    def get(self, name: str, kind: type[T]) -> T | None:
        """The value of option ``name`` (None when not given), checked to be a ``kind``."""
        value = self.values.get(name)
        if value is None:
            return None
        if not isinstance(value, kind):
            raise TypeError(f"{name} holds a {type(value).__name__}, not a {kind.__name__}")
        return value


class Project(NamedTuple):
    """The command needs a project (``--project <dir>`` or the upward search)."""

    start: Callable[[Args, Path], Path] | None = None
    """Where the upward search starts, from the parse and the current folder (default: the folder)."""
    parent_hint: bool | None = None
    """Force ``or any parent folder`` in the message on or off (gap always says it)."""


class Syntax(NamedTuple):
    """What a command accepts. Messages take ``{arg}`` (the token) and ``{first}`` (the first word)."""

    name: str
    flags: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    words: int | None = 0
    """How many words (positionals) the command takes; None: any number."""
    choices: tuple[str, ...] = ()
    """When set, the only words allowed (another is ``unknown``)."""
    required: str = ""
    """The usage error when no word is given ("" : words are optional)."""
    too_many: str = ""
    """The usage error for one word too many (default: ``unknown``)."""
    unknown: str = 'unknown option "{arg}"'
    dash_words: bool = False
    """A single-dash token (``-x``) is a word, not an option."""
    help: HelpRule = "anywhere"
    project: Project | None = None
    usage_after_missing: bool = True
    """A missing option value is followed by the usage (sfx says only the error)."""
    more_help: Callable[[], str] | None = None
    """Text printed after the usage on ``--help`` (validate and check list their codes)."""
    open: bool = False
    """Options not declared are taken anyway: with the next token that does not start with ``-``
    as the value, else as a flag (the entry's pre-parse)."""
    aliases: tuple[tuple[str, str], ...] = ()
    """Exact tokens read as a flag of another name (the entry: ``-v`` is ``--version``)."""
    check: Callable[[Args], None] | None = None
    """Rules between arguments (``--changed`` with ``--all``), run on every complete parse; raises
    :class:`UsageError`. Part of the parse: with ``help="parsed"`` its error wins over ``--help``."""

    def option(self, name: str) -> Option | None:
        for option in self.options:
            if option.name == name:
                return option
        return None


def _looks_like_option(token: str, dash_words: bool) -> bool:
    if dash_words:
        return token.startswith("--") and len(token) > 2
    return token.startswith("-")


def parse(syntax: Syntax, argv: list[str]) -> Args:
    """Parse ``argv`` (the command's own tokens) by ``syntax``; raises :class:`UsageError`."""
    helps = syntax.help != "none"
    if syntax.help == "anywhere" and any(token in HELP_TOKENS for token in argv):
        return Args(help=True)
    aliases = dict(syntax.aliases)
    flags: set[str] = set()
    values: dict[str, object] = {}
    words: list[str] = []
    wants_help = False
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if helps and token in HELP_TOKENS:
            if syntax.help == "reached":
                return Args(help=True)
            wants_help = True
            continue
        if token in aliases:
            flags.add(aliases[token])
            continue
        if token in syntax.flags:
            flags.add(token)
            continue
        name, eq, inline = token.partition("=")
        option = syntax.option(name)
        if option is None and syntax.open and _looks_like_option(token, dash_words=True):
            option = Option(name, stop="-")
        if option is not None and (option.equals or not eq):
            value: str | None
            if eq:
                value = inline
            elif i < len(argv) and not (option.stop and argv[i].startswith(option.stop)):
                value = argv[i]
                i += 1
            else:
                value = None
            if value == "" and not option.empty:
                value = None
            if value is None:
                if syntax.open:
                    flags.add(name)
                    continue
                raise UsageError(option.missing_message(), usage=syntax.usage_after_missing)
            values[name] = option.convert(name, value) if option.convert else value
            continue
        if _looks_like_option(token, syntax.dash_words):
            hint = f" (write {name} {inline})" if option is not None else ""
            raise UsageError(syntax.unknown.format(arg=token, first="") + hint)
        first = words[0] if words else ""
        if syntax.choices and token not in syntax.choices:
            raise UsageError(syntax.unknown.format(arg=token, first=first))
        if syntax.words is not None and len(words) >= syntax.words:
            raise UsageError((syntax.too_many or syntax.unknown).format(arg=token, first=first))
        words.append(token)
    parsed = Args(frozenset(flags), values, tuple(words))
    if syntax.check is not None:
        syntax.check(parsed)
    if wants_help:
        return Args(help=True)
    if syntax.required and not words:
        raise UsageError(syntax.required)
    return parsed


# -- values -----------------------------------------------------------------------------------

_RADIX = re.compile(r"^0[xXoObB][0-9a-fA-F]+$")
_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_WHOLE = re.compile(r"^[0-9]+$")


def js_port(text: str) -> int | None:
    """A port as JavaScript's ``Number()`` reads it: an integer 1..65535 (``0x10``, ``1e3`` and
    surrounding spaces accepted), else None."""
    s = text.strip()
    if _RADIX.match(s):
        value = float(int(s, 0))
    elif _DECIMAL.match(s):
        value = float(s)
    else:
        return None
    if not value.is_integer() or not 1 <= value <= 65535:
        return None
    return int(value)


def tcp_port(name: str, text: str) -> int:
    """A TCP port 1..65535, else ``<name> needs a port``."""
    value = js_port(text)
    if value is None:
        raise UsageError(f"{name} needs a port")
    return value


def whole_number(name: str, text: str) -> int:
    """An integer ≥ 0 written with digits only, else ``<name> needs a whole number ≥ 0``."""
    if not _WHOLE.match(text.strip()):
        raise UsageError(f"{name} needs a whole number ≥ 0")
    return int(text)


def comma_list(name: str, text: str) -> tuple[str, ...]:
    """``A, B,,C`` → ``("A", "B", "C")``: trimmed, empties dropped."""
    return tuple(part.strip() for part in text.split(",") if part.strip())
