"""Why a YAML text does not parse, in plain words, at the place to fix, with the line and a caret
(docs/validate.md, "Bad input").

The parser (ruamel.yaml's, the last reader to try a text) says what it met where:
``expected <block end>, but found '?'``, or for a missing ``]`` ``expected ',' or ']', but got
':'`` on the line after the one that lacks it. :func:`explain` turns that into what a person
fixes — a key out of line with its siblings, a ``[`` that is never closed (pointing at the ``[``),
a ``: `` inside a value that needs quotes — and where. Pure: the parser's words and marks and the
text in, a :class:`Explained` out.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Explained", "excerpt", "explain", "explain_at_line"]

# An excerpt shows at most this many characters of a long line, around the caret.
EXCERPT_WIDTH = 100

_CLOSER = {"[": "]", "{": "}"}
_WHAT = {"[": "list", "{": "mapping"}
_FOUND = re.compile(r"(?:found|got) '(.*)'\s*$", re.DOTALL)


class Explained(NamedTuple):
    reason: str  # plain words: what is wrong and how to fix it
    line: int | None  # 1-based
    column: int | None  # 1-based


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _line(text: str, line: int) -> str:
    lines = _lines(text)
    return lines[line - 1].rstrip("\r") if 1 <= line <= len(lines) else ""


def _indent(source: str) -> int:
    return len(source) - len(source.lstrip(" "))


def _content(text: str, before: int) -> tuple[int, str] | None:
    """The last line above ``before`` (1-based) with something other than blanks or a comment."""
    for number in range(before - 1, 0, -1):
        source = _line(text, number)
        if source.strip() and not source.lstrip().startswith("#"):
            return number, source
    return None


def _value_starts(prefix: str) -> bool:
    """Whether a flow collection or a quoted scalar may start after ``prefix`` (the line so far)."""
    before = prefix.rstrip()
    return not before or before[-1] in ":-,[{?" or before.endswith("- ")


def _open_bracket(text: str, line: int, column: int) -> tuple[int, int, str] | None:
    """The innermost ``[`` or ``{`` still open just before (line, column), both 1-based, with its own
    line and column; quoted scalars and comments are skipped. None when none is open."""
    stack: list[tuple[int, int, str]] = []
    quote: str | None = None
    for number, source in enumerate(_lines(text)[:line], start=1):
        end = column - 1 if number == line else len(source)
        index = 0
        while index < end:
            char = source[index]
            if quote is not None:
                if char == "\\" and quote == '"':
                    index += 1
                elif char == quote:
                    if quote == "'" and source[index + 1 : index + 2] == "'":
                        index += 1
                    else:
                        quote = None
            elif char == "#" and (index == 0 or source[index - 1] in " \t"):
                break
            elif char in "'\"" and (stack or _value_starts(source[:index])):
                quote = char
            elif char in "[{" and (stack or _value_starts(source[:index])):
                stack.append((number, index + 1, char))
            elif char in "]}" and stack:
                stack.pop()
            index += 1
    return stack[-1] if stack else None


def _found(problem: str) -> str:
    match = _FOUND.search(problem)
    return match.group(1) if match else ""


def _flow(text: str, problem: str, line: int, column: int) -> Explained | None:
    opened = _open_bracket(text, line, column)
    if opened is None:
        return None
    at_line, at_column, bracket = opened
    closer, what = _CLOSER[bracket], _WHAT[bracket]
    found = _found(problem)
    if found == "<stream end>" or "end of stream" in problem:
        return Explained(f"the file ends inside a `{bracket}`: close the {what} with `{closer}`.", at_line, at_column)
    if at_line < line:
        return Explained(
            f"a `{bracket}` is not closed on its line: add the `{closer}` that ends the {what}"
            f" (the parser read on to line {line} looking for it).",
            at_line,
            at_column,
        )
    if found in ("]", "}") and found != closer:
        return Explained(
            f"`{found}` cannot close the `{bracket}` opened at column {at_column}: use `{closer}`.", line, column
        )
    shown = f"`{found}`" if found and not found.startswith("<") else "more text"
    return Explained(
        f"{shown} comes where a `,` or the closing `{closer}` should: separate the items of a `{bracket} … {closer}`"
        f" with `, `, and quote an item that holds `,`, `:` or brackets.",
        line,
        column,
    )


def _block_end(text: str, problem: str, line: int, column: int) -> Explained:
    """``expected <block end>, but found …``: something that does not belong where it stands."""
    found = _found(problem)
    source = _line(text, line)
    before = source[column - 2 : column - 1] if column >= 2 else ""
    if found == "<scalar>" and before in ("'", '"'):
        escape = "write it twice (`'it''s'`)" if before == "'" else 'write it as `\\"`'
        return Explained(
            f"text follows the closing `{before}` of a quoted value: to put a `{before}` inside the quotes, {escape},"
            " or quote the whole value with the other kind of quote.",
            line,
            column,
        )
    if found in ("]", "}"):
        return Explained(
            f"a `{found}` that closes nothing: remove it, or add the bracket it should close.", line, column
        )
    return _out_of_line(text, line)


def _blocks(text: str, line: int) -> list[tuple[int, str, int]]:
    """The block columns still open above ``line``: (column, "key" or "item", line), outermost
    first — the columns a key or a ``- `` item on ``line`` could line up with."""
    stack: list[tuple[int, str, int]] = []
    for number in range(1, line):
        source = _line(text, number)
        body = source.strip()
        if not body or body.startswith("#"):
            continue
        indent = _indent(source)
        entries = [(indent, "key", number)]
        if body == "-" or body.startswith("- "):
            entries = [(indent, "item", number)]
            rest = body[1:].lstrip()
            if rest and not rest.startswith("#") and ":" in rest:
                entries.append((indent + len(body) - len(rest), "key", number))
        while stack and (stack[-1][0] > indent or (stack[-1][0] == indent and stack[-1][1] == entries[0][1])):
            stack.pop()
        stack.extend(entries)
    return stack


def _spaces(count: int) -> str:
    return "1 space" if count == 1 else f"{count} spaces"


def _out_of_line(text: str, line: int) -> Explained:
    """A key or an item whose indentation matches no block open above it."""
    source = _line(text, line)
    here = _indent(source)
    body = source.strip()
    item = body == "-" or body.startswith("- ")
    kind = "item" if item else "key"
    what = "`- ` item" if item else f"key `{body.split(':', 1)[0].strip()}`" if ":" in body else f"`{body[:30]}`"
    blocks = _blocks(text, line)
    clash = next((b for b in reversed(blocks) if b[0] == here and b[1] != kind), None)
    if clash is not None:
        where = (
            f"the column of the `- ` items on line {clash[2]}, but it is not one of them"
            if kind == "key"
            else f"the column of the keys on line {clash[2]}, where a list cannot start"
        )
    else:
        where = "a column where nothing above it starts"
    options: list[str] = []
    for column, found_kind, number in reversed(blocks):
        if found_kind == kind and len(options) < 2 and not any(o.startswith(_spaces(column) + " ") for o in options):
            options.append(f"{_spaces(column)} (like line {number})")
    fix = (
        f"indent it {' or '.join(options)}, whichever {'list' if item else 'mapping'} it belongs to"
        if options
        else "indent it like the lines it belongs with"
    )
    return Explained(f"the {what} is indented {_spaces(here)}, {where}: {fix}.", line, here + 1)


def _colon(text: str, line: int, column: int) -> Explained:
    """``mapping values are not allowed here``: a ``:`` where a value goes on."""
    source = _line(text, line)
    head = source[: column - 1]
    if ": " in head.lstrip(" -"):
        key = head.lstrip(" -").split(": ", 1)[0]
        return Explained(
            f"a second `: ` in the value of `{key}`: a value that holds `: ` must be quoted"
            f' (`{key}: "{source[len(head) - len(head.lstrip(" -")) :].split(": ", 1)[1].strip()}"`).',
            line,
            column,
        )
    above = _content(text, line)
    if above is not None and _indent(source) > _indent(above[1]):
        return Explained(
            f"this line is indented more than line {above[0]} above it, so YAML reads it as more of that line's"
            f" value: line it up with the keys above ({_spaces(_indent(above[1]))}), or end line {above[0]} with a"
            " key and no value to nest it there.",
            line,
            _indent(source) + 1,
        )
    return Explained("a `:` where none can be: quote the value that holds it.", line, column)


def explain(
    text: str, problem: str, line: int | None, column: int | None, context: str | None, context_line: int | None,
    context_column: int | None,
) -> Explained:  # fmt: skip
    """The parser's ``problem`` at (``line``, ``column``), inside ``context`` that began at
    (``context_line``, ``context_column``) — all 1-based, None when the parser gave none."""
    problem = problem.strip()
    context = (context or "").strip()
    if line is None or column is None:
        return Explained(problem or "the parser gave no reason", line, column)
    flowish = "flow" in context or "expected ',' or" in problem
    if flowish:
        found = _flow(text, problem, line, column)
        if found is not None:
            return found
    if problem.startswith("expected <block end>"):
        return _block_end(text, problem, line, column)
    if problem.startswith("mapping values are not allowed"):
        return _colon(text, line, column)
    if "could not find expected ':'" in problem and context_line is not None:
        source = _line(text, context_line).strip()
        if re.match(r"^(?:- )?[^\s:'\"]+:\S", source):
            reason = "a `:` after a key needs a space after it (`key: value`)."
        else:
            reason = f"`{source}` has no `: `: a key and its value are written `key: value`."
        return Explained(reason, context_line, context_column)
    if "end of stream" in problem and "quoted scalar" in context and context_line is not None:
        quote = _line(text, context_line)[(context_column or 1) - 1 : context_column or 1] or '"'
        return Explained(f"a quoted text is never closed: add the closing `{quote}`.",
                         context_line, context_column)  # fmt: skip
    if "'\\t'" in problem:
        return Explained("a tab: YAML indents with spaces only; replace the tab with spaces.", line, column)
    character = re.match(r"found character '(.)' that cannot start any token", problem)
    if character:
        mark = "a backquote" if character.group(1) == "`" else f"`{character.group(1)}`"
        return Explained(f"a plain value cannot start with {mark} (YAML reserves it): quote the value.", line, column)
    escape = re.match(r"found unknown escape character '(.+)'", problem)
    if escape:
        return Explained(
            f"`\\{escape.group(1)}` is not an escape that double quotes know: write `\\\\` for a backslash, or use"
            " single quotes, which have no escapes.",
            line,
            column,
        )
    said = f"{context}: {problem}" if context and context.startswith("while") else problem
    return Explained(f"the YAML parser says: {said}.", line, column)


def explain_at_line(text: str, reason: str, line: int | None, key: str | None = None) -> Explained:
    """A reason found without a column (a repeated key, a second document): the caret goes under
    ``key`` on that line when it is there, else under the line's first character."""
    if line is None:
        return Explained(reason, None, None)
    source = _line(text, line)
    column = _indent(source) + 1
    if key is not None:
        # The last one on the line: in a flow mapping the repeated key comes after the first.
        found = list(re.finditer(r"(?<![^\s{,?-])(['\"]?)" + re.escape(key) + r"\1\s*:", source))
        if found:
            column = found[-1].start() + 1
    return Explained(reason, line, column)


def excerpt(text: str, line: int | None, column: int | None) -> str | None:
    """``  7 |     position: [1, 2`` and a caret under ``column`` on the next line (tabs shown as one
    space so the caret lines up); None without a line."""
    if line is None or not 1 <= line <= len(_lines(text)):
        return None
    source = _line(text, line).replace("\t", " ")
    caret = max(1, min(column or 1, len(source) + 1))
    start = 0
    if len(source) > EXCERPT_WIDTH:
        start = max(0, min(caret - 1 - EXCERPT_WIDTH // 2, len(source) - EXCERPT_WIDTH))
        source = (
            ("…" if start else "")
            + source[start : start + EXCERPT_WIDTH]
            + ("…" if start + EXCERPT_WIDTH < len(source) else "")
        )
        caret = caret - start + (1 if start else 0)
    number = str(line)
    return f"  {number} | {source}\n  {' ' * len(number)} | {' ' * (caret - 1)}^"
