"""The entry's pre-parse, a syntax of the one parser (docs/cli.md, "Entry rules"), as data."""

from __future__ import annotations

import pytest

from pix3net.cli import ENTRY
from pix3tools.core.argv import parse


@pytest.mark.parametrize(
    ("argv", "flags", "values", "words"),
    [
        ([], set(), {}, ()),
        (["-v"], {"--version"}, {}, ()),
        (["new", "2d", "-v"], {"--version"}, {}, ("new", "2d")),
        (["--help", "new"], set(), {"--help": "new"}, ()),
        (["-h", "kit"], {"--help"}, {}, ("kit",)),
        (["--project=p", "kit"], set(), {"--project": "p"}, ("kit",)),
        (["--project", "p", "kit", "--update"], {"--update"}, {"--project": "p"}, ("kit",)),
        (["kit", "--update", "foo"], set(), {"--update": "foo"}, ("kit",)),
        (["gap", "--kind", "-x"], {"--kind"}, {}, ("gap", "-x")),
        (["--a=b=c"], set(), {"--a": "b=c"}, ()),
        (["--", "x"], set(), {}, ("--", "x")),
    ],
)
def test_entry_pre_parse(argv: list[str], flags: set[str], values: dict[str, str], words: tuple[str, ...]) -> None:
    parsed = parse(ENTRY, argv)
    assert (set(parsed.flags), dict(parsed.values), parsed.words, parsed.help) == (flags, values, words, False)
