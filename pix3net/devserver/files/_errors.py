"""The file core's refusals, in its own terms: a kind (the class), a code (the wire's ``error``),
a message and extra JSON fields. Which HTTP status answers each kind is the routes' business
(``_routes.STATUS``, one table); the core, its paths and its changesets know nothing of HTTP."""

from __future__ import annotations

from typing import Any

__all__ = [
    "FileClosed",
    "FileConflict",
    "FileError",
    "FileForbidden",
    "FileInvalid",
    "FileMissing",
    "FileStale",
    "FileTooLarge",
    "closed_error",
    "not_found",
]


class FileError(Exception):
    """A refusal of the file API: ``code`` and ``message`` as the client reads them, ``extra``
    the fields that go with them (``path``, ``currentHash``…)."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def with_extra(self, **extra: Any) -> FileError:
        """The same refusal (same kind) with more fields."""
        return type(self)(self.code, self.message, **{**self.extra, **extra})


class FileInvalid(FileError):
    """The request names or asks something the file API does not take (a bad path, field, move)."""


class FileForbidden(FileError):
    """A path the file API never touches: private to the dev server, or through a link."""


class FileMissing(FileError):
    """What the request names does not exist (a file, a version)."""


class FileConflict(FileError):
    """The project's state stands in the way (a file where a folder must be, a folder not empty,
    a link where a `.pix3` folder should be)."""


class FileStale(FileError):
    """A precondition failed: the file is not the version the writer based its change on."""


class FileTooLarge(FileError):
    """Too much in one request (a file's bytes, a changeset's files)."""


class FileClosed(FileError):
    """The dev server is shutting down."""


def closed_error() -> FileClosed:
    return FileClosed("closed", "The dev server is shutting down; retry on the new one.")


def not_found(path: str) -> FileMissing:
    return FileMissing("not_found", f"{path} does not exist.")
