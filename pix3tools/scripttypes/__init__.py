"""Script types: what a project without its own tsconfig.json is type-checked against.

``prepare_types(root, home, offline=…)`` writes ``.pix3/types/`` — ``@pix3/runtime`` declarations
generated from the scene model, three's published ``@types/three`` (pinned, installed once into
``$PIX3_HOME/three-types/<version>`` by npm) — and ``.pix3/tsconfig.check.json``. ``pix3 kit`` and
``pix3 check`` both call it, so they agree on one set of files (docs/check.md).
"""

from pix3tools.scripttypes._layout import (
    CHECK_INCLUDE,
    CHECK_TSCONFIG,
    CHECK_TSCONFIG_PATH,
    EXTENDS_LINE,
    USE_GENERATED_TYPES,
    check_root_files,
    has_own_tsconfig,
    prepare_types,
)
from pix3tools.scripttypes._runtime import declarations
from pix3tools.scripttypes._three import (
    THREE_TYPES_VERSION,
    Installer,
    TypesUnavailable,
    cache_prefix,
    resolve_three_types,
    three_install_command,
)

__all__ = [
    "CHECK_INCLUDE",
    "CHECK_TSCONFIG",
    "CHECK_TSCONFIG_PATH",
    "EXTENDS_LINE",
    "THREE_TYPES_VERSION",
    "USE_GENERATED_TYPES",
    "Installer",
    "TypesUnavailable",
    "cache_prefix",
    "check_root_files",
    "declarations",
    "has_own_tsconfig",
    "prepare_types",
    "resolve_three_types",
    "three_install_command",
]
