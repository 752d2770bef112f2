"""`pix3 check`: flush, validate, type-check, versions, kit, editor chain (spec/tools.md §1–§2).

Public surface: ``run_check(root, options, home=…, validate=…, sync=…)`` (the pipeline; the
report is the ``--json`` shape), ``CheckOptions``, ``validate_project`` (its ``validate`` step),
``human_report``, ``SyncFn`` (the flush client's shape: the network side passes one in), and
``CODES``, the codes check adds to validate's (help order) as validate's ``Code`` records. The
command is ``pix3tools.check.command``.
"""

from pix3tools.check._codes import CHECK_CODES
from pix3tools.check._run import CheckOptions, SyncFn, human_report, run_check, validate_project
from pix3tools.validate.codes import Code

CODES: tuple[Code, ...] = tuple(Code(code, 1, summary) for code, _, summary in CHECK_CODES)

__all__ = ["CODES", "CheckOptions", "SyncFn", "human_report", "run_check", "validate_project"]
