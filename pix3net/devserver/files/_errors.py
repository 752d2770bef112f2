"""The file API's own refusals that more than one of its modules raises (the error type, and the
refusals every route may answer, are the dev server's: `pix3net.devserver.http`)."""

from __future__ import annotations

from pix3net.devserver.http import ApiError


def closed_error() -> ApiError:
    return ApiError(503, "closed", "The dev server is shutting down; retry on the new one.")


def not_found(path: str) -> ApiError:
    return ApiError(404, "not_found", f"{path} does not exist.")
