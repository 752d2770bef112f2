"""The editor-chain lexical scan (docs/check.md, "The editor chain").

Modules the editor executes (project scripts, bot policies and what they import) must not make
Vite put its HMR client on the editor page. A small lexer masks comments, string bodies and
regular expressions (same length, newlines kept) so three constructs can be found with plain
patterns: ``import.meta.hot``, a non-literal ``import()``, and a stylesheet import.
"""

from __future__ import annotations

import os
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from pix3tools.core.walk import EDITOR_CHAIN, walk
from pix3tools.validate import locale_key

ROOT_FOLDERS = ("scripts", "src/scripts", "design/tests/bots")
SKIPPED_DIRS = EDITOR_CHAIN.anywhere
_ROOT_EXCLUDED_SUFFIXES = (".spec.ts", ".test.ts", ".d.ts")
_RESOLVE_EXTENSIONS = (".ts", ".tsx", ".mts", ".js", ".mjs", ".jsx")
_JS_TO_TS = {".js": ".ts", ".mjs": ".mts", ".jsx": ".tsx"}
_MAX_TEXT = 120
_SPECIFIER_WINDOW = 40  # how far back `from` / `import` may stand before a specifier
_KEYWORD_WINDOW = 12  # how far back a keyword may stand before a regex literal

_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%<>~^")
_REGEX_AFTER_WORD = re.compile(
    r"(?<![A-Za-z0-9_$])(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$"
)
_HOT = re.compile(r"(?<![A-Za-z0-9_$.])import\s*\.\s*meta\s*(?:\?\s*)?\.\s*hot(?![A-Za-z0-9_$])")
_DYNAMIC = re.compile(r"(?<![A-Za-z0-9_$.])import\s*\(")
_SPECIFIER_BEFORE = re.compile(r"(?<![A-Za-z0-9_$.])(?:from|import|import\s*\()\s*$")
_STYLE = re.compile(r"\.(?:css|less|sass|scss|styl|stylus|pcss|postcss|sss)(?:\?(.*))?$")
_STYLE_KEEP = re.compile(r"(?:^|&)(?:raw|url|inline)(?:&|=|$)")

KIND_ORDER = {"import-meta-hot": 0, "dynamic-import": 1, "css-import": 2}


@dataclass(frozen=True)
class Literal:
    value: str
    substituted: bool
    end: int  # offset just after the closing delimiter (or where the literal stopped)


@dataclass
class Lexed:
    masked: str
    literals: dict[int, Literal] = field(default_factory=dict)


@dataclass(frozen=True)
class Issue:
    kind: str
    line: int
    text: str


@dataclass(frozen=True)
class ChainIssue:
    kind: str
    file: str
    line: int
    text: str
    via: str


@dataclass
class ChainScan:
    files: list[str]
    issues: list[ChainIssue]


def _blank(chars: list[str], start: int, stop: int) -> None:
    for k in range(start, stop):
        if chars[k] != "\n":
            chars[k] = " "


def _regex_may_start(chars: list[str], i: int) -> bool:
    j = i - 1
    while j >= 0 and chars[j] in " \t\r\n":
        j -= 1
    if j < 0 or chars[j] in _REGEX_AFTER:
        return True
    return bool(_REGEX_AFTER_WORD.search("".join(chars[max(0, j + 1 - _KEYWORD_WINDOW) : j + 1])))


def lex(text: str) -> Lexed:
    """Mask comments, string/template bodies and regex bodies; record every string literal."""
    chars = list(text)
    n = len(text)
    literals: dict[int, Literal] = {}
    depth = 0
    # Open templates whose `${` substitution is being lexed as code: (start, depth, value parts).
    templates: list[tuple[int, int, list[str]]] = []
    i = 0

    def scan_template(start: int, j: int, parts: list[str]) -> int:
        """Continue a template body at j; returns where code resumes."""
        nonlocal depth
        while j < n:
            c = text[j]
            if c == "\\":
                parts.append(text[j : j + 2])
                _blank(chars, j, min(j + 2, n))
                j += 2
            elif c == "`":
                literals[start] = Literal("".join(parts), start in substituted, j + 1)
                return j + 1
            elif c == "$" and j + 1 < n and text[j + 1] == "{":
                substituted.add(start)
                templates.append((start, depth, parts))
                depth += 1
                return j + 2
            else:
                parts.append(c)
                _blank(chars, j, j + 1)
                j += 1
        literals[start] = Literal("".join(parts), start in substituted, n)
        return n

    substituted: set[int] = set()
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            end = text.find("\n", i)
            end = n if end < 0 else end
            _blank(chars, i, end)
            i = end
        elif c == "/" and nxt == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            _blank(chars, i, end)
            i = end
        elif c in "'\"":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j, n)
            _blank(chars, i + 1, j)
            closed = j < n and text[j] == c
            literals[i] = Literal(text[i + 1 : j], False, j + 1 if closed else j)
            i = j + 1 if closed else j
        elif c == "`":
            i = scan_template(i, i + 1, [])
        elif c == "/" and _regex_may_start(chars, i):
            j = i + 1
            in_class = False
            while j < n and text[j] != "\n":
                d = text[j]
                if d == "\\":
                    j += 2
                    continue
                if d == "[":
                    in_class = True
                elif d == "]":
                    in_class = False
                elif d == "/" and not in_class:
                    break
                j += 1
            j = min(j, n)
            _blank(chars, i + 1, j)
            i = j + 1 if j < n and text[j] == "/" else j
        elif c == "{":
            depth += 1
            i += 1
        elif c == "}":
            if templates and templates[-1][1] == depth - 1:
                start, outer, parts = templates.pop()
                depth = outer
                i = scan_template(start, i + 1, parts)
            else:
                depth = max(0, depth - 1)
                i += 1
        else:
            i += 1
    return Lexed("".join(chars), literals)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _line_text(text: str, line: int) -> str:
    source = text.split("\n")[line - 1].strip()
    return source if len(source) <= _MAX_TEXT else source[: _MAX_TEXT - 3] + "..."


