"""`pix3 check`: flush, validate, type-check, versions, kit, editor chain (docs/check.md).

Public surface: ``run_check(root, options, home=…, validate=…, sync=…)`` (the pipeline; the
report is the ``--json`` shape), ``CheckOptions``, ``validate_project`` (its ``validate`` step),
``human_report``, ``SyncFn`` (the flush client's shape: the network side passes one in), and
``CODES``, the codes check adds to validate's (help order) as validate's ``Code`` records. The
command is ``pix3tools.check.command``.

Every name is loaded on first use: the command imports only what starts tsc before anything
else (``_begin``), and ``CODES`` needs validate, whose import (~45 ms) comes after tsc started
(docs/check.md, "Speed").
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pix3tools.check._begin import CheckOptions, SyncFn
    from pix3tools.check._run import human_report, run_check, validate_project
    from pix3tools.validate.codes import Code

    CODES: tuple[Code, ...]

__all__ = ["CODES", "CheckOptions", "SyncFn", "human_report", "run_check", "validate_project"]

_WHERE = {
    "CheckOptions": "pix3tools.check._begin",
    "SyncFn": "pix3tools.check._begin",
    "human_report": "pix3tools.check._run",
    "run_check": "pix3tools.check._run",
    "validate_project": "pix3tools.check._run",
}


def __getattr__(name: str) -> Any:
    if name == "CODES":
        from pix3tools.check._codes import CHECK_CODES
        from pix3tools.validate.codes import Code

        codes = tuple(Code(code, 1, summary) for code, _, summary in CHECK_CODES)
        globals()["CODES"] = codes
        return codes
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
