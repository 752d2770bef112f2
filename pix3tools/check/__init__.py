"""`pix3 check`: flush, validate, type-check, versions, kit, editor chain (spec/tools.md §1–§2).

``CODES``: the codes check adds to validate's (help order), as validate's ``Code`` records.
The pipeline is ``pix3tools.check._run.run_check``; the command is ``pix3tools.check.cli:main``.
"""

from pix3tools.check._codes import CHECK_CODES
from pix3tools.validate.codes import Code

CODES: tuple[Code, ...] = tuple(Code(code, 1, summary) for code, _, summary in CHECK_CODES)

__all__ = ["CODES"]
