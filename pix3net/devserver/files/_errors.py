"""The file API's refusals that more than one module raises (the error type is the dev server's)."""

from __future__ import annotations

from pix3net.devserver.errors import ApiError
from pix3tools.core.private import Refused


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


def link_refused(exc: Refused) -> ApiError:
    """409 for a link (or a non-folder) where one of the dev server's `.pix3` folders should be:
    it is left alone, never followed (docs/devserver-files.md, "Links in .pix3")."""
    return ApiError(409, "link_refused", exc.message, path=exc.path)
