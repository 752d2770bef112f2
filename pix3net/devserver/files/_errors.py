"""The one error type of the file API: it carries the reply to send (spec/devserver.md §3.1)."""

from __future__ import annotations

from typing import Any


class FileApiError(Exception):
    """A refusal with its HTTP status, error code, message and extra JSON fields."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.extra}

    def with_extra(self, **extra: Any) -> FileApiError:
        merged = {**self.extra, **extra}
        return FileApiError(self.status, self.code, self.message, **merged)


def closed_error() -> FileApiError:
    return FileApiError(503, "closed", "The dev server is shutting down; retry on the new one.")


def not_found(path: str) -> FileApiError:
    return FileApiError(404, "not_found", f"{path} does not exist.")
