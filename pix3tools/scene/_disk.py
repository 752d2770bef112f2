"""The disk-format descriptor (docs/validate.md, "The disk format"): which keys may stand under a node's
``properties:``, which schema property each feeds, and the node-type vocabulary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from pix3tools.scene._elsewhere import ELSEWHERE
from pix3tools.scene._schema import FAMILIES, NODE_SCHEMAS, Prop

__all__ = [
    "KNOWN_NODE_TYPES",
    "NODE_TYPES",
    "DiskRule",
    "TypeFormat",
    "classify_key",
    "levenshtein",
    "node_type_elsewhere",
    "resolve_node_type",
    "suggest_node_type",
    "type_format",
]


@dataclass(frozen=True)
class DiskRule:
    """One disk key that is not a flat schema name (an "extra"): its kind, the schema property it
    feeds, the spelling the editor saves instead (read-compat), nested keys of a record."""

    kind: str  # a schema value type, or "texture" "resource-path" "array" "record" "enum"
    schema_name: str | None = None
    preferred: str | None = None
    nested: dict[str, DiskRule] = field(default_factory=dict)
    options: tuple[str, ...] = ()


def _r(kind: str, schema: str | None = None, preferred: str | None = None, **nested: DiskRule) -> DiskRule:
    return DiskRule(kind, schema, preferred, dict(nested))


_2D: dict[str, DiskRule] = {
    "transform": _r(
        "record", position=_r("vector2", "position"), scale=_r("vector2", "scale"), rotation=_r("number", "rotation")
    ),
    "layout": _r(
        "record",
        enabled=_r("boolean", "layoutEnabled"),
        horizontalAlign=_r("enum", "horizontalAlign"),
        verticalAlign=_r("enum", "verticalAlign"),
        left=_r("number", "layoutLeft"),
        right=_r("number", "layoutRight"),
        top=_r("number", "layoutTop"),
        bottom=_r("number", "layoutBottom"),
    ),
    "flow": _r(
        "record",
        enabled=_r("boolean", "flowEnabled"),
        direction=_r("enum", "flowDirection"),
        gap=_r("number", "flowGap"),
        paddingX=_r("number", "flowPaddingX"),
        paddingY=_r("number", "flowPaddingY"),
        align=_r("enum", "flowAlign"),
        autoSize=_r("boolean", "flowAutoSize"),
    ),
}
_3D: dict[str, DiskRule] = {
    "transform": _r(
        "record",
        position=_r("vector3", "position"),
        translate=_r("vector3", "position", "transform.position"),
        rotationEuler=_r("euler", "rotation"),
        rotation=_r("euler", "rotation", "transform.rotationEuler"),
        euler=_r("euler", "rotation", "transform.rotationEuler"),
        scale=_r("vector3", "scale"),
        rotationOrder=DiskRule("enum", options=("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")),
    )
}
_FAMILY_EXTRAS = {"2d": _2D, "3d": _3D, "base": {}}

_TEXTURE_PATH = _r("resource-path", "texture", "texture")
_EFFECTS = _r("array")
_MATERIAL_GEOMETRY = _r(
    "record",
    type=_r("string", "materialType"),
    color=_r("color", "color"),
    roughness=_r("number", "roughness"),
    metalness=_r("number", "metalness"),
    aoMap=_r("resource-path"),
    aoMapIntensity=_r("number", "aoMapIntensity"),
    map=_r("resource-path"),
    effects=_r("array"),
)

# type: (extras, explicit relocated, notStored extra {name: reason}, writeOnly)
_TYPES: dict[str, tuple[dict[str, DiskRule], dict[str, str], dict[str, str], tuple[str, ...]]] = {
    "Sprite2D": ({"effects": _EFFECTS, "texturePath": _TEXTURE_PATH, "color": _r("color")}, {}, {}, ()),
    "TiledSprite2D": ({"texturePath": _TEXTURE_PATH, "color": _r("color")}, {}, {}, ()),
    "AnimatedSprite2D": ({"effects": _EFFECTS}, {}, {}, ()),
    "SpineSkeleton2D": ({"texturePath": _TEXTURE_PATH}, {}, {}, ()),
    "Label2D": (
        {
            "labelOutlineWidth": _r("number", "outlineWidth", "outlineWidth"),
            "labelOutlineColor": _r("color", "outlineColor", "outlineColor"),
        },
        {},
        {},
        ("texturePath",),
    ),
    "Button2D": (
        {
            "effects": _EFFECTS,
            "stateTextureKeys": _r(
                "record",
                normal=_r("string", "textureNormalKey"),
                hover=_r("string", "textureHoverKey"),
                pressed=_r("string", "texturePressedKey"),
                disabled=_r("string", "textureDisabledKey"),
            ),
        },
        {},
        {},
        (),
    ),
    "Bar2D": ({"borderWidth": _r("number")}, {}, {}, ()),
    "Joystick2D": ({"handleRadius": _r("number"), "baseColor": _r("color"), "handleColor": _r("color")}, {}, {}, ()),
    "InventorySlot2D": ({"borderWidth": _r("number"), "quantityFontSize": _r("number")}, {}, {}, ()),
    "GeometryMesh": ({"material": _MATERIAL_GEOMETRY}, {"map": "material.map"}, {}, ()),
    "MeshInstance": ({"src": _r("resource-path")}, {}, {}, ()),
    "InstancedMesh3D": (
        {
            "material": _r(
                "record",
                type=_r("enum", "materialType"),
                color=_r("color", "color"),
                roughness=_r("number"),
                metalness=_r("number"),
            ),
            "frustumCulled": _r("boolean"),
        },
        {},
        {"visibleInstanceCount": "it is computed at runtime"},
        (),
    ),
    "Sprite3D": (
        {"texturePath": _TEXTURE_PATH, "color": _r("color")},
        {},
        {
            "textureAspectRatio": "it is derived from the texture",
            "aspectRatioLocked": "it is an inspector-only setting",
        },
        (),
    ),
    "AnimatedSprite3D": ({"frames": _r("array")}, {}, {"currentFrame": "it is playback state"}, ()),
    "Particles3D": ({"texturePath": _TEXTURE_PATH}, {}, {}, ()),
}

_NODE_ENTRY_REASON = "it belongs on the node entry"
CLASS_EXPORTS: Final[dict[str, str]] = {"Group": "NodeBase"}


@dataclass(frozen=True)
class TypeFormat:
    """Everything the validator needs about one canonical node type."""

    name: str
    family: str
    schema: dict[str, Prop]
    extras: dict[str, DiskRule]
    relocated: dict[str, str]
    not_stored: dict[str, str]  # name -> reason
    write_only: frozenset[str]
    kinds: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    """``classify_key`` of every key that is not "unknown", worked out once per type."""

    @property
    def class_export(self) -> str:
        return CLASS_EXPORTS.get(self.name, self.name)


def _format(name: str) -> TypeFormat:
    family = FAMILIES[name]
    own_extras, explicit, not_stored_extra, write_only = _TYPES.get(name, ({}, {}, {}, ()))
    extras = {**_FAMILY_EXTRAS[family], **own_extras}
    relocated: dict[str, str] = {}
    for block, rule in extras.items():
        for key, sub in rule.nested.items():
            if sub.schema_name and not sub.preferred and sub.schema_name not in relocated:
                relocated[sub.schema_name] = f"{block}.{key}"
    for flat in ("position", "rotation", "scale"):
        relocated.pop(flat, None)
    relocated.update(explicit)
    not_stored = dict.fromkeys(("id", "name", "type", "groups"), _NODE_ENTRY_REASON)
    not_stored.update(not_stored_extra)
    fmt = TypeFormat(name, family, NODE_SCHEMAS[name], extras, relocated, not_stored, frozenset(write_only))
    for key in (*fmt.schema, *fmt.extras, *fmt.not_stored):
        fmt.kinds[key] = _classify(fmt, key)
    return fmt


def classify_key(fmt: TypeFormat, key: str) -> str:
    """``resolveSceneDiskKey``: extra | unknown | not-stored | relocated | write-only | schema."""
    return fmt.kinds.get(key, "unknown")


def _classify(fmt: TypeFormat, key: str) -> str:
    if key in fmt.extras:
        return "extra"
    if key not in fmt.schema and key not in fmt.not_stored:
        return "unknown"
    if key in fmt.not_stored:
        return "not-stored"
    if key in fmt.relocated:
        return "relocated"
    if key in fmt.write_only:
        return "write-only"
    return "schema"


_FORMATS: dict[str, TypeFormat] = {name: _format(name) for name in NODE_SCHEMAS}


def type_format(name: str) -> TypeFormat:
    """The descriptor of a canonical node type (KeyError for an unknown one)."""
    return _FORMATS[name]


# -- node types -----------------------------------------------------------------------------------

KNOWN_NODE_TYPES: Final[tuple[str, ...]] = tuple(
    [
        "Group",
        "Node2D",
        "Node3D",
        "ColorRect2D",
        "Sprite2D",
        "TiledSprite2D",
        "AnimatedSprite2D",
        "SpineSkeleton2D",
        "Label2D",
        "Layout2D",
        "Group2D",
        "CanvasLayer2D",
        "Camera2D",
        "Button2D",
        "Slider2D",
        "Bar2D",
        "Checkbox2D",
        "Joystick2D",
        "ScrollContainer2D",
        "InventorySlot2D",
        "GeometryMesh",
        "MeshInstance",
        "InstancedMesh3D",
        "Sprite3D",
        "AnimatedSprite3D",
        "Particles3D",
        "AmbientLightNode",
        "DirectionalLightNode",
        "HemisphereLightNode",
        "PointLightNode",
        "SpotLightNode",
        "Camera3D",
        "VirtualCamera3D",
        "PostProcess",
        "AudioPlayer",
    ]
)
# Types a scene may use (Layout2D is known only so it can be rejected).
NODE_TYPES: Final[tuple[str, ...]] = tuple(t for t in KNOWN_NODE_TYPES if t != "Layout2D")

_ALIASES: dict[str, str] = {
    "ambientlight": "AmbientLightNode",
    "ambientlight3d": "AmbientLightNode",
    "directionallight": "DirectionalLightNode",
    "directionallight3d": "DirectionalLightNode",
    "hemispherelight": "HemisphereLightNode",
    "hemispherelight3d": "HemisphereLightNode",
    "pointlight": "PointLightNode",
    "pointlight3d": "PointLightNode",
    "spotlight": "SpotLightNode",
    "spotlight3d": "SpotLightNode",
    "meshinstance3d": "MeshInstance",
}
_NON_ALNUM = re.compile(r"[^a-z0-9]")


def _norm(name: str) -> str:
    return _NON_ALNUM.sub("", name.lower())


_BY_KEY: dict[str, str] = {_norm(t): t for t in KNOWN_NODE_TYPES}


_CANONICAL = frozenset(KNOWN_NODE_TYPES)


def resolve_node_type(authored: str) -> tuple[str | None, str]:
    """(canonical type or None, how): how is "exact", "case" (case/separators differ) or "alias"."""
    if authored in _CANONICAL:
        return authored, "exact"
    key = _norm(authored)
    if key in _BY_KEY:
        return _BY_KEY[key], "case"
    if key in _ALIASES:
        return _ALIASES[key], "alias"
    return None, ""


def levenshtein(a: str, b: str) -> int:
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def suggest_node_type(authored: str) -> str | None:
    """``suggestSceneNodeType``: Levenshtein ≤ 2 over normalised names and alias keys (first best),
    else the longest containment match of length ≥ 5. Ours besides: where that finds nothing, or
    only a containment match, a name another engine gives the type (:func:`node_type_elsewhere`:
    an exact one beats a containment match — ``Mesh`` is three.js's ``GeometryMesh``, not the
    ``InstancedMesh3D`` that contains it)."""
    key = _norm(authored)
    if not key:
        return None
    candidates = [(k, t) for k, t in _BY_KEY.items() if t != "Layout2D"] + list(_ALIASES.items())
    best: tuple[int, str] | None = None
    for cand_key, target in candidates:
        distance = levenshtein(key, cand_key)
        if distance <= 2 and (best is None or distance < best[0]):
            best = (distance, target)
    if best is not None:
        return best[1]
    elsewhere = _elsewhere(key)
    if elsewhere is not None and elsewhere[0] == 0:
        return elsewhere[1][1]
    contained: tuple[int, str] | None = None
    for cand_key, target in candidates:
        if len(cand_key) >= 5 and (cand_key in key or key in cand_key):
            length = len(cand_key)
            if contained is None or length > contained[0]:
                contained = (length, target)
    if contained is not None:
        return contained[1]
    return elsewhere[1][1] if elsewhere is not None else None


_SHORT = 5  # another engine's name this short must match exactly (see node_type_elsewhere)


def _elsewhere(key: str) -> tuple[int, tuple[str, str, str]] | None:
    best: tuple[int, tuple[str, str, str]] | None = None
    for entry in ELSEWHERE:
        other = _norm(entry[0])
        distance = levenshtein(key, other)
        if distance <= (0 if len(other) <= _SHORT else 2) and (best is None or distance < best[0]):
            best = (distance, entry)
    return best


def node_type_elsewhere(authored: str) -> tuple[str, str, str] | None:
    """(another engine's name, the Pix3 type that does its job, whose name it is) when ``authored``
    is that name, normalised, or within Levenshtein 2 of it (a name of 5 letters or fewer only as it is:
    one edit turns ``Text`` into ``Test``); the nearest wins, the first of equals."""
    found = _elsewhere(_norm(authored))
    return found[1] if found is not None else None
