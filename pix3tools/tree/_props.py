"""`pix3 tree --props`: the authored properties that differ from the type's defaults (docs/tree.md, "Properties").

The reference reads defaults from a bare instance of each runtime class; we have no runtime, so
the defaults are the documented ones of the scene model's node-type schemas, reached through the
disk-format descriptor (`transform.position` → `position`, `layout.enabled` → `layoutEnabled`).
A key whose default the docs do not give is always shown; a type the model does not know is
named in the note.
"""

from __future__ import annotations

import math
from typing import Any

from pix3tools.tree._outline import Node
from pix3tools.tree._text import is_number

__all__ = ["PropsReader", "flatten", "same_value"]

# Keys the node line already shows.
_ON_LINE = frozenset({"transform.position", "position", "width", "height", "label"})
_LAYOUT_KEYS = frozenset(
    {"layout.enabled", "layout.horizontalAlign", "layout.verticalAlign", "layout.left", "layout.right"}
    | {"layout.top", "layout.bottom"}
)
_TOLERANCE = 1e-6  # numbers within this of the default count as the default


def _is_leaf_record(value: dict[Any, Any]) -> bool:
    """Vectors ({x, y…}) and texture refs ({type: texture, url}) stay whole."""
    if "url" in value:
        return True
    return bool(value) and set(value) <= {"x", "y", "z", "w"}


def flatten(properties: dict[str, Any]) -> dict[str, Any]:
    """One level: ``transform: {scale: …}`` → ``transform.scale``."""
    flat: dict[str, Any] = {}
    for key, value in properties.items():
        if isinstance(value, dict) and value and not _is_leaf_record(value):
            for inner, item in value.items():
                flat[f"{key}.{inner}"] = item
        else:
            flat[str(key)] = value
    return flat


def _components(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and "x" in value:
        return [value[k] for k in ("x", "y", "z", "w") if k in value]
    return None


def _colour(text: str) -> str | None:
    if not text.startswith("#"):
        return None
    body = text[1:].lower()
    if len(body) in (3, 4):
        body = "".join(c * 2 for c in body)
    return body


def same_value(value: Any, default: Any) -> bool:
    """Equal under the reference's rules: numbers ±1e-6, vectors element-wise, `#rgb` ≡
    `#rrggbb` case-insensitively."""
    if isinstance(value, bool) or isinstance(default, bool):
        return value is default
    if is_number(value) and is_number(default):
        return math.isclose(value, default, rel_tol=0, abs_tol=_TOLERANCE)
    if isinstance(value, str) and isinstance(default, str):
        if value == default:
            return True
        a, b = _colour(value), _colour(default)
        return a is not None and a == b
    left, right = _components(value), _components(default)
    if left is not None and right is not None and not isinstance(value, str):
        return len(left) == len(right) and all(same_value(a, b) for a, b in zip(left, right, strict=True))
    return bool(value is None and default is None)


class PropsReader:
    """Builds each node's ``props``; ``note`` says what could not be filtered."""

    def __init__(self) -> None:
        self._model: Any = None
        self._error: str | None = None
        self._no_defaults: set[str] = set()
        try:
            import pix3tools.scene as model

            self._model = model
        except ImportError as exc:
            self._error = str(exc) or type(exc).__name__

    @property
    def note(self) -> str | None:
        if self._error is not None:
            return f"(defaults unavailable ({self._error}): every authored property is shown)"
        if self._no_defaults:
            names = ", ".join(sorted(self._no_defaults))
            return f"(no documented defaults for {names}: every authored property of those is shown)"
        return None

    def _defaults(self, type_name: str) -> Any:
        if self._model is None or type_name in ("?", "Instance"):
            return None
        canonical, _ = self._model.resolve_node_type(type_name)
        if canonical is None:
            return None
        try:
            return self._model.type_format(canonical)
        except KeyError:
            return None

    def _default_of(self, fmt: Any, key: str) -> Any:
        missing = self._model.MISSING
        block, dot, inner = key.partition(".")
        schema_name: str | None = key
        if dot:
            rule = fmt.extras.get(block)
            sub = rule.nested.get(inner) if rule is not None else None
            schema_name = sub.schema_name if sub is not None else None
        elif key in fmt.extras:
            schema_name = fmt.extras[key].schema_name
        prop = fmt.schema.get(schema_name) if schema_name else None
        return missing if prop is None else prop.default

    def props(self, node: Node) -> dict[str, Any] | None:
        flat = flatten(node.properties)
        for key in _ON_LINE:
            flat.pop(key, None)
        if node.hidden:
            flat.pop("visible", None)
        if node.instance is not None:
            return flat or None
        if node.layout is not None:
            for key in _LAYOUT_KEYS:
                flat.pop(key, None)
        if not flat:
            return None
        fmt = self._defaults(node.type)
        if fmt is None:
            if self._error is None:
                self._no_defaults.add(node.type)
            return flat
        missing = self._model.MISSING
        shown = {}
        for key, value in flat.items():
            default = self._default_of(fmt, key)
            if default is missing or not same_value(value, default):
                shown[key] = value
        return shown or None