def specifiers(lexed: Lexed) -> list[tuple[int, str]]:
    """(offset, value) of every literal that is an import/export specifier, in source order."""
    found = []
    for offset in sorted(lexed.literals):
        literal = lexed.literals[offset]
        if literal.substituted:
            continue
        if _SPECIFIER_BEFORE.search(lexed.masked[max(0, offset - _SPECIFIER_WINDOW) : offset]):
            found.append((offset, literal.value))
    return found


def is_stylesheet(specifier: str) -> bool:
    return bool(_STYLE.search(specifier))


def _is_css_issue(specifier: str) -> bool:
    match = _STYLE.search(specifier)
    if not match:
        return False
    query = match.group(1)
    return query is None or not _STYLE_KEEP.search(query)


def scan_module(text: str) -> tuple[list[Issue], list[str]]:
    """The issues of one module (sorted by line) and its specifiers."""
    lexed = lex(text)
    masked = lexed.masked
    found: list[tuple[int, str]] = [(m.start(), "import-meta-hot") for m in _HOT.finditer(masked)]
    for m in _DYNAMIC.finditer(masked):
        j = m.end()
        while j < len(masked) and masked[j] in " \t\r\n":
            j += 1
        literal = lexed.literals.get(j)
        if literal is not None and not literal.substituted:
            k = literal.end
            while k < len(masked) and masked[k] in " \t\r\n":
                k += 1
            if k < len(masked) and masked[k] in "),":
                continue
        found.append((m.start(), "dynamic-import"))
    specs = specifiers(lexed)
    found.extend((offset, "css-import") for offset, value in specs if _is_css_issue(value))
    issues = [Issue(kind, _line_of(text, offset), "") for offset, kind in found]
    issues = [Issue(i.kind, i.line, _line_text(text, i.line)) for i in issues]
    issues.sort(key=lambda issue: (issue.line, KIND_ORDER[issue.kind]))
    return issues, [value for _, value in specs]


def _roots(root: Path) -> list[Path]:
    """The chain's roots: each root folder walked depth first, entries in localeCompare order,
    folders descended where met (the same walk as the inventory, with this scan's folder list)."""
    found: list[Path] = []
    for folder in ROOT_FOLDERS:
        for item in walk(root, EDITOR_CHAIN, folder, order=locale_key):
            name = item.entry.name
            if not name.endswith(".ts") or name.endswith(_ROOT_EXCLUDED_SUFFIXES):
                continue
            try:
                if item.entry.is_file():
                    found.append(root / item.path)
            except OSError:
                continue
    return found


def _resolve(root: Path, importer: Path, specifier: str) -> Path | None:
    spec = specifier.split("?", 1)[0]
    if spec.startswith(("./", "../")):
        base = importer.parent / spec
    elif spec.startswith("/") and not spec.startswith("//"):
        base = root / spec[1:]
    else:
        return None
    candidates = [base]
    suffix = os.path.splitext(spec)[1]
    if suffix in _JS_TO_TS:
        candidates.append(base.with_suffix(_JS_TO_TS[suffix]))
    candidates += [Path(f"{base}{ext}") for ext in _RESOLVE_EXTENSIONS]
    candidates += [base / f"index{ext}" for ext in _RESOLVE_EXTENSIONS]
    for candidate in candidates:
        if candidate.is_file():
            return Path(os.path.normpath(candidate))
    return None


def _project_path(root: Path, path: Path) -> str | None:
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    return rel.as_posix()


def scan_chain(root: Path) -> ChainScan:
    """Walk the editor chain breadth-first from the roots; a module keeps the first root's `via`."""
    root = Path(os.path.normpath(root.resolve()))
    queue: deque[tuple[Path, str]] = deque()
    for path in _roots(root):
        rel = _project_path(root, path)
        if rel is not None:
            queue.append((Path(os.path.normpath(path)), rel))
    seen: set[Path] = set()
    files: list[str] = []
    issues: list[ChainIssue] = []
    while queue:
        path, via = queue.popleft()
        if path in seen:
            continue
        seen.add(path)
        rel = _project_path(root, path)
        if rel is None or any(part in SKIPPED_DIRS for part in rel.split("/")):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        files.append(rel)
        module_issues, specs = scan_module(text)
        issues.extend(ChainIssue(i.kind, rel, i.line, i.text, via) for i in module_issues)
        for spec in specs:
            if is_stylesheet(spec):
                continue
            target = _resolve(root, path, spec)
            if target is not None and target not in seen:
                queue.append((target, via))
    return ChainScan(files, issues)
