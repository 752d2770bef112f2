"""Value checks (docs/validate.md, "Value checks"): one value against a schema type or a disk kind."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from pix3tools._js import js_number, js_string
from pix3tools.scene import PathSeg, Prop

__all__ = ["Emit", "check_kind", "check_prop", "describe", "js_number", "js_string", "kind_prop", "plainly_valid"]

# emit(code, path, message, fix)
Emit = Callable[[str, tuple[PathSeg, ...], str, str | None], None]

_COLOR = re.compile(
    r"#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})|(?:rgba?|hsla?)\(.*\)|[a-z]+",
    re.IGNORECASE | re.DOTALL,
)
_AXES = ("x", "y", "z", "w")
_SHOWN = 60  # a string longer than this is cut in a message
_VECTOR_N = {"vector2": 2, "vector3": 3, "euler": 3, "vector4": 4}


def describe(value: Any, *, json: bool = False) -> str:
    """A value as the messages name it: ``null``, ``the boolean true``, ``the number 3``, ``the
    string "…"``, ``a list of 2 items`` (``an array`` in a JSON file), ``a mapping`` (``an object``)."""
    if value is None:
        return "null"
    if isinstance(value, list):
        noun = "array" if json else "list"
        if not value:
            return f"an empty {noun}"
        return f"{'an' if json else 'a'} {noun} of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, str):
        shown = value if len(value) <= _SHOWN else value[: _SHOWN - 1] + "…"
        return f'the string "{shown}"'
    if isinstance(value, dict):
        return "an object" if json else "a mapping"
    if isinstance(value, bool):
        return f"the boolean {js_number(value)}"
    if isinstance(value, int | float):
        return f"the number {js_number(value)}"
    return f"{type(value).__name__} {value}"


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _numeric_string(value: Any) -> bool:
    if not isinstance(value, str) or not value.strip():
        return False
    try:
        return math.isfinite(float(value.strip()))
    except ValueError:
        return False


def _check_number(emit: Emit, name: str, value: Any, path: tuple[PathSeg, ...], prop: Prop | None) -> None:
    if not is_number(value):
        fix = f"write {name}: {value.strip()} (no quotes)" if _numeric_string(value) else None
        emit("E_PROPERTY_TYPE", path, f"{name} must be a number, got {describe(value)}.", fix)
        return
    if prop is None:
        return
    if prop.positive and not value > 0:
        emit("E_PROPERTY_RANGE", path, f"{name} is {js_number(value)}: rejected by the property's validation.", None)
        return
    if (prop.min is not None and value < prop.min) or (prop.max is not None and value > prop.max):
        low = "-∞" if prop.min is None else js_number(prop.min)
        high = "∞" if prop.max is None else js_number(prop.max)
        emit(
            "W_PROPERTY_RANGE",
            path,
            f"{name} is {js_number(value)}, outside the inspector's {low}..{high} range; it loads as written,"
            " but the inspector cannot produce it.",
            None,
        )


def _check_vector(emit: Emit, name: str, value: Any, path: tuple[PathSeg, ...], n: int) -> None:
    axes = list(_AXES[:n])
    shape = f"[{', '.join(axes)}]"
    fix = f"write {name}: {shape}"
    if isinstance(value, list):
        if len(value) < n:
            emit("E_PROPERTY_TYPE", path, f"{name}: expected {n} numbers {shape}, got {describe(value)}.", fix)
            return
        for i in range(n):
            if not is_number(value[i]):
                emit("E_PROPERTY_TYPE", path, f"{name}: component {i} is {describe(value[i])}, not a number.", fix)
                return
        return
    if isinstance(value, dict):
        present = [a for a in _AXES[:n] if a in value]
        if not present:
            emit("E_PROPERTY_TYPE", path, f"{name}: expected {{{', '.join(axes)}}}.", fix)
            return
        for axis in present:
            if not is_number(value[axis]):
                emit("E_PROPERTY_TYPE", path, f"{name}: {axis} is {describe(value[axis])}, not a number.", fix)
                return
        return
    emit("E_PROPERTY_TYPE", path, f"{name}: expected {n} numbers {shape}, got {describe(value)}.", fix)


def _check_color(emit: Emit, name: str, value: Any, path: tuple[PathSeg, ...]) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        fix = None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            fix = f'write {name}: "#{value:06x}"'
        emit("E_PROPERTY_TYPE", path, f'{name} must be a colour string like "#ff8800", got {describe(value)}.', fix)
        return
    if not _COLOR.fullmatch(value.strip()):
        emit("E_PROPERTY_TYPE", path, f'{name} is not a colour: "{value}".', 'use "#rrggbb"')


def _check_texture(emit: Emit, name: str, value: Any, path: tuple[PathSeg, ...]) -> None:
    if value is None or isinstance(value, str):
        return
    if isinstance(value, dict) and isinstance(value.get("url"), str):
        return
    emit(
        "E_PROPERTY_TYPE",
        path,
        f"{name} must be a texture: {{ type: texture, url: res://… }} or a path string, got {describe(value)}.",
        None,
    )


_KIND_PROPS: dict[str, Prop] = {}


def kind_prop(kind: str) -> Prop:
    """A property of a bare value type (no options, no range): what a disk kind is checked as."""
    prop = _KIND_PROPS.get(kind)
    if prop is None:
        prop = _KIND_PROPS[kind] = Prop(kind, kind)
    return prop


def plainly_valid(prop: Prop, value: Any) -> bool:
    """Whether ``check_prop`` finds nothing and ``resource_value`` has nothing to check: the
    common values (a number in range, a vector of numbers, an option, a flag, a text, a colour)
    answered without a call into the value checks."""
    kind, vtype = prop.type, type(value)
    if kind == "number":
        return (
            (vtype is int or vtype is float)
            and value - value == 0  # finite
            and (not prop.positive or value > 0)
            and (prop.min is None or value >= prop.min)
            and (prop.max is None or value <= prop.max)
        )
    if kind in _VECTOR_N:
        if vtype is not list or len(value) < _VECTOR_N[kind]:
            return False
        for item in value[: _VECTOR_N[kind]]:
            if (type(item) is not int and type(item) is not float) or item - item != 0:
                return False
        return True
    if kind == "enum" or kind == "select":
        return value in prop.options if prop.options else True
    if kind == "color":
        return value is None or (vtype is str and _COLOR.fullmatch(value.strip()) is not None)
    if kind == "string" or kind == "node":
        return value is None or vtype is str
    return kind == "boolean" and vtype is bool


def check_prop(emit: Emit, name: str, value: Any, path: tuple[PathSeg, ...], prop: Prop) -> None:
    """A value against a schema property (its PropertyType and rules)."""
    kind = prop.type
    if kind == "number":
        _check_number(emit, name, value, path, prop)
    elif kind == "boolean":
        if not isinstance(value, bool):
            fix = f"write {name}: {value} (no quotes)" if value in ("true", "false") else None
            emit("E_PROPERTY_TYPE", path, f"{name} must be true or false, got {describe(value)}.", fix)
    elif kind in ("string", "resource"):
        if value is not None and not isinstance(value, str):
            fix = f'quote it: {name}: "{js_string(value)}"' if isinstance(value, int | float) else None
            emit("E_PROPERTY_TYPE", path, f"{name} must be a string, got {describe(value)}.", fix)
    elif kind == "color":
        _check_color(emit, name, value, path)
    elif kind in ("enum", "select"):
        if prop.options and value not in prop.options:
            options = ", ".join(f'"{o}"' for o in prop.options)
            fix = None
            if isinstance(value, str):
                for option in prop.options:
                    if option.lower() == value.lower():
                        fix = f"write {name}: {option}"
                        break
            emit("E_PROPERTY_ENUM", path, f"{name} is {describe(value)}; allowed: {options}.", fix)
    elif kind in _VECTOR_N:
        _check_vector(emit, name, value, path, _VECTOR_N[kind])
    elif kind == "node":
        if value is not None and not isinstance(value, str):
            emit("E_PROPERTY_TYPE", path, f"{name} must be a string, got {describe(value)}.", None)
    elif kind == "texture":
        _check_texture(emit, name, value, path)


def check_kind(
    emit: Emit, name: str, value: Any, path: tuple[PathSeg, ...], kind: str, options: tuple[str, ...] = ()
) -> None:
    """A value against a disk kind (an extra with no schema property behind it)."""
    if kind == "texture":
        _check_texture(emit, name, value, path)
    elif kind == "resource-path":
        if value is not None and not isinstance(value, str):
            emit("E_PROPERTY_TYPE", path, f"{name} must be a string, got {describe(value)}.", None)
    elif kind == "array":
        if not isinstance(value, list):
            emit("E_PROPERTY_TYPE", path, f"{name} must be a list, got {describe(value)}.", None)
    elif kind == "record":
        if not isinstance(value, dict):
            emit("E_PROPERTY_TYPE", path, f"{name} must be a mapping, got {describe(value)}.", None)
    elif kind == "enum" and options:
        if value not in options:
            emit("E_PROPERTY_ENUM", path, f"{name} is {describe(value)}; allowed: {', '.join(options)}.", None)
    else:
        check_prop(emit, name, value, path, kind_prop(kind))
