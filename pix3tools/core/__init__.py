"""The core below everything: stdlib only, imported by both packages, importing neither's tools.

- ``version``: ``CLI_VERSION``.
- ``home``: ``PIX3_HOME`` (``pix3_home``, ``ensure_home``) and ``atomic_write``.
- ``project``: ``PROJECT_FILE``, the project lookup and the one "no project" message.
- ``commandtable`` and ``usage``: the command table and every usage text, as data.
- ``argv`` and ``runner``: the one argument parser and the runner every command's ``main`` uses
  (docs/cli.md, "How a command declares its arguments").
- ``lazy``: a package facade whose names load their private module on first use (``lazy_names``).
"""

from pix3tools.core.home import atomic_write, ensure_home, pix3_home
from pix3tools.core.project import (
    PROJECT_FILE,
    ProjectLookup,
    find_project_root,
    lookup_project,
    no_project_message,
)
from pix3tools.core.version import CLI_VERSION

__all__ = [
    "CLI_VERSION",
    "PROJECT_FILE",
    "ProjectLookup",
    "atomic_write",
    "ensure_home",
    "find_project_root",
    "lookup_project",
    "no_project_message",
    "pix3_home",
]
