"""The dev server's HTTP leaves, shared by its app (`devserver.app`), its file API
(`devserver.files`) and its front door (`devserver.front`): what a refusal is, how any answer is
written, how a request body is read, which media type a file is served as.

Modules:

- `_errors`: `Refusal` (a value pure checks return), `ApiError` (the exception routes raise),
  the refusals every route may answer (`NOT_FOUND`, `INTERNAL`) and `api_error_of` (what any
  other exception answers).
- `_answers`: the one way to write a JSON answer and an error, for Quart routes, raw ASGI and a
  raw socket; `answer_errors` installs the app's one error handler.
- `_bodies`: request bodies read under a limit and a pace (`read_json`, `drain`, `pace_bodies`).
- `_mediatypes`: the Content-Type of a served file (`content_type`).

It imports nothing else of the dev server, so each of the three may use it without a cycle.
"""

from ._answers import (
    JSON_TYPE,
    VITE_CLOSED,
    VITE_NOT_RUNNING,
    VITE_REFUSED,
    answer_errors,
    error_bytes,
    error_response,
    json_bytes,
    json_response,
    send_error,
    send_json,
)
from ._bodies import BodyChunks, drain, pace_bodies, read_json
from ._errors import INTERNAL, NOT_FOUND, ApiError, Refusal, api_error_of, link_refused, no_space
from ._mediatypes import COMPILED_SOURCE, CONTENT_TYPES, content_type

__all__ = [
    "COMPILED_SOURCE",
    "CONTENT_TYPES",
    "INTERNAL",
    "JSON_TYPE",
    "NOT_FOUND",
    "VITE_CLOSED",
    "VITE_NOT_RUNNING",
    "VITE_REFUSED",
    "ApiError",
    "BodyChunks",
    "Refusal",
    "answer_errors",
    "api_error_of",
    "content_type",
    "drain",
    "error_bytes",
    "error_response",
    "json_bytes",
    "json_response",
    "link_refused",
    "no_space",
    "pace_bodies",
    "read_json",
    "send_error",
    "send_json",
]
