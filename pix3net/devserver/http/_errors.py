"""What a refused request answers: a status, an error code, a message (and extra JSON fields).

`Refusal` is the value pure checks return (and the constants below); `ApiError` is the exception
routes raise. Either becomes `{"error": code, "message": text, …extra}` with its status, written
one way (`_answers.py`). :func:`api_error_of` says what any other exception answers: a link where
a `.pix3` folder should be (409), a full disk (507), else nothing (the caller answers 500
`internal` and logs it).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Any

from pix3tools.core.private import Refused


class ApiError(Exception):
    """A refusal raised: its HTTP status, error code, message and extra JSON fields."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.extra}

    def with_extra(self, **extra: Any) -> ApiError:
        return ApiError(self.status, self.code, self.message, **{**self.extra, **extra})


@dataclass(frozen=True)
class Refusal:
    """A refusal as a value (a constant, or what a pure check returns)."""

    status: int
    code: str
    message: str

    def body(self) -> dict[str, str]:
        return {"error": self.code, "message": self.message}

    def error(self, **extra: Any) -> ApiError:
        return ApiError(self.status, self.code, self.message, **extra)


NOT_FOUND = Refusal(404, "not_found", "Not found.")
INTERNAL = Refusal(500, "internal", "Internal error.")


def no_space(root: str, exc: OSError) -> ApiError:
    """507 for a full disk (ENOSPC) or quota (EDQUOT): what filled up, and what to do."""
    return ApiError(
        507,
        "no_space",
        f"The disk holding {root} is full ({exc.strerror}); free some space and retry.",
    )


def link_refused(exc: Refused) -> ApiError:
    """409 for a link (or a non-folder) where one of the dev server's `.pix3` folders should be:
    it is left alone, never followed (docs/devserver-files.md, "Links in .pix3")."""
    return ApiError(409, "link_refused", exc.message, path=exc.path)


def api_error_of(exc: BaseException, root: str) -> ApiError | None:
    """What ``exc`` answers, or None for an internal error (500 `internal`, logged by the caller)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, Refused):
        return link_refused(exc)
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return no_space(root, exc)
    return None
