"""Level 1 for an instance node (``instance: res://…``): the prefab it names (missing, a cycle,
not one root), its properties against the prefab root's type, and ``overrides.byLocalId``
(docs/validate.md, "What level 1 checks"). What a link stands for is the project model's instance resolver."""

from __future__ import annotations

from typing import Any

from pix3tools.project import only_root, project_path
from pix3tools.scene import resolve_node_type, type_format
from pix3tools.validate._keys import collect_keys, own_texture
from pix3tools.validate._scenecheck import Path_, SceneCheck
from pix3tools.validate._suggest import nearest
from pix3tools.validate._values import check_prop

__all__ = ["INSTANCE_TRANSFORM_KEYS", "check_instance"]

INSTANCE_TRANSFORM_KEYS = ("position", "translate", "rotationEuler", "rotation", "euler", "scale")
_TRANSFORM_SCHEMA = {
    "position": "position",
    "translate": "position",
    "rotationEuler": "rotation",
    "rotation": "rotation",
    "euler": "rotation",
    "scale": "scale",
}


def check_instance(c: SceneCheck, node: dict[str, Any], props: dict[str, Any], at: Path_) -> None:
    for key in ("children", "components"):
        if key in node:
            c.emit(
                "E_SHAPE",
                (*at, key),
                f"{key}: on an instance node is ignored — the node's content comes from the prefab.",
                "move them into the prefab, or wrap the instance in a parent node",
            )
    ref = node.get("instance")
    where = (*at, "instance")
    if not isinstance(ref, str) or not ref.strip():
        c.emit("E_SHAPE", where, "instance: must be a res:// path to a .pix3scene prefab.")
        return
    target = project_path(ref)
    if target is None or not c.project.files.exists(target):
        c.emit("E_MISSING_PREFAB", where, f"Prefab {ref} does not exist; the loader fails the whole scene.")
        return
    c.out.references.add(target)
    prefabs = c.project.prefabs
    cycle = prefabs.cycle(c.rel, target)
    if cycle:
        c.emit("E_PREFAB_CYCLE", where, f"Prefab instances form a cycle: {' -> '.join(cycle)}.")
        return
    roots = prefabs.roots(target)
    if roots is None:  # does not parse: reported when that file is validated
        c.walk_strings(props, (*at, "properties"), None)
        return
    if len(roots) != 1:
        c.emit(
            "E_PREFAB_ROOT",
            where,
            f"Prefab {ref} has {len(roots)} root nodes; an instanced prefab must have exactly one.",
        )
        c.walk_strings(props, (*at, "properties"), None)
        return
    root_node, root_type = _effective(c, roots[0], {target})
    _instance_props(c, root_type, props, (*at, "properties"))
    own = own_texture(root_node.get("properties") or {}) if isinstance(root_node, dict) else False
    collect_keys(c.out.key_uses, c.node_id, root_type, props, at, own)
    _overrides(c, node.get("overrides"), roots[0], (*at, "overrides"), {target})
    c.walk_strings(props, (*at, "properties"), None)


def _effective(c: SceneCheck, node: Any, seen: set[str]) -> tuple[Any, str | None]:
    """The node an instance really is (following instance-of-instance), and its type."""
    node, complete = c.project.prefabs.innermost(node, seen, only_root)
    if not complete or not isinstance(node, dict):
        return node, None
    authored = node.get("type")
    if not isinstance(authored, str):
        return node, "Node3D"
    found, _ = resolve_node_type(authored)
    return node, (found if found and found != "Layout2D" else None)


def _instance_props(c: SceneCheck, type_name: str | None, props: dict[str, Any], at: Path_) -> None:
    if type_name is None:
        return
    fmt = type_format(type_name)
    for key, value in props.items():
        where = (*at, key)
        if key == "transform":
            if not isinstance(value, dict):
                c.emit("E_PROPERTY_TYPE", where, "transform must be a mapping.")
                continue
            for sub, sub_value in value.items():
                if sub not in INSTANCE_TRANSFORM_KEYS:
                    c.emit(
                        "E_UNKNOWN_PROPERTY",
                        (*where, sub),
                        f"transform.{sub} is not applied to an instance (known: {', '.join(INSTANCE_TRANSFORM_KEYS)}).",
                    )
                    continue
                prop = fmt.schema.get(_TRANSFORM_SCHEMA[sub])
                if prop is not None:
                    check_prop(c.emit, f"transform.{sub}", sub_value, (*where, sub), prop)
            continue
        prop = fmt.schema.get(key)
        if prop is None or key in fmt.not_stored:
            guess = nearest(str(key), [n for n in fmt.schema if n not in fmt.not_stored])
            c.emit(
                "E_UNKNOWN_PROPERTY",
                where,
                f'The prefab\'s {fmt.name} has no property "{key}"; on an instance (and in overrides) properties'
                " are the node's schema names.",
                f"did you mean {guess}?" if guess else None,
            )
            continue
        check_prop(c.emit, str(key), value, where, prop)
        c.resource_value(prop.type, value, where)


def _overrides(c: SceneCheck, overrides: Any, prefab_root: Any, at: Path_, seen: set[str]) -> None:
    if overrides is None:
        return
    by_local = overrides.get("byLocalId") if isinstance(overrides, dict) else None
    if not isinstance(overrides, dict) or (by_local is not None and not isinstance(by_local, dict)):
        c.emit(
            "E_SHAPE",
            at,
            "overrides: must be a mapping of the form { byLocalId: { <node path>: { properties: … } } }.",
        )
        return
    prefabs = c.project.prefabs
    for key, entry in (by_local or {}).items():
        where = (*at, "byLocalId", key)
        if not isinstance(entry, dict) or ("properties" in entry and not isinstance(entry["properties"], dict)):
            c.emit("E_SHAPE", where, "An override entry must be { properties: { … } }.")
            continue
        found, determined = prefabs.override_target(prefab_root, str(key), set(seen))
        if not determined:
            continue
        if found is None:
            c.emit(
                "E_UNKNOWN_OVERRIDE_TARGET",
                where,
                f'The prefab has no node at "{key}"; the loader warns and drops this override.',
                "override keys are node ids from the prefab root, joined with / for nested nodes",
            )
            continue
        _, type_name = _effective(c, found, set(seen))
        entry_props = entry.get("properties") or {}
        _instance_props(c, type_name, entry_props, (*where, "properties"))
        c.walk_strings(entry_props, (*where, "properties"), None)
