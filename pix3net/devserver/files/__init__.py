"""The dev server's file API (docs/devserver-files.md): a synchronous core, its async store, routes.

`FileCore` knows nothing of HTTP; `FileStore` runs it for trio (write mutex, worker threads,
the watcher); `register_file_routes` mounts the HTTP surface on a Quart app. The file table's
`Scanner` (one walk's entries), `Entry` and `diff` (what changed between two), and `run_changeset`
(a changeset applied to a core) are offered for the tests that drive them as models.
"""

from pix3net.devserver.http import ApiError

from ._changeset import ChangeEntry, parse_changeset, run_changeset
from ._core import FileCore, FileRead, valid_token
from ._paths import check_reserved, is_journaled, is_reserved, parse_wire_path, resolve
from ._routes import query_value, register_file_routes
from ._store import FileStore
from ._table import Entry, Scanner, changed_map, diff

__all__ = [
    "ApiError",
    "ChangeEntry",
    "Entry",
    "FileCore",
    "FileRead",
    "FileStore",
    "Scanner",
    "changed_map",
    "check_reserved",
    "diff",
    "is_journaled",
    "is_reserved",
    "parse_changeset",
    "parse_wire_path",
    "query_value",
    "register_file_routes",
    "resolve",
    "run_changeset",
    "valid_token",
]
