"""Level 1 for one ``.pix3scene`` (spec/validate.md §2.2): document, nodes, properties,
components, instances and overrides, resources, emoji, collected locale keys."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pix3tools.scene import (
    COMPONENTS,
    CURRENT_SCENE_FORMAT_VERSION,
    DiskRule,
    Document,
    PathSeg,
    Prop,
    TypeFormat,
    classify_key,
    format_path,
    project_path,
    resolve_node_type,
    suggest_node_type,
    type_format,
)
from pix3tools.validate._context import Project
from pix3tools.validate._emoji import is_emoji_only
from pix3tools.validate._report import Diagnostic
from pix3tools.validate._suggest import nearest
from pix3tools.validate._values import check_kind, check_prop, js_string

__all__ = ["KeyUse", "SceneResult", "check_scene"]

Path_ = tuple[PathSeg, ...]

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
COMPONENT_KEYS = ("id", "type", "enabled", "config")
INSTANCE_TRANSFORM_KEYS = ("position", "translate", "rotationEuler", "rotation", "euler", "scale")
_TRANSFORM_SCHEMA = {
    "position": "position",
    "translate": "position",
    "rotationEuler": "rotation",
    "rotation": "rotation",
    "euler": "rotation",
    "scale": "scale",
}
TEXT_KEYS = frozenset({"label", "text", "placeholder", "title", "caption", "buttonText", "labelText", "content"})
BUTTON_STATES = ("normal", "hover", "pressed", "disabled")


def _plainly_valid(prop: Prop, value: Any) -> bool:
    """The common case without a call into the value checks: a plain number, flag or string."""
    kind, vtype = prop.type, type(value)
    if kind == "number":
        return (
            (vtype is int or vtype is float)
            and prop.min is None
            and prop.max is None
            and not prop.positive
            and value - value == 0  # finite
        )
    if kind in _VECTOR_SIZES:
        if vtype is not list or len(value) < _VECTOR_SIZES[kind]:
            return False
        for item in value[: _VECTOR_SIZES[kind]]:
            if (type(item) is not int and type(item) is not float) or item - item != 0:
                return False
        return True
    if kind == "enum":
        return value in prop.options if prop.options else True
    return (kind == "boolean" and vtype is bool) or (kind == "string" and vtype is str)


_VECTOR_SIZES = {"vector2": 2, "vector3": 3, "euler": 3, "vector4": 4}


def typeof(value: Any) -> str:
    """JavaScript ``typeof`` of a parsed YAML value."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def _got(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return typeof(value)


@dataclass(frozen=True)
class KeyUse:
    """A locale key a scene sets: ``kind`` is "label" or "sprite"; ``own_texture`` for sprites."""

    kind: str
    key: str
    prop: str
    node_id: str | None
    path: Path_
    own_texture: bool = True
    severe: bool = False  # a Sprite2D with no texture of its own: a missing image is an error


@dataclass
class SceneResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    references: set[str] = field(default_factory=set)
    key_uses: list[KeyUse] = field(default_factory=list)
    uses_user: bool = False


