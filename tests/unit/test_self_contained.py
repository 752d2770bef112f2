"""The repo is self-contained: nothing cites a file it does not hold.

Code, tests and docs cite `docs/<name>.md` (optionally with a section: `docs/cli.md, "Entry rules"`),
never the working material the project was written from (the fact sheets, the design card, a
section sign of some outside document). A fact the code relies on is written down in `docs/`.
This test fails on such a citation, on a `docs/<name>.md` that does not exist, on a cited section
that is not a heading of that doc, and on a link between docs that leads nowhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SCANNED = ("pix3net", "pix3tools", "tests", "docs", "README.md", "justfile", "pyproject.toml")
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})
THIS = Path(__file__).resolve()

# Built from parts so that this file does not match itself.
_SHARED = "sh" + "ared"
OUTSIDE = {
    "a fact sheet path (spec/<name>.md)": re.compile(r"(?<![\w/.-])spec/[\w.-]+\.md"),
    f"the working folder (../{_SHARED})": re.compile(rf"\.\./{_SHARED}\b|\b{_SHARED}/(?:spec|DESIGN|STYLE)"),
    "the design card (DESIGN)": re.compile(r"\b" + "DES" + r"IGN\b"),
    "a section of an outside document (§)": re.compile(r"(?<!RFC \d{4} )\u00a7"),
    "the seed README": re.compile("se" + r"ed[ -]readme", re.IGNORECASE),
    "a fact sheet": re.compile("fa" + r"ct[ -]sheet", re.IGNORECASE),
}

# `docs/<name>.md`, then optionally the sections it names: `, "A"`, `: "A", "B"`, `"A" and "B"`;
# a citation may wrap onto the next line of a comment.
_DOC = re.compile(r"(?<![\w/.-])docs/([\w.-]+?\.md)\b")
_SECTIONS = re.compile(r'[,:]?[ \t]*(?:\n[ \t]*(?:#|//|\*)?[ \t]*)?"([^"\n]+)"')
_JOINER = re.compile(r'(?:,[ \t]*|[ \t]+and[ \t]+)(?=")')
_MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def scanned_files() -> Iterator[Path]:
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            yield path
            continue
        for file in sorted(path.rglob("*")):
            if file.is_file() and not SKIPPED_DIRS.intersection(file.relative_to(ROOT).parts) and file != THIS:
                yield file


def text_of(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def texts() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in scanned_files():
        text = text_of(path)
        if text is not None:
            found[path.relative_to(ROOT).as_posix()] = text
    return found


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def slug(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading (GitHub's rule)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def headings(doc: Path) -> list[str]:
    """The doc's headings as written (without the #s); fenced code is not a heading."""
    found: list[str] = []
    fenced = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if re.match(r"\s*(```|~~~)(?!.*`)", line):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)):
            found.append(match.group(1))
    return found


def plain(title: str) -> str:
    """A heading or a cited section without its number and markup: `5.6 `pix3_errors`` → `pix3_errors`."""
    text = re.sub(r"[`*]", "", title)
    text = re.sub(r"^\d+(?:\.\d+)*\.?\s+", "", text.strip())
    return " ".join(text.split())


def names_a_heading(section: str, titles: list[str]) -> bool:
    """Exactly a heading, or a heading's name without its numbering and markup; a heading that
    goes on with its arguments or a parenthesis may be cited by its name (`pix3_scene` for
    `5.3 `pix3_scene {path?, …}``)."""
    wanted = plain(section)
    for title in titles:
        have = plain(title)
        if section == title or wanted == have or (have.startswith(wanted + " ") and have[len(wanted) + 1] in "({"):
            return True
    return False


def cited_sections(text: str, end: int) -> list[str]:
    """The quoted sections right after a `docs/<name>.md` ending at ``end``."""
    sections: list[str] = []
    match = _SECTIONS.match(text, end)
    while match is not None:
        sections.append(match.group(1))
        joiner = _JOINER.match(text, match.end())
        match = _SECTIONS.match(text, joiner.end()) if joiner else None
    return sections


