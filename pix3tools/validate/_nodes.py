"""Level 1 for one ``.pix3scene``: the document, each node's shape, type and properties
(docs/validate.md, "What level 1 checks"). Components and instance nodes have their own modules."""

from __future__ import annotations

import json
from typing import Any

from pix3tools.scene import (
    CURRENT_SCENE_FORMAT_VERSION,
    DiskRule,
    Document,
    Prop,
    TypeFormat,
    classify_key,
    format_path,
    node_type_elsewhere,
    resolve_node_type,
    suggest_node_type,
    type_format,
)
from pix3tools.validate._components import check_components
from pix3tools.validate._context import ValidateProject
from pix3tools.validate._instances import check_instance
from pix3tools.validate._keys import collect_keys, own_texture
from pix3tools.validate._scenecheck import TEXT_KEYS, Path_, SceneCheck, SceneResult, worth_a_look
from pix3tools.validate._suggest import nearest
from pix3tools.validate._values import check_kind, check_prop, describe, js_string, kind_prop, plainly_valid

__all__ = ["DOC_KEYS", "NODE_KEYS", "check_scene"]

DOC_KEYS = ("version", "description", "metadata", "root")
NODE_KEYS = (
    "id",
    "type",
    "name",
    "instance",
    "instancePath",
    "groups",
    "properties",
    "metadata",
    "children",
    "components",
    "overrides",
)
_DOC_KEYS = frozenset(DOC_KEYS)
_NODE_KEYS = frozenset(NODE_KEYS)


def check_scene(project: ValidateProject, rel: str, doc: Document) -> SceneResult:
    """All level-1 scene-document rules for one parsed scene."""
    c = SceneCheck(project, rel, doc)
    _document(c)
    return c.out


def _document(c: SceneCheck) -> None:
    data = c.doc.data
    if not isinstance(data, dict):
        kind = "an empty document" if data is None else describe(data)
        c.emit(
            "E_SHAPE",
            (),
            f"A scene must be a YAML mapping with a root: list, got {kind}.",
            "start the file with `version: 1.0.0` and `root:`",
        )
        return
    for key in data:
        if key not in _DOC_KEYS:
            c.emit(
                "E_SHAPE",
                (key,),
                f'"{key}" is not a scene document key (allowed: {", ".join(DOC_KEYS)}); the loader ignores it.',
                "rename it to root:" if key in ("nodes", "children") else None,
            )
    if data.get("metadata") is not None and not isinstance(data["metadata"], dict):
        c.emit("E_SHAPE", ("metadata",), "metadata: must be a mapping.")
    if "version" not in data:
        c.emit(
            "W_LEGACY_VERSION",
            (),
            f"The scene has no version:; the current format is {CURRENT_SCENE_FORMAT_VERSION}.",
            f"add version: {CURRENT_SCENE_FORMAT_VERSION}",
        )
    elif js_string(data["version"]) != CURRENT_SCENE_FORMAT_VERSION:
        c.emit(
            "W_LEGACY_VERSION",
            ("version",),
            f"Scene format version {js_string(data['version'])} is not the current {CURRENT_SCENE_FORMAT_VERSION};"
            f" the loader has no migrations and reads it as {CURRENT_SCENE_FORMAT_VERSION}.",
            f"set version: {CURRENT_SCENE_FORMAT_VERSION}",
        )
    root = data.get("root")
    if root is None:
        c.emit(
            "E_SHAPE",
            (),
            "The scene has no root: list — it would load as an empty scene.",
            "add root: with at least one node",
        )
        return
    if not isinstance(root, list):
        c.emit(
            "E_SHAPE",
            ("root",),
            f"root: must be a list of nodes, got {describe(root)}.",
            "write each root node as a list item: root:\\n  - id: …",
        )
        return
    for index, node in enumerate(root):
        _node(c, node, ("root", index))


