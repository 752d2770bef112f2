"""The dev server's file API (docs/devserver-files.md): a synchronous core, its async store, routes.

`FileCore` knows nothing of HTTP: it refuses with its own kinds of `FileError` (`FileInvalid`,
`FileForbidden`, `FileMissing`, `FileConflict`, `FileStale`, `FileTooLarge`, `FileClosed`: a code,
a message, fields) and answers with the API's JSON objects. `FileStore` runs it for trio (write
mutex, worker threads, the watcher, a mutation's replay); `register_file_routes` mounts the HTTP
surface on a Quart app, and its one table (`STATUS`, `http_error`) gives each kind its status.

Modules: `_filecore` (`FileCore`), `_errors` (the refusals), `_paths` (wire paths, resolving without
links), `_conditions` (preconditions), `_changeset`, `_journal` (versions), `_table` (the file
table), `_diskwatch` / `_inotify` (the watcher), `_fsutil`, `_mutations` (X-Mutation-Id replays),
`_store` (`FileStore`), `_routes` (the HTTP routes). The file table's
`Scanner` (one walk's entries), `Entry` and `diff` (what changed between two), and `run_changeset`
(a changeset applied to a core) are offered for the tests that drive them as models.

Modules:

- `_filecore`: the synchronous core: reads, conditional writes, mkdir, delete, move, history.
- `_tablecore`: the core's file table: scans, the revision, the events it tells.
- `_store`: `FileStore`, the core's async face for trio.
- `_routes`: the HTTP routes under `__pix3/api/`.
- `_table`: the file table: the scan, the hash cache, `revision`, events.
- `_diskwatch`: changes made outside the file API.
- `_inotify`: a minimal inotify(7) binding.
- `_changeset`: the changeset transaction and its recovery.
- `_conditions`: entity-tag lists and the 412 preconditions.
- `_journal`: the version journal `.pix3/history/`.
- `_mutations`: `X-Mutation-Id` replays.
- `_paths`: wire paths: parsing, private names, resolution without links.
- `_fsutil`: durable writes, renames and removals below the root, never through a link.
- `_errors`: the file API's own errors.
"""

from pix3net.devserver.http import ApiError

from ._changeset import ChangeEntry, parse_changeset, run_changeset
from ._errors import (
    FileClosed,
    FileConflict,
    FileError,
    FileForbidden,
    FileInvalid,
    FileMissing,
    FileStale,
    FileTooLarge,
)
from ._filecore import FileCore, FileRead, valid_token
from ._paths import check_reserved, is_journaled, is_reserved, parse_wire_path, resolve
from ._routes import STATUS, http_error, query_value, register_file_routes
from ._store import FileStore
from ._table import Entry, Scanner, changed_map, diff

__all__ = [
    "STATUS",
    "ApiError",
    "ChangeEntry",
    "Entry",
    "FileClosed",
    "FileConflict",
    "FileCore",
    "FileError",
    "FileForbidden",
    "FileInvalid",
    "FileMissing",
    "FileRead",
    "FileStale",
    "FileStore",
    "FileTooLarge",
    "Scanner",
    "changed_map",
    "check_reserved",
    "diff",
    "http_error",
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
