"""`pix3 check`: flush, validate, type-check, versions, kit, editor chain (spec/tools.md §1–§2).

``CODES``: the codes check adds to validate's (help order), as validate's ``Code`` records.
The pipeline is ``pix3tools.check._run.run_check``; the command is ``pix3tools.check.cli:main``.
``CODES`` is built on first use: importing validate costs ~45 ms, and ``pix3 check`` starts tsc
before it needs validate (docs/check.md, "Speed").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pix3tools.validate.codes import Code

    CODES: tuple[Code, ...]

__all__ = ["CODES"]


def __getattr__(name: str) -> Any:
    if name == "CODES":
        from pix3tools.check._codes import CHECK_CODES
        from pix3tools.validate.codes import Code

        codes = tuple(Code(code, 1, summary) for code, _, summary in CHECK_CODES)
        globals()["CODES"] = codes
        return codes
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
