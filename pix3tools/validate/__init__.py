"""``pix3 validate``: the strict level-1 check of scenes, prefabs, animations, locales, autoloads.

- ``run_validate(root, paths=None, *, hydrate=True) -> ValidateReport``: ``report.diagnostics``
  (sorted), ``report.to_json()`` (the ``--json`` dict, spec order), ``report.human_text()``,
  ``report.exit_code``. Raises ``ValidateUsageError`` for a path outside the project or not a scene.
- ``CODES``: the code registry (``Code(code, level, summary)``, ``.severity``); ``codes_help()``.
- Level 2 (hydration through @pix3/runtime) cannot run here: ``level2`` says ``skipped`` with the
  reason (or ``disabled`` for ``hydrate=False``), never ``ran``.
"""

from pix3tools.validate._report import Diagnostic, ValidateReport, locale_key
from pix3tools.validate._run import LEVEL2_UNAVAILABLE, ValidateUsageError, run_validate
from pix3tools.validate.codes import CODE_NAMES, CODES, Code, codes_help, severity_of

__all__ = [
    "CODES",
    "CODE_NAMES",
    "LEVEL2_UNAVAILABLE",
    "Code",
    "Diagnostic",
    "ValidateReport",
    "ValidateUsageError",
    "codes_help",
    "locale_key",
    "run_validate",
    "severity_of",
]
