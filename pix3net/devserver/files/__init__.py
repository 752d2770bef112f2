"""The dev server's file API (docs/devserver-files.md): a synchronous core, its async store, routes.

`FileCore` knows nothing of HTTP; `FileStore` runs it for trio (write mutex, worker threads,
the watcher); `register_file_routes` mounts the HTTP surface on a Quart app.
"""

from pix3net.devserver.http import ApiError

from ._changeset import ChangeEntry, parse_changeset
from ._core import FileCore, FileRead, valid_token
from ._paths import check_reserved, is_journaled, is_reserved, parse_wire_path, resolve
from ._routes import query_value, register_file_routes
from ._store import FileStore
from ._table import changed_map

__all__ = [
    "ApiError",
    "ChangeEntry",
    "FileCore",
    "FileRead",
    "FileStore",
    "changed_map",
    "check_reserved",
    "is_journaled",
    "is_reserved",
    "parse_changeset",
    "parse_wire_path",
    "query_value",
    "register_file_routes",
    "resolve",
    "valid_token",
]