def _node(c: SceneCheck, node: Any, at: Path_) -> None:
    c.node_id = None
    if not isinstance(node, dict):
        c.emit("E_SHAPE", at, f"A node must be a mapping with at least id: and type:, got {describe(node)}.")
        return
    node_id = node.get("id")
    valid_id = isinstance(node_id, str) and node_id.strip() != ""
    c.node_id = node_id if valid_id else None
    if "id" not in node:
        c.emit(
            "E_SHAPE",
            at,
            "The node has no id: — the loader accepts it with an undefined id, and a second one collides.",
            "give every node a unique string id:",
        )
    elif not valid_id:
        c.emit(
            "E_SHAPE",
            (*at, "id"),
            f"id: must be a non-empty string, got {json.dumps(node_id, default=str)}.",
            "give every node a unique string id:",
        )
    if isinstance(node_id, str) and valid_id:
        first = c.ids.get(node_id)
        if first is not None:
            c.emit(
                "E_DUPLICATE_ID",
                (*at, "id"),
                f'Duplicate node id "{node_id}" (first used at {format_path(first)}); the loader rejects the scene.',
                "rename one of them",
            )
        else:
            c.ids[node_id] = at
    for key in () if _NODE_KEYS.issuperset(node) else node:
        if key not in _NODE_KEYS:
            c.emit(
                "E_SHAPE",
                (*at, key),
                f'"{key}" is not a node key (allowed: {", ".join(NODE_KEYS)}); the loader ignores it.',
                "if it is a property, move it under properties:",
            )
    if "name" in node and not isinstance(node["name"], str):
        c.emit("E_SHAPE", (*at, "name"), "name: must be a string.")
    if "type" in node and not isinstance(node["type"], str):
        c.emit("E_SHAPE", (*at, "type"), "type: must be a string.")
    if "groups" in node:
        groups = node["groups"]
        if not (isinstance(groups, list) and all(isinstance(g, str) for g in groups)):
            c.emit("E_SHAPE", (*at, "groups"), "groups: must be a list of strings.")
    if "metadata" in node and node["metadata"] is not None and not isinstance(node["metadata"], dict):
        c.emit("E_SHAPE", (*at, "metadata"), "metadata: must be a mapping.")
    props = node.get("properties")
    if props is not None and not isinstance(props, dict):
        c.emit("E_SHAPE", (*at, "properties"), f"properties: must be a mapping, got {describe(props)}.")
        props = {}
    props = props or {}
    if "instance" in node:
        check_instance(c, node, props, at)
        return
    _plain(c, node, props, at)
    components = node.get("components")
    if components is not None:
        check_components(c, components, (*at, "components"))
    children = node.get("children")
    if children is not None:
        if not isinstance(children, list):
            c.node_id = node_id if valid_id else None
            c.emit("E_SHAPE", (*at, "children"), f"children: must be a list of nodes, got {describe(children)}.")
        else:
            for index, child in enumerate(children):
                _node(c, child, (*at, "children", index))


def _plain(c: SceneCheck, node: dict[str, Any], props: dict[str, Any], at: Path_) -> None:
    authored = node.get("type")
    canonical = "Node3D"
    if isinstance(authored, str):
        found, how = resolve_node_type(authored)
        if found == "Layout2D":
            c.emit(
                "E_UNKNOWN_NODE_TYPE",
                (*at, "type"),
                "Layout2D is no longer supported; the loader rejects the scene.",
                "use a Group2D (or Node2D) with layout: anchors",
            )
            return
        if found is None:
            name = node.get("name") if isinstance(node.get("name"), str) else None
            label = name or (node.get("id") if isinstance(node.get("id"), str) else None) or "?"
            suggestion = suggest_node_type(authored)
            message = (
                f'Unknown node type "{authored}" on node "{label}" — it was loaded as an inert placeholder and'
                " does nothing."
            )
            if suggestion:
                message += f' Did you mean "{suggestion}"?'
                # The reference's sentence stays as it is; a name from another engine gets one more.
                other = node_type_elsewhere(authored)
                if other is not None and other[1] == suggestion:
                    calls = "call" if " and " in other[2] else "calls"
                    message += f" ({other[2]} {calls} it {other[0]}.)"
            c.emit("E_UNKNOWN_NODE_TYPE", (*at, "type"), message, f"type: {suggestion}" if suggestion else None)
            return
        if how != "exact":
            message = (
                f"type: {authored} loads as {found}, but only because the loader forgives case and separators;"
                " the editor rewrites it on save."
                if how == "case"
                else f"type: {authored} is a read-compat alias of {found}; the editor rewrites it on save."
            )
            c.emit("W_TYPE_CASE", (*at, "type"), message, f"type: {found}")
        canonical = found
    fmt = type_format(canonical)
    kinds, schema, extras = fmt.kinds, fmt.schema, fmt.extras
    base = (*at, "properties")
    look: list[Any] = []  # the keys whose values the string walk has something to find in
    for key, value in props.items():
        # The common case first, with no path built: a schema value plainly valid, or an extra
        # block (transform, layout…) whose every part is (docs/validate.md, "Performance").
        kind = kinds.get(key)
        vtype = type(value)
        if kind == "schema":
            prop = schema[key]
            if plainly_valid(prop, value):
                if vtype is str:
                    if (value[:1] in "rR" and value[:6].lower() == "res://") or (
                        key in TEXT_KEYS and not value.isascii()
                    ):
                        look.append(key)
                elif vtype is list and worth_a_look(value, key):
                    look.append(key)
                continue
            _property(c, fmt, key, value, (*base, key))
            if vtype is dict and prop.type == "texture" and _texture_slot(value):
                continue  # its url was checked with the property; "type" holds no text
        elif kind == "extra":
            verdict = _clean(fmt, extras[key], value, key)
            if verdict:
                if verdict == _LOUD:
                    look.append(key)
                continue
            _property(c, fmt, key, value, (*base, key))
        else:
            _property(c, fmt, key, value, (*base, key))
        if (vtype is str or vtype is dict or vtype is list) and worth_a_look(value, str(key)):
            look.append(key)
    collect_keys(c.out.key_uses, c.node_id, fmt.name, props, at, own_texture(props))
    if canonical == "AnimatedSprite3D" and "frames" in props:
        _frames(c, props["frames"], (*base, "frames"))
    # The string walk after every property's own check (a reference checked there is not
    # reported twice), over the values it has something to find in, in document order.
    for key in look:
        c.walk_strings(props[key], (*base, key), str(key))


