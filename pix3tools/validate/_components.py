"""Level 1 for a node's ``components:`` list: entry shape, ``core:`` ids and their config,
``user:`` ids against the scripts' exports (docs/validate.md, "What level 1 checks")."""

from __future__ import annotations

from typing import Any

from pix3tools.scene import COMPONENTS
from pix3tools.validate._scenecheck import Path_, SceneCheck
from pix3tools.validate._suggest import nearest
from pix3tools.validate._values import check_prop, describe, plainly_valid

__all__ = ["COMPONENT_KEYS", "check_components"]

COMPONENT_KEYS = ("id", "type", "enabled", "config")


def check_components(c: SceneCheck, components: Any, at: Path_) -> None:
    if not isinstance(components, list):
        c.emit(
            "E_SHAPE",
            at,
            f"components: must be a list, got {describe(components)}.",
            "write each component as a list item: components:\\n  - type: core:Rotate",
        )
        return
    for index, comp in enumerate(components):
        _component(c, comp, (*at, index))


def _component(c: SceneCheck, comp: Any, at: Path_) -> None:
    if not isinstance(comp, dict):
        c.emit("E_SHAPE", at, "A component must be a mapping with type:.")
        return
    for key in comp:
        if key not in COMPONENT_KEYS:
            c.emit(
                "E_SHAPE",
                (*at, key),
                f'"{key}" is not a component key (allowed: {", ".join(COMPONENT_KEYS)}).',
                "component settings go under config:",
            )
    ctype = comp.get("type")
    if not isinstance(ctype, str) or not ctype.strip():
        c.emit(
            "E_SHAPE",
            at,
            "The component has no type: — the loader parks it as an unregistered component.",
            "add type: core:<Name> or user:<ExportedClass>",
        )
        return
    if "enabled" in comp and not isinstance(comp["enabled"], bool):
        c.emit("E_SHAPE", (*at, "enabled"), "enabled: must be true or false.")
    if "id" in comp and not isinstance(comp["id"], str):
        c.emit("E_SHAPE", (*at, "id"), "A component id: must be a string.")
    config = comp.get("config")
    if config is not None and not isinstance(config, dict):
        c.emit("E_SHAPE", (*at, "config"), "config: must be a mapping.")
        config = None
    config = config or {}
    if ctype.startswith("core:"):
        _core(c, ctype, config, at)
    elif ctype.startswith("user:"):
        _user(c, ctype, at)
    else:
        core = f"core:{ctype}"
        c.emit(
            "E_UNKNOWN_COMPONENT",
            (*at, "type"),
            f'Component type "{ctype}" has no namespace: built-ins are core:<Name>, project scripts'
            " user:<ExportedClass>.",
            f"type: {core}" if core in COMPONENTS else f"type: user:{ctype}",
        )
    c.walk_strings(config, (*at, "config"), None)


def _core(c: SceneCheck, ctype: str, config: dict[str, Any], at: Path_) -> None:
    schema = COMPONENTS.get(ctype)
    if schema is None:
        guess = nearest(ctype, list(COMPONENTS))
        c.emit(
            "E_UNKNOWN_COMPONENT",
            (*at, "type"),
            f"{ctype} is not a built-in component; the loader parks it and it never runs.",
            f"type: {guess}" if guess else None,
        )
        return
    for key, value in config.items():
        prop = schema.props.get(key)
        if prop is not None and plainly_valid(prop, value):
            continue
        where = (*at, "config", key)
        if prop is None:
            if schema.complete:
                declared = ", ".join(schema.props) or "none"
                guess = nearest(str(key), list(schema.props))
                c.emit(
                    "E_UNKNOWN_CONFIG_KEY",
                    where,
                    f'{ctype} has no setting "{key}" (declared: {declared}); it is kept and ignored.',
                    f"did you mean {guess}?" if guess else None,
                )
            continue
        check_prop(c.emit, str(key), value, where, prop)
        c.resource_value(prop.type, value, where)


def _user(c: SceneCheck, ctype: str, at: Path_) -> None:
    c.out.uses_user = True
    name = ctype[5:]
    scripts = c.project.scripts
    if name not in scripts.ids and not scripts.opaque:
        guess = nearest(name, list(scripts.ids))
        c.emit(
            "E_USER_SCRIPT_NOT_FOUND",
            (*at, "type"),
            f"No script under scripts/ (or src/scripts/) exports a Script class named {name}; the component"
            ' would stay unregistered. The id is the EXPORT name, and the file must contain "extends Script".',
            f"type: user:{guess}" if guess else f"create scripts/{name}.ts with export class {name} extends Script",
        )