def test_nothing_cites_the_working_material() -> None:
    found = [
        f"{name}:{line_of(text, match.start())}: {what}: {text.splitlines()[line_of(text, match.start()) - 1].strip()}"
        for name, text in texts().items()
        for what, pattern in OUTSIDE.items()
        for match in pattern.finditer(text)
    ]
    assert found == [], (
        "These cite files outside the repo. Put the fact into docs/ in our own words and cite "
        "docs/<name>.md (or state the fact where it is used):\n" + "\n".join(found)
    )


def test_every_cited_doc_and_section_exists() -> None:
    problems: list[str] = []
    known: dict[str, list[str]] = {}
    for name, text in texts().items():
        for match in _DOC.finditer(text):
            where = f"{name}:{line_of(text, match.start())}"
            doc = DOCS / match.group(1)
            if not doc.is_file():
                problems.append(f"{where}: docs/{match.group(1)} does not exist")
                continue
            titles = known.setdefault(doc.name, headings(doc))
            for section in cited_sections(text, match.end()):
                if not names_a_heading(section, titles):
                    problems.append(f'{where}: docs/{doc.name} has no heading "{section}"')
    assert problems == [], "\n".join(problems)


def test_links_between_docs_lead_somewhere() -> None:
    problems: list[str] = []
    for doc in sorted([*DOCS.glob("*.md"), ROOT / "README.md"]):
        text = doc.read_text(encoding="utf-8")
        for match in _MD_LINK.finditer(text):
            target = match.group(1)
            if re.match(r"[a-z]+:", target):
                continue  # a URL
            path, _, anchor = target.partition("#")
            linked = (doc.parent / path).resolve() if path else doc
            where = f"{doc.relative_to(ROOT)}:{line_of(text, match.start())}"
            if not linked.exists():
                problems.append(f"{where}: {target} does not exist")
            elif anchor and linked.suffix == ".md" and anchor not in {slug(h) for h in headings(linked)}:
                problems.append(f"{where}: {path or doc.name} has no heading for #{anchor}")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "sections"),
    [
        ('see docs/cli.md, "Entry rules".', ["Entry rules"]),
        ('docs/sfx.md: "Modifiers", "Seeded variation".', ["Modifiers", "Seeded variation"]),
        ('docs/chrome-owner.md, "Command lines" and "The pipe"', ["Command lines", "The pipe"]),
        ('(docs/cdp-proxy.md,\n    # "Proof")', ["Proof"]),
        ("docs/new.md) and more", []),
    ],
)
def test_the_citation_reader(text: str, sections: list[str]) -> None:
    match = _DOC.search(text)
    assert match is not None
    assert cited_sections(text, match.end()) == sections


def test_the_outside_patterns_catch_what_they_should() -> None:
    caught = [
        "sp" + "ec/cdp.md",
        "../" + _SHARED,
        "DES" + "IGN decision 3",
        "\u00a72.6",
        "the se" + "ed README",
        "the fa" + "ct sheet",
    ]
    for sample in caught:
        assert any(p.search(sample) for p in OUTSIDE.values()), sample
    for fine in ("RFC 6455 \u00a75.4", "design/tests/bots", "tests/support/spec_helpers.py", "docs/cli.md"):
        assert not any(p.search(fine) for p in OUTSIDE.values()), fine
    assert slug("5.2 `pix3_sync`") == "52-pix3_sync"
    titles = ["5.6 `pix3_errors {since?, clear?}`", "6. `pix3_game_run`", "The token file", "Tests"]
    for cited in ("pix3_errors", "pix3_game_run", "6. `pix3_game_run`", "The token file"):
        assert names_a_heading(cited, titles), cited
    for cited in ("The token", "pix3", "Test", "token file"):
        assert not names_a_heading(cited, titles), cited
    assert slug("The token file") == "the-token-file"
