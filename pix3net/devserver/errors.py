"""What a refused request answers: a status, an error code, a message (and extra JSON fields).

`Refusal` is the value pure checks return; `ApiError` is the exception routes raise. Either
becomes `{"error": code, "message": text, …extra}` with its status (`answers.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