class _Checker:
    def __init__(self, project: Project, rel: str, doc: Document) -> None:
        self.project = project
        self.rel = rel
        self.doc = doc
        self.out = SceneResult()
        self.ids: dict[str, Path_] = {}
        self.node_id: str | None = None
        self.checked: set[Path_] = set()
        self.svg_seen: set[str] = set()

    # -- output -----------------------------------------------------------------------------------
    def emit(self, code: str, path: Path_, message: str, fix: str | None = None) -> None:
        self.out.diagnostics.append(
            Diagnostic(code, self.rel, message, node_id=self.node_id, path=tuple(path), fix=fix, doc=self.doc)
        )

    # -- document ---------------------------------------------------------------------------------
    def run(self) -> SceneResult:
        data = self.doc.data
        if not isinstance(data, dict):
            got = "an empty document" if data is None else typeof(data)
            self.emit(
                "E_SHAPE",
                (),
                f"A scene must be a YAML mapping with a root: list, got {got}.",
                "start the file with `version: 1.0.0` and `root:`",
            )
            return self.out
        for key in data:
            if key not in DOC_KEYS:
                self.emit(
                    "E_SHAPE",
                    (key,),
                    f'"{key}" is not a scene document key (allowed: {", ".join(DOC_KEYS)}); the loader ignores it.',
                    "rename it to root:" if key in ("nodes", "children") else None,
                )
        if data.get("metadata") is not None and not isinstance(data["metadata"], dict):
            self.emit("E_SHAPE", ("metadata",), "metadata: must be a mapping.")
        if "version" not in data:
            self.emit(
                "W_LEGACY_VERSION",
                (),
                f"The scene has no version:; the current format is {CURRENT_SCENE_FORMAT_VERSION}.",
                f"add version: {CURRENT_SCENE_FORMAT_VERSION}",
            )
        elif js_string(data["version"]) != CURRENT_SCENE_FORMAT_VERSION:
            self.emit(
                "W_LEGACY_VERSION",
                ("version",),
                f"Scene format version {js_string(data['version'])} is not the current {CURRENT_SCENE_FORMAT_VERSION};"
                f" the loader has no migrations and reads it as {CURRENT_SCENE_FORMAT_VERSION}.",
                f"set version: {CURRENT_SCENE_FORMAT_VERSION}",
            )
        root = data.get("root")
        if root is None:
            self.emit(
                "E_SHAPE",
                (),
                "The scene has no root: list — it would load as an empty scene.",
                "add root: with at least one node",
            )
            return self.out
        if not isinstance(root, list):
            self.emit(
                "E_SHAPE",
                ("root",),
                f"root: must be a list of nodes, got {_got(root)}.",
                "write each root node as a list item: root:\\n  - id: …",
            )
            return self.out
        for index, node in enumerate(root):
            self.node(node, ("root", index))
        return self.out

    # -- nodes ------------------------------------------------------------------------------------
    def node(self, node: Any, at: Path_) -> None:
        self.node_id = None
        if not isinstance(node, dict):
            got = "null" if node is None else typeof(node)
            self.emit("E_SHAPE", at, f"A node must be a mapping with at least id: and type:, got {got}.")
            return
        node_id = node.get("id")
        valid_id = isinstance(node_id, str) and node_id.strip() != ""
        self.node_id = node_id if valid_id else None
        if "id" not in node:
            self.emit(
                "E_SHAPE",
                at,
                "The node has no id: — the loader accepts it with an undefined id, and a second one collides.",
                "give every node a unique string id:",
            )
        elif not valid_id:
            self.emit(
                "E_SHAPE",
                (*at, "id"),
                f"id: must be a non-empty string, got {json.dumps(node_id, default=str)}.",
                "give every node a unique string id:",
            )
        if isinstance(node_id, str) and valid_id:
            first = self.ids.get(node_id)
            if first is not None:
                self.emit(
                    "E_DUPLICATE_ID",
                    (*at, "id"),
                    f'Duplicate node id "{node_id}" (first used at {format_path(first)}); the loader rejects the scene.',
                    "rename one of them",
                )
            else:
                self.ids[node_id] = at
        for key in node:
            if key not in NODE_KEYS:
                self.emit(
                    "E_SHAPE",
                    (*at, key),
                    f'"{key}" is not a node key (allowed: {", ".join(NODE_KEYS)}); the loader ignores it.',
                    "if it is a property, move it under properties:",
                )
        for key in ("name", "type"):
            if key in node and not isinstance(node[key], str):
                self.emit("E_SHAPE", (*at, key), f"{key}: must be a string.")
        groups = node.get("groups")
        if "groups" in node and not (isinstance(groups, list) and all(isinstance(g, str) for g in groups)):
            self.emit("E_SHAPE", (*at, "groups"), "groups: must be a list of strings.")
        if node.get("metadata") is not None and not isinstance(node["metadata"], dict):
            self.emit("E_SHAPE", (*at, "metadata"), "metadata: must be a mapping.")
        props = node.get("properties")
        if props is not None and not isinstance(props, dict):
            self.emit("E_SHAPE", (*at, "properties"), f"properties: must be a mapping, got {_got(props)}.")
            props = {}
        props = props or {}
        if "instance" in node:
            self.instance(node, props, at)
            return
        self.plain(node, props, at)
        components = node.get("components")
        if components is not None:
            self.components(components, (*at, "components"))
        children = node.get("children")
        if children is not None:
            if not isinstance(children, list):
                self.node_id = node_id if valid_id else None
                self.emit("E_SHAPE", (*at, "children"), f"children: must be a list of nodes, got {_got(children)}.")
            else:
                for index, child in enumerate(children):
                    self.node(child, (*at, "children", index))

    def plain(self, node: dict[str, Any], props: dict[str, Any], at: Path_) -> None:
        authored = node.get("type")
        canonical = "Node3D"
        if isinstance(authored, str):
            found, how = resolve_node_type(authored)
            if found == "Layout2D":
                self.emit(
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
                self.emit("E_UNKNOWN_NODE_TYPE", (*at, "type"), message, f"type: {suggestion}" if suggestion else None)
                return
            if how != "exact":
                message = (
                    f"type: {authored} loads as {found}, but only because the loader forgives case and separators;"
                    " the editor rewrites it on save."
                    if how == "case"
                    else f"type: {authored} is a read-compat alias of {found}; the editor rewrites it on save."
                )
                self.emit("W_TYPE_CASE", (*at, "type"), message, f"type: {found}")
            canonical = found
        fmt = type_format(canonical)
        for key, value in props.items():
            self.property(fmt, key, value, (*at, "properties", key))
        self.collect_keys(fmt.name, props, at, own_texture=self._own_texture(props))
        if canonical == "AnimatedSprite3D" and "frames" in props:
            self.frames(props["frames"], (*at, "properties", "frames"))
        self.walk_strings(props, (*at, "properties"), None)

    def property(self, fmt: TypeFormat, key: str, value: Any, at: Path_) -> None:
        kind = classify_key(fmt, key)
        if kind == "schema":
            prop = fmt.schema[key]
            if _plainly_valid(prop, value):
                return
            check_prop(self.emit, key, value, at, prop)
            self.resource_value(prop.type, value, at)
        elif kind == "write-only":
            self.emit(
                "W_WRITE_ONLY_PROPERTY",
                at,
                f"{fmt.name}.{key} is saved by the editor but not read back by the loader, so it has no effect after"
                " a reload.",
                "remove it",
            )
        elif kind == "extra":
            self.rule(fmt, key, fmt.extras[key], value, at)
        elif kind == "relocated":
            where = fmt.relocated[key]
            self.emit(
                "E_UNKNOWN_PROPERTY",
                at,
                f'{fmt.name} does not read "{key}" here — on disk it lives at {where}. As written it loads, is saved'
                " back, and does nothing.",
                f"move it to properties.{where}",
            )
        elif kind == "not-stored":
            entry = key in ("id", "name", "type", "groups")
            self.emit(
                "E_UNKNOWN_PROPERTY",
                at,
                f'"{key}" is not stored under properties: — {fmt.not_stored[key]}.',
                f"move it up to the node entry ({key}:)" if entry else "remove it",
            )
        else:
            candidates = [n for n in fmt.schema if classify_key(fmt, n) == "schema"] + list(fmt.extras)
            guess = nearest(key, candidates)
            self.emit(
                "E_UNKNOWN_PROPERTY",
                at,
                f'{fmt.name} has no property "{key}"; the loader keeps it, saves it back, and nothing reads it.',
                f"did you mean {guess}?" if guess else None,
            )

    def rule(self, fmt: TypeFormat, name: str, rule: DiskRule, value: Any, at: Path_) -> None:
        if rule.preferred:
            self.emit(
                "W_LEGACY_KEY",
                at,
                f"{name} is a read-compat spelling; the editor saves it as {rule.preferred}.",
                f"rename to {rule.preferred}",
            )
        prop = fmt.schema.get(rule.schema_name) if rule.schema_name else None
        if prop is not None:
            if not _plainly_valid(prop, value):
                check_prop(self.emit, name, value, at, prop)
                self.resource_value(prop.type, value, at)
        elif rule.kind == "enum" and not rule.options:
            pass
        else:
            check_kind(self.emit, name, value, at, rule.kind, rule.options)
            if rule.kind in ("texture", "resource-path"):
                self.resource_value("texture", value, at)
        if rule.nested and isinstance(value, dict):
            for key, sub in value.items():
                sub_rule = rule.nested.get(key)
                if sub_rule is None:
                    guess = nearest(str(key), list(rule.nested))
                    self.emit(
                        "E_UNKNOWN_PROPERTY",
                        (*at, key),
                        f"{name}.{key} is not read by the loader (known: {', '.join(rule.nested)}).",
                        f"did you mean {name}.{guess}?" if guess else None,
                    )
                else:
                    self.rule(fmt, f"{name}.{key}", sub_rule, sub, (*at, key))

    # -- resources --------------------------------------------------------------------------------
    def resource_value(self, kind: str, value: Any, at: Path_) -> None:
        """Resource-typed values are references even without ``res://``."""
        if kind not in ("texture", "resource"):
            return
        if isinstance(value, str):
            self.reference(value, at)
        elif kind == "texture" and isinstance(value, dict) and isinstance(value.get("url"), str):
            self.reference(value["url"], (*at, "url"))

    def reference(self, value: str, at: Path_) -> bool:
        """Check one reference; True when it names an existing project file."""
        self.checked.add(at)
        rel = project_path(value)
        if rel is None:
            return True
        self.out.references.add(rel)
        if not self.project.files.exists(rel):
            match = self.project.files.case_match(rel)
            self.emit(
                "E_MISSING_RESOURCE",
                at,
                f"{value} does not exist in the project.",
                f"the file is res://{match} (case differs)" if match else None,
            )
            return False
        if rel.lower().endswith(".svg") and rel not in self.svg_seen:
            self.svg_seen.add(rel)
            for finding in self.project.svg(rel):
                self.emit(finding.code, at, f"{value}: {finding.message}", finding.fix)
        return True

    def frames(self, frames: Any, at: Path_) -> None:
        if not isinstance(frames, list):
            return
        for index, entry in enumerate(frames):
            where = (*at, index)
            if isinstance(entry, str) and entry.strip():
                self.reference(entry, where)
            elif isinstance(entry, dict) and isinstance(entry.get("url"), str) and entry["url"].strip():
                self.reference(entry["url"], (*where, "url"))
            else:
                self.checked.add(where)
                self.emit(
                    "E_PROPERTY_TYPE",
                    where,
                    f"frames[{index}] must be an image path or {{ url }}, got {_describe_frame(entry)}: a blank frame.",
                    "write each frame as res://path/to/frame.png",
                )

    def walk_strings(self, value: Any, at: Path_, key: str | None) -> None:
        for path, text, near in _strings(value, at, key):
            if text[:6].lower() == "res://" and path not in self.checked:
                self.reference(text, path)
            if near in TEXT_KEYS and is_emoji_only(text):
                self.emit(
                    "E_EMOJI_AS_ART",
                    path,
                    f"{near} is {text.strip()} — nothing but emoji, i.e. a picture standing in for art. Emoji draw"
                    " differently on every device and font.",
                    "use a Sprite2D with a generated sprite (or a ColorRect2D placeholder); an emoji inside a"
                    " sentence is fine",
                )

    # -- locale keys ------------------------------------------------------------------------------
    @staticmethod
    def _own_texture(props: dict[str, Any]) -> bool:
        return any(props.get(k) not in (None, "") for k in ("texture", "texturePath"))

    def collect_keys(self, type_name: str | None, props: dict[str, Any], at: Path_, *, own_texture: bool) -> None:
        base = (*at, "properties")
        label = props.get("labelKey")
        if isinstance(label, str) and label.strip():
            self.out.key_uses.append(KeyUse("label", label, "labelKey", self.node_id, (*base, "labelKey")))
        if type_name == "Sprite2D":
            key = props.get("textureKey")
            if isinstance(key, str) and key.strip():
                self.out.key_uses.append(
                    KeyUse(
                        "sprite", key, "textureKey", self.node_id, (*base, "textureKey"), own_texture, not own_texture
                    )
                )
        if type_name == "Button2D":
            states = props.get("stateTextureKeys")
            if isinstance(states, dict):
                for state in BUTTON_STATES:
                    key = states.get(state)
                    if isinstance(key, str) and key.strip():
                        self.out.key_uses.append(
                            KeyUse(
                                "sprite",
                                key,
                                f"stateTextureKeys.{state}",
                                self.node_id,
                                (*base, "stateTextureKeys", state),
                            )
                        )
            for state in BUTTON_STATES:
                name = f"texture{state.title()}Key"
                key = props.get(name)
                if isinstance(key, str) and key.strip():
                    self.out.key_uses.append(KeyUse("sprite", key, name, self.node_id, (*base, name)))

    # -- components -------------------------------------------------------------------------------
    def components(self, components: Any, at: Path_) -> None:
        if not isinstance(components, list):
            self.emit(
                "E_SHAPE",
                at,
                f"components: must be a list, got {_got(components)}.",
                "write each component as a list item: components:\\n  - type: core:Rotate",
            )
            return
        for index, comp in enumerate(components):
            self.component(comp, (*at, index))

    def component(self, comp: Any, at: Path_) -> None:
        if not isinstance(comp, dict):
            self.emit("E_SHAPE", at, "A component must be a mapping with type:.")
            return
        for key in comp:
            if key not in COMPONENT_KEYS:
                self.emit(
                    "E_SHAPE",
                    (*at, key),
                    f'"{key}" is not a component key (allowed: {", ".join(COMPONENT_KEYS)}).',
                    "component settings go under config:",
                )
        ctype = comp.get("type")
        if not isinstance(ctype, str) or not ctype.strip():
            self.emit(
                "E_SHAPE",
                at,
                "The component has no type: — the loader parks it as an unregistered component.",
                "add type: core:<Name> or user:<ExportedClass>",
            )
            return
        if "enabled" in comp and not isinstance(comp["enabled"], bool):
            self.emit("E_SHAPE", (*at, "enabled"), "enabled: must be true or false.")
        if "id" in comp and not isinstance(comp["id"], str):
            self.emit("E_SHAPE", (*at, "id"), "A component id: must be a string.")
        config = comp.get("config")
        if config is not None and not isinstance(config, dict):
            self.emit("E_SHAPE", (*at, "config"), "config: must be a mapping.")
            config = None
        config = config or {}
        if ctype.startswith("core:"):
            schema = COMPONENTS.get(ctype)
            if schema is None:
                guess = nearest(ctype, list(COMPONENTS))
                self.emit(
                    "E_UNKNOWN_COMPONENT",
                    (*at, "type"),
                    f"{ctype} is not a built-in component; the loader parks it and it never runs.",
                    f"type: {guess}" if guess else None,
                )
            else:
                for key, value in config.items():
                    where = (*at, "config", key)
                    prop = schema.props.get(key)
                    if prop is None:
                        if schema.complete:
                            declared = ", ".join(schema.props) or "none"
                            guess = nearest(str(key), list(schema.props))
                            self.emit(
                                "E_UNKNOWN_CONFIG_KEY",
                                where,
                                f'{ctype} has no setting "{key}" (declared: {declared}); it is kept and ignored.',
                                f"did you mean {guess}?" if guess else None,
                            )
                        continue
                    check_prop(self.emit, str(key), value, where, prop)
                    self.resource_value(prop.type, value, where)
        elif ctype.startswith("user:"):
            self.out.uses_user = True
            name = ctype[5:]
            scripts = self.project.scripts
            if name not in scripts.ids and not scripts.opaque:
                guess = nearest(name, list(scripts.ids))
                self.emit(
                    "E_USER_SCRIPT_NOT_FOUND",
                    (*at, "type"),
                    f"No script under scripts/ (or src/scripts/) exports a Script class named {name}; the component"
                    ' would stay unregistered. The id is the EXPORT name, and the file must contain "extends Script".',
                    f"type: user:{guess}"
                    if guess
                    else f"create scripts/{name}.ts with export class {name} extends Script",
                )
        else:
            core = f"core:{ctype}"
            self.emit(
                "E_UNKNOWN_COMPONENT",
                (*at, "type"),
                f'Component type "{ctype}" has no namespace: built-ins are core:<Name>, project scripts'
                " user:<ExportedClass>.",
                f"type: {core}" if core in COMPONENTS else f"type: user:{ctype}",
            )
        self.walk_strings(config, (*at, "config"), None)

    # -- instances --------------------------------------------------------------------------------
    def instance(self, node: dict[str, Any], props: dict[str, Any], at: Path_) -> None:
        for key in ("children", "components"):
            if key in node:
                self.emit(
                    "E_SHAPE",
                    (*at, key),
                    f"{key}: on an instance node is ignored — the node's content comes from the prefab.",
                    "move them into the prefab, or wrap the instance in a parent node",
                )
        ref = node.get("instance")
        where = (*at, "instance")
        if not isinstance(ref, str) or not ref.strip():
            self.emit("E_SHAPE", where, "instance: must be a res:// path to a .pix3scene prefab.")
            return
        target = project_path(ref)
        if target is None or not self.project.files.exists(target):
            self.emit("E_MISSING_PREFAB", where, f"Prefab {ref} does not exist; the loader fails the whole scene.")
            return
        self.out.references.add(target)
        cycle = self._cycle(target)
        if cycle:
            self.emit("E_PREFAB_CYCLE", where, f"Prefab instances form a cycle: {' -> '.join(cycle)}.")
            return
        data = self.project.scene_data(target)
        if data is None or not isinstance(data, dict) or not isinstance(data.get("root"), list):
            self.walk_strings(props, (*at, "properties"), None)
            return
        roots = data["root"]
        if len(roots) != 1:
            self.emit(
                "E_PREFAB_ROOT",
                where,
                f"Prefab {ref} has {len(roots)} root nodes; an instanced prefab must have exactly one.",
            )
            self.walk_strings(props, (*at, "properties"), None)
            return
        root_node, root_type = self._effective(roots[0], {target})
        self.instance_props(root_type, props, (*at, "properties"))
        own = self._own_texture(root_node.get("properties") or {}) if isinstance(root_node, dict) else False
        self.collect_instance_keys(root_type, props, at, own)
        self.overrides(node.get("overrides"), roots[0], (*at, "overrides"), {target})
        self.walk_strings(props, (*at, "properties"), None)

    def collect_instance_keys(self, root_type: str | None, props: dict[str, Any], at: Path_, own: bool) -> None:
        base = (*at, "properties")
        label = props.get("labelKey")
        if isinstance(label, str) and label.strip():
            self.out.key_uses.append(KeyUse("label", label, "labelKey", self.node_id, (*base, "labelKey")))
        key = props.get("textureKey")
        if isinstance(key, str) and key.strip():
            severe = root_type == "Sprite2D" and not own
            self.out.key_uses.append(
                KeyUse("sprite", key, "textureKey", self.node_id, (*base, "textureKey"), own, severe)
            )
        for state in BUTTON_STATES:
            name = f"texture{state.title()}Key"
            key = props.get(name)
            if isinstance(key, str) and key.strip():
                self.out.key_uses.append(KeyUse("sprite", key, name, self.node_id, (*base, name)))

    def _effective(self, node: Any, seen: set[str]) -> tuple[Any, str | None]:
        """The node an instance really is (following instance-of-instance), and its type."""
        while isinstance(node, dict) and isinstance(node.get("instance"), str):
            target = project_path(node["instance"])
            if target is None or target in seen:
                return node, None
            seen.add(target)
            data = self.project.scene_data(target)
            if not isinstance(data, dict) or not isinstance(data.get("root"), list) or len(data["root"]) != 1:
                return node, None
            node = data["root"][0]
        if not isinstance(node, dict):
            return node, None
        authored = node.get("type")
        if not isinstance(authored, str):
            return node, "Node3D"
        found, _ = resolve_node_type(authored)
        return node, (found if found and found != "Layout2D" else None)

    def _cycle(self, target: str) -> list[str] | None:
        done: set[str] = set()

        def search(rel: str, stack: list[str]) -> list[str] | None:
            if rel in stack:
                return [*stack[stack.index(rel) :], rel]
            if rel in done:
                return None
            data = self.project.scene_data(rel)
            for inner in _instances(data):
                found = search(inner, [*stack, rel])
                if found:
                    return found
            done.add(rel)
            return None

        return search(target, [self.rel])

    def instance_props(self, type_name: str | None, props: dict[str, Any], at: Path_) -> None:
        if type_name is None:
            return
        fmt = type_format(type_name)
        for key, value in props.items():
            where = (*at, key)
            if key == "transform":
                if not isinstance(value, dict):
                    self.emit("E_PROPERTY_TYPE", where, "transform must be a mapping.")
                    continue
                for sub, sub_value in value.items():
                    if sub not in INSTANCE_TRANSFORM_KEYS:
                        self.emit(
                            "E_UNKNOWN_PROPERTY",
                            (*where, sub),
                            f"transform.{sub} is not applied to an instance (known: {', '.join(INSTANCE_TRANSFORM_KEYS)}).",
                        )
                        continue
                    prop = fmt.schema.get(_TRANSFORM_SCHEMA[sub])
                    if prop is not None:
                        check_prop(self.emit, f"transform.{sub}", sub_value, (*where, sub), prop)
                continue
            prop = fmt.schema.get(key)
            if prop is None or key in fmt.not_stored:
                guess = nearest(str(key), [n for n in fmt.schema if n not in fmt.not_stored])
                self.emit(
                    "E_UNKNOWN_PROPERTY",
                    where,
                    f'The prefab\'s {fmt.name} has no property "{key}"; on an instance (and in overrides) properties'
                    " are the node's schema names.",
                    f"did you mean {guess}?" if guess else None,
                )
                continue
            check_prop(self.emit, str(key), value, where, prop)
            self.resource_value(prop.type, value, where)

    def overrides(self, overrides: Any, prefab_root: Any, at: Path_, seen: set[str]) -> None:
        if overrides is None:
            return
        by_local = overrides.get("byLocalId") if isinstance(overrides, dict) else None
        if not isinstance(overrides, dict) or (by_local is not None and not isinstance(by_local, dict)):
            self.emit(
                "E_SHAPE",
                at,
                "overrides: must be a mapping of the form { byLocalId: { <node path>: { properties: … } } }.",
            )
            return
        for key, entry in (by_local or {}).items():
            where = (*at, "byLocalId", key)
            if not isinstance(entry, dict) or ("properties" in entry and not isinstance(entry["properties"], dict)):
                self.emit("E_SHAPE", where, "An override entry must be { properties: { … } }.")
                continue
            found, determined = self._override_target(prefab_root, str(key), set(seen))
            if not determined:
                continue
            if found is None:
                self.emit(
                    "E_UNKNOWN_OVERRIDE_TARGET",
                    where,
                    f'The prefab has no node at "{key}"; the loader warns and drops this override.',
                    "override keys are node ids from the prefab root, joined with / for nested nodes",
                )
                continue
            _, type_name = self._effective(found, set(seen))
            entry_props = entry.get("properties") or {}
            self.instance_props(type_name, entry_props, (*where, "properties"))
            self.walk_strings(entry_props, (*where, "properties"), None)

    def _override_target(self, root: Any, key: str, seen: set[str]) -> tuple[Any, bool]:
        """(node or None, determined): walk ``a/b`` by local ids below the prefab root."""
        key = key.strip().replace("\\", "/").lstrip("/")
        root_id = root.get("id") if isinstance(root, dict) else None
        if key == root_id:
            return root, True
        segments = [s for s in key.split("/") if s]
        attempts = [segments]
        if root_id and segments and segments[0] == root_id:
            attempts.append(segments[1:])
        undetermined = False
        for attempt in attempts:
            node: Any = root
            ok = True
            for seg in attempt:
                children = self._children_of(node, seen)
                if children is None:
                    undetermined = True
                    ok = False
                    break
                node = next((c for c in children if _local_ids(c, self.project, seen) & {seg}), None)
                if node is None:
                    ok = False
                    break
            if ok and attempt:
                return node, True
        return None, not undetermined

    def _children_of(self, node: Any, seen: set[str]) -> list[Any] | None:
        if not isinstance(node, dict):
            return []
        if isinstance(node.get("instance"), str):
            target = project_path(node["instance"])
            data = self.project.scene_data(target) if target else None
            if target in seen or not isinstance(data, dict) or not isinstance(data.get("root"), list):
                return None
            if len(data["root"]) != 1:
                return None
            seen.add(target or "")
            return self._children_of(data["root"][0], seen)
        children = node.get("children")
        return children if isinstance(children, list) else []


def _local_ids(node: Any, project: Project, seen: set[str]) -> set[str]:
    if not isinstance(node, dict):
        return set()
    ids = {node["id"]} if isinstance(node.get("id"), str) else set()
    if isinstance(node.get("instance"), str):
        target = project_path(node["instance"])
        data = project.scene_data(target) if target and target not in seen else None
        if isinstance(data, dict) and isinstance(data.get("root"), list) and len(data["root"]) == 1:
            inner = data["root"][0]
            if isinstance(inner, dict) and isinstance(inner.get("id"), str):
                ids.add(inner["id"])
    return ids


def _instances(data: Any) -> Iterator[str]:
    """Every ``instance:`` target anywhere in a scene's tree."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            ref = value.get("instance")
            if isinstance(ref, str):
                target = project_path(ref)
                if target:
                    yield target
            stack.extend(v for v in value.values() if isinstance(v, dict | list))
        elif isinstance(value, list):
            stack.extend(v for v in value if isinstance(v, dict | list))


def _strings(value: Any, at: Path_, key: str | None) -> list[tuple[Path_, str, str | None]]:
    """The strings worth a look (a ``res://`` reference, or non-ASCII text under a text key), in
    document order. Paths are built only for those: this walk sees every value of every scene."""
    found: list[tuple[Path_, str, str | None]] = []
    trail: list[PathSeg] = list(at)

    def wanted(text: str, near: str | None) -> bool:
        return (text[:1] in "rR" and text[:6].lower() == "res://") or (near in TEXT_KEYS and not text.isascii())

    def walk(item: Any, near: str | None) -> None:
        if type(item) is dict:
            for k, v in item.items():
                kind = type(v)
                if kind is str:
                    if (v[:1] in "rR" and v[:6].lower() == "res://") or (k in TEXT_KEYS and not v.isascii()):
                        found.append(((*trail, k), v, str(k)))
                elif kind is dict or kind is list:
                    trail.append(k)
                    walk(v, str(k))
                    trail.pop()
        elif type(item) is list:
            for i, v in enumerate(item):
                kind = type(v)
                if kind is str:
                    if wanted(v, near):
                        found.append(((*trail, i), v, near))
                elif kind is dict or kind is list:
                    trail.append(i)
                    walk(v, near)
                    trail.pop()

    if type(value) is str:
        if wanted(value, key):
            found.append((tuple(trail), value, key))
    else:
        walk(value, key)
    return found


def _describe_frame(entry: Any) -> str:
    from pix3tools.validate._values import describe

    return describe(entry)


def check_scene(project: Project, rel: str, doc: Document) -> SceneResult:
    """All level-1 scene-document rules for one parsed scene."""
    return _Checker(project, rel, doc).run()


__all__ += ["DOC_KEYS", "NODE_KEYS", "TEXT_KEYS", "Prop"]
