"""What a scene's 2D nodes draw with (docs/tree.md, "Drawing data"): each node's properties by schema
name, as the runtime holds them after loading the file, for the one 2D renderer the editor page's
scene view and a plain-JavaScript game share (docs/game-page.md, "A plain-JavaScript game").

The scene model decides, the renderer only draws: the documented defaults of the type's schema,
the disk keys read through the disk-format descriptor (``transform.position`` → ``position``,
``layout.enabled`` → ``layoutEnabled``, ``texturePath`` → ``texture``), texture references made
project paths, and the rect the layout pass gives a W21-anchored node (``resolved`` of the outline).
"""

from __future__ import annotations

import math
from typing import Any

from pix3tools.project import project_path
from pix3tools.scene import MISSING, classify_key, resolve_node_type, type_format
from pix3tools.tree._outline import Node
from pix3tools.tree._text import is_number, tidy_number

__all__ = ["DEFAULT_VIEWPORT", "draw_record", "draw_viewport"]

# The starters' design size (docs/new.md, "The project"): what a manifest without
# `viewportBaseSize` is drawn at.
DEFAULT_VIEWPORT = (1920.0, 1080.0)
_VECTOR_PROPS = frozenset({"position", "scale", "anchor", "tileScale", "tileOffset", "offset"})


def draw_viewport(size: tuple[float | None, float | None]) -> list[float | None]:
    """The design size the roots are laid out in: the manifest's, else the starters'."""
    return [
        tidy_number(given if given is not None and math.isfinite(given) and given > 0 else fallback)
        for given, fallback in zip(size, DEFAULT_VIEWPORT, strict=True)
    ]


def _vector2(value: Any) -> list[float] | None:
    if isinstance(value, list) and len(value) >= 2 and all(is_number(v) for v in value[:2]):
        return [value[0], value[1]]
    if isinstance(value, dict) and is_number(value.get("x")) and is_number(value.get("y")):
        return [value["x"], value["y"]]
    return None


def _texture(value: Any) -> str | None:
    """A texture slot (``{type: texture, url}`` or a path) as a project path, else None."""
    url = value.get("url") if isinstance(value, dict) else value
    return project_path(url) if isinstance(url, str) and url.strip() else None


def _value(name: str, kind: str, value: Any) -> Any:
    if kind == "texture":
        return _texture(value)
    if name in _VECTOR_PROPS or kind == "vector2":
        return _vector2(value)
    return value


def draw_record(node: Node) -> dict[str, Any]:
    """``{"family": "2d", "props": {...}}`` for a plain 2D node; ``{"family": <3d|base>}`` for
    the others, ``{"family": None}`` for an unknown type or an instance (not expanded)."""
    if node.instance is not None:
        return {"family": None}
    canonical, _ = resolve_node_type(node.type)
    if canonical is None:
        return {"family": None}
    fmt = type_format(canonical)
    if fmt.family != "2d":
        return {"family": fmt.family}
    props: dict[str, Any] = {name: prop.default for name, prop in fmt.schema.items() if prop.default is not MISSING}
    nested: list[tuple[str, Any]] = []
    for key, value in node.properties.items():
        kind = classify_key(fmt, key)
        if kind == "schema":
            props[key] = value
        elif kind == "extra":
            rule = fmt.extras[key]
            if rule.nested and isinstance(value, dict):
                nested += [
                    (sub.schema_name, value[k]) for k, sub in rule.nested.items() if sub.schema_name and k in value
                ]
            elif not rule.nested:
                target = rule.schema_name or (key if key in fmt.schema else None)
                if target is not None:
                    nested.append((target, value))
    props.update(nested)  # a nested spelling (transform.position) wins over the flat read-compat one
    for name in list(props):
        schema = fmt.schema.get(name)
        props[name] = _value(name, schema.type if schema is not None else "", props[name])
    for name, fallback in (("position", [0, 0]), ("scale", [1, 1])):
        if props.get(name) is None:
            props[name] = fallback
    if node.resolved_position is not None:
        x, y = node.resolved_position[0], node.resolved_position[1]
        props["position"] = [props["position"][0] if x is None else x, props["position"][1] if y is None else y]
    if node.resolved_size is not None:
        width, height = node.resolved_size
        if width is not None:
            props["width"] = width
        if height is not None:
            props["height"] = height
    return {"family": "2d", "props": props}
