"""`pix3 check`: flush, validate, type-check, versions, kit, editor chain (docs/check.md).

Public surface: ``run_check(root, options, home=…, validate=…, sync=…)`` (the pipeline; the
report is the ``--json`` shape), ``CheckOptions``, ``validate_project`` (its ``validate`` step),
``human_report``, ``SyncFn`` (the flush client's shape: the network side passes one in), and
``CODES``, the codes check adds to validate's (help order) as validate's ``Code`` records. The
command is ``pix3tools.check.command``.

``CODES`` is built on first use: it needs validate, whose import (~45 ms) ``pix3 check`` makes only
after tsc started (docs/check.md, "Speed").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pix3tools.check._run import CheckOptions, SyncFn, human_report, run_check, validate_project

if TYPE_CHECKING:
    from pix3tools.validate.codes import Code

    CODES: tuple[Code, ...]

__all__ = ["CODES", "CheckOptions", "SyncFn", "human_report", "run_check", "validate_project"]


def __getattr__(name: str) -> Any:
    if name == "CODES":
        from pix3tools.check._codes import CHECK_CODES
        from pix3tools.validate.codes import Code

        codes = tuple(Code(code, 1, summary) for code, _, summary in CHECK_CODES)
        globals()["CODES"] = codes
        return codes
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