def _property(c: SceneCheck, fmt: TypeFormat, key: str, value: Any, at: Path_) -> None:
    kind = classify_key(fmt, key)
    if kind == "schema":
        prop = fmt.schema[key]
        if plainly_valid(prop, value):
            return
        check_prop(c.emit, key, value, at, prop)
        c.resource_value(prop.type, value, at)
    elif kind == "write-only":
        c.emit(
            "W_WRITE_ONLY_PROPERTY",
            at,
            f"{fmt.name}.{key} is saved by the editor but not read back by the loader, so it has no effect after"
            " a reload.",
            "remove it",
        )
    elif kind == "extra":
        _rule(c, fmt, key, fmt.extras[key], value, at)
    elif kind == "relocated":
        where = fmt.relocated[key]
        c.emit(
            "E_UNKNOWN_PROPERTY",
            at,
            f'{fmt.name} does not read "{key}" here — on disk it lives at {where}. As written it loads, is saved'
            " back, and does nothing.",
            f"move it to properties.{where}",
        )
    elif kind == "not-stored":
        entry = key in ("id", "name", "type", "groups")
        c.emit(
            "E_UNKNOWN_PROPERTY",
            at,
            f'"{key}" is not stored under properties: — {fmt.not_stored[key]}.',
            f"move it up to the node entry ({key}:)" if entry else "remove it",
        )
    else:
        candidates = [n for n in fmt.schema if classify_key(fmt, n) == "schema"] + list(fmt.extras)
        guess = nearest(key, candidates)
        c.emit(
            "E_UNKNOWN_PROPERTY",
            at,
            f'{fmt.name} has no property "{key}"; the loader keeps it, saves it back, and nothing reads it.',
            f"did you mean {guess}?" if guess else None,
        )


def _texture_slot(value: dict[Any, Any]) -> bool:
    """``{ type: texture, url: <string> }`` (either key may be missing): after the property's own
    check referenced the url, the string walk has nothing left to find in it."""
    if not isinstance(value.get("url"), str):
        return False
    for key, item in value.items():
        if key == "type":
            if type(item) is not str or worth_a_look(item, "type"):
                return False
        elif key != "url":
            return False
    return True


# What _clean answers: the rule would report something (or check a reference); nothing, and the
# string walk has nothing to find either; nothing, but the walk must look (a res:// string…).
_UNCLEAN, _QUIET, _LOUD = 0, 1, 2


_VECTOR_N = {"vector2": 2, "vector3": 3, "euler": 3, "vector4": 4}
_LEAVES: dict[tuple[str, int], dict[str, Prop]] = {}


