"""A package facade whose names load their private module on first use (PEP 562's module
``__getattr__``), for packages whose command must start before their heavier parts load.

The package lists, once, which private module gives which name (its ``homes``), imports the same
names under ``TYPE_CHECKING`` for the type checker and names them in ``__all__``; its
``__getattr__`` is :func:`lazy_names`'s answer. A name found is kept in the package, so the
lookup runs once.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_names(package: str, homes: Mapping[str, Sequence[str]]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``name`` from the module ``homes`` gives it."""
    where = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
