"""The file API's refusals that more than one module raises (the error type is the dev server's)."""

from __future__ import annotations

from pix3net.devserver.errors import ApiError


def closed_error() -> ApiError:
    return ApiError(503, "closed", "The dev server is shutting down; retry on the new one.")


def not_found(path: str) -> ApiError:
    return ApiError(404, "not_found", f"{path} does not exist.")


def no_space(root: str, exc: OSError) -> ApiError:
    """507 for a full disk (ENOSPC) or quota (EDQUOT): what filled up, and what to do."""
    return ApiError(
        507,
        "no_space",
        f"The disk holding {root} is full ({exc.strerror}); free some space and retry.",
    )