def _leaves(fmt: TypeFormat, rule: DiskRule) -> dict[str, Prop]:
    """The nested keys of a record rule that are plain leaves for this type: a schema property,
    no read-compat spelling, nothing nested (what ``_clean`` would check with one call)."""
    key = (fmt.name, id(rule))
    found = _LEAVES.get(key)
    if found is None:
        found = {}
        for name, sub in rule.nested.items():
            prop = fmt.schema.get(sub.schema_name) if sub.schema_name else None
            if prop is not None and not sub.preferred and not sub.nested:
                found[name] = prop
        _LEAVES[key] = found
    return found


def _clean(fmt: TypeFormat, rule: DiskRule, value: Any, near: str) -> int:
    """Whether ``_rule`` would find nothing and note nothing (no reference) for this value under
    key ``near``, and whether the string walk has anything to find in it (``_UNCLEAN`` /
    ``_QUIET`` / ``_LOUD``)."""
    if rule.preferred:
        return _UNCLEAN
    vtype = type(value)
    prop = fmt.schema.get(rule.schema_name) if rule.schema_name else None
    if prop is not None:
        if not plainly_valid(prop, value):
            return _UNCLEAN
    elif rule.kind == "record":
        if vtype is not dict:
            return _UNCLEAN
    elif rule.kind == "array":
        if vtype is not list:
            return _UNCLEAN
    elif rule.kind == "enum":
        if rule.options and value not in rule.options:
            return _UNCLEAN
    elif not plainly_valid(kind_prop(rule.kind), value):
        return _UNCLEAN
    if vtype is dict:
        nested = rule.nested
        if not nested:
            return _LOUD if worth_a_look(value, near) else _QUIET
        verdict = _QUIET
        leaves = _leaves(fmt, rule)
        for key, sub in value.items():
            prop = leaves.get(key)
            if prop is not None:  # a plain leaf (position, scale, enabled…): no call per part
                if not plainly_valid(prop, sub):
                    return _UNCLEAN
                sub_type = type(sub)
                if ((sub_type is list and len(sub) != _VECTOR_N.get(prop.type)) or sub_type is str) and worth_a_look(
                    sub, str(key)
                ):
                    verdict = _LOUD
                continue
            sub_rule = nested.get(key)
            if sub_rule is None:
                return _UNCLEAN
            found = _clean(fmt, sub_rule, sub, str(key))
            if found == _UNCLEAN:
                return _UNCLEAN
            if found == _LOUD:
                verdict = _LOUD
        return verdict
    if vtype is str or vtype is list:
        return _LOUD if worth_a_look(value, near) else _QUIET
    return _QUIET


def _rule(c: SceneCheck, fmt: TypeFormat, name: str, rule: DiskRule, value: Any, at: Path_) -> None:
    if rule.preferred:
        c.emit(
            "W_LEGACY_KEY",
            at,
            f"{name} is a read-compat spelling; the editor saves it as {rule.preferred}.",
            f"rename to {rule.preferred}",
        )
    prop = fmt.schema.get(rule.schema_name) if rule.schema_name else None
    if prop is not None:
        if not plainly_valid(prop, value):
            check_prop(c.emit, name, value, at, prop)
            c.resource_value(prop.type, value, at)
    elif rule.kind == "enum" and not rule.options:
        pass
    else:
        check_kind(c.emit, name, value, at, rule.kind, rule.options)
        if rule.kind in ("texture", "resource-path"):
            c.resource_value("texture", value, at)
    if rule.nested and isinstance(value, dict):
        for key, sub in value.items():
            sub_rule = rule.nested.get(key)
            if sub_rule is None:
                guess = nearest(str(key), list(rule.nested))
                c.emit(
                    "E_UNKNOWN_PROPERTY",
                    (*at, key),
                    f"{name}.{key} is not read by the loader (known: {', '.join(rule.nested)}).",
                    f"did you mean {name}.{guess}?" if guess else None,
                )
            else:
                _rule(c, fmt, f"{name}.{key}", sub_rule, sub, (*at, key))


def _frames(c: SceneCheck, frames: Any, at: Path_) -> None:
    if not isinstance(frames, list):
        return
    for index, entry in enumerate(frames):
        where = (*at, index)
        if isinstance(entry, str) and entry.strip():
            c.reference(entry, where)
        elif isinstance(entry, dict) and isinstance(entry.get("url"), str) and entry["url"].strip():
            c.reference(entry["url"], (*where, "url"))
        else:
            c.checked.add(where)
            c.emit(
                "E_PROPERTY_TYPE",
                where,
                f"frames[{index}] must be an image path or {{ url }}, got {describe(entry)}: a blank frame.",
                "write each frame as res://path/to/frame.png",
            )
