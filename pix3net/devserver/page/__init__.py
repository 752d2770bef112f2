"""The editor page's files (ES modules, its HTML and styles) and the one loader Python reads them by.

The dev server serves the page from :func:`page_folder` (``app._hostpage``, ``app._pageroutes``); other
packages read the few files declared in :data:`READ_ELSEWHERE`, only through
:func:`read_page_file`: `pix3 smoke` installs the probe and the rules (``recorder.js``, ``judge.js``,
the editor page's own) and its installer (``smokerun.js``) into each game page. A Python package
that needs a page file imports this one, so the package graph shows the dependency
(``pix3net.commands.smoke -> pix3net.devserver.page``); no other Python file names the folder
(tests/unit/test_import_graph.py). Standard library only.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

__all__ = ["NOT_SERVED", "READ_ELSEWHERE", "page_folder", "read_page_file"]

# The page files read outside the dev server, by name.
READ_ELSEWHERE = ("recorder.js", "judge.js", "smokerun.js")
# Files in the folder that are not the page's: smoke's installer is a template with placeholders.
NOT_SERVED = frozenset({"smokerun.js"})


def page_folder() -> Traversable:
    """The folder of the editor page's HTML, modules and stylesheets."""
    return resources.files(__name__)


def read_page_file(name: str) -> str:
    """The text of ``name``, one of :data:`READ_ELSEWHERE`; ValueError for any other name."""
    if name not in READ_ELSEWHERE:
        raise ValueError(f"{name} is not a page file read elsewhere ({', '.join(READ_ELSEWHERE)}); declare it first")
    return (page_folder() / name).read_text(encoding="utf-8")
