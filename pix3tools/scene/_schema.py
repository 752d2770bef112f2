"""Node-type property schemas (docs/validate.md, "The disk format"): names, value types, documented defaults.

The reference reads each runtime class's static ``getPropertySchema()``; we cannot, so this is the
documented table as data. ``Prop.default`` is the documented default (``MISSING`` when the docs give
none: ``pix3 tree --props`` then always shows the key).

One file because it is one table as data: every node type's properties (``_OWN``, most of the
file) and the components', in the order the docs list them, read top to bottom; the helpers that
build the rows are a few lines each above it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

__all__ = ["COMPONENTS", "MISSING", "NODE_SCHEMAS", "ComponentSchema", "Prop"]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final[Any] = _Missing()

# Value types: the runtime's PropertyType names, plus "texture" (a texture slot: {type: texture,
# url} or a path) and "resource" (a project file path string, e.g. audioTrack, src).
VALUE_TYPES = frozenset(
    [
        "string",
        "number",
        "boolean",
        "vector2",
        "vector3",
        "vector4",
        "euler",
        "color",
        "enum",
        "select",
        "object",
        "node",
        "texture",
        "resource",
        "any",
    ]
)


@dataclass(frozen=True)
class Prop:
    name: str
    type: str
    default: Any = MISSING
    options: tuple[str, ...] = ()
    min: float | None = None  # inspector range (ui.min/ui.max): outside → W_PROPERTY_RANGE
    max: float | None = None
    positive: bool = False  # validation rule "> 0": failing → E_PROPERTY_RANGE


def _p(name: str, type_: str, default: Any = MISSING, *options: str, **kw: Any) -> Prop:
    return Prop(name, type_, default, tuple(options), **kw)


def _num(name: str, default: Any = MISSING, **kw: Any) -> Prop:
    return Prop(name, "number", default, **kw)


def _bool(name: str, default: Any = MISSING) -> Prop:
    return Prop(name, "boolean", default)


def _str(name: str, default: Any = MISSING) -> Prop:
    return Prop(name, "string", default)


def _col(name: str, default: Any = MISSING) -> Prop:
    return Prop(name, "color", default)


def _tex(name: str) -> Prop:
    return Prop(name, "texture", None)


def _v2(name: str, default: Any = MISSING) -> Prop:
    return Prop(name, "vector2", default)


def _v3(name: str, default: Any = MISSING) -> Prop:
    return Prop(name, "vector3", default)


def _slices(prefix: str = "sliceBorder") -> list[Prop]:
    return [_num(f"{prefix}{side}", 0) for side in ("Left", "Right", "Top", "Bottom")]


_BASE = [_bool("visible", True), _bool("locked", False), _str("instancePath", ""), _bool("initiallyVisible", True)]
_NODE2D = [
    *_BASE,
    _v2("position", [0, 0]),
    _num("rotation", 0),
    _v2("scale", [1, 1]),
    _num("opacity", 1, min=0, max=1),
    _p("blendMode", "enum", "normal", "normal", "additive", "multiply", "subtract"),
    _num("zIndex", 0, min=-4096, max=4096),
    _bool("zAsRelative", True),
    _bool("flowEnabled", False),
    _p("flowDirection", "enum", "vertical", "vertical", "horizontal"),
    _num("flowGap", 0),
    _num("flowPaddingX", 0),
    _num("flowPaddingY", 0),
    _p("flowAlign", "enum", "start", "start", "center", "end"),
    _bool("flowAutoSize", False),
    _bool("layoutEnabled", False),
    _p("horizontalAlign", "enum", "center", "left", "center", "right", "stretch"),
    _p("verticalAlign", "enum", "center", "top", "center", "bottom", "stretch"),
    _num("layoutLeft"),
    _num("layoutRight"),
    _num("layoutTop"),
    _num("layoutBottom"),
]
_NODE3D = [*_BASE, _v3("position", [0, 0, 0]), Prop("rotation", "euler", [0, 0, 0]), _v3("scale", [1, 1, 1])]
_SIZED = [_num("width", 100), _num("height", 100)]
_CONTROL = [
    _bool("enabled", True),
    _str("label", ""),
    _str("labelFontFamily", "Arial"),
    _num("labelFontSize", 16, min=8, max=200),
    _col("labelColor", "#ffffff"),
    _p("labelAlign", "enum", "center", "left", "center", "right"),
    Prop("texturePath", "resource", None),
    _str("labelKey", ""),
]
_LIGHT = [_col("color", "#ffffff"), _num("intensity", 1.0)]


def _size(w: float, h: float) -> list[Prop]:
    return [_num("width", w), _num("height", h)]


_OWN: dict[str, tuple[str, list[Prop]]] = {
    # type: (base list name, own props)
    "Group": ("base", []),
    "Node2D": ("2d", []),
    "Node3D": ("3d", []),
    "ColorRect2D": ("2d", [*_SIZED, _col("color", "#ffffff"), _bool("blocksPointerInput", False)]),
    "Sprite2D": ("2d", [_tex("texture"), *_size(64, 64), _col("color", "#ffffff"), _str("textureKey", "")]),
    "TiledSprite2D": (
        "2d",
        [
            _tex("texture"),
            *_size(128, 128),
            _p("patchMode", "enum", "stretch", "stretch", "tile", "nine-slice", "three-slice-h", "three-slice-v"),
            *_slices(),
            _bool("drawCenter", True),
            _p("axisStretchHorizontal", "enum", "stretch", "stretch", "tile"),
            _p("axisStretchVertical", "enum", "stretch", "stretch", "tile"),
            _v2("tileScale", [1, 1]),
            _v2("tileOffset", [0, 0]),
            _v2("anchor", [0.5, 0.5]),
        ],
    ),
    "AnimatedSprite2D": (
        "2d",
        [
            Prop("animationResourcePath", "resource", ""),
            _str("currentClip", ""),
            _bool("isPlaying", True),
            _num("currentFrame", 0),
            _bool("freeOnFinish", False),
            *_size(64, 64),
            _p("sizeMode", "enum", "stretch", "stretch", "native"),
            _v2("anchor", [0.5, 0.5]),
            _col("color", "#ffffff"),
        ],
    ),
    "SpineSkeleton2D": (
        "2d",
        [
            Prop("skeletonPath", "resource", None),
            Prop("atlasPath", "resource", None),
            _tex("texture"),
            _str("animation", ""),
            _bool("loop", True),
            _bool("isPlaying", True),
            _str("skin", ""),
            _num("timeScale", 1),
            _num("defaultMix", 0),
            _col("color", "#ffffff"),
            _bool("twoColorTint", False),
            _bool("freeOnFinish", False),
            _bool("previewInEditor", False),
        ],
    ),
    "Label2D": (
        "2d",
        [
            *_CONTROL,
            _str("labelFontWeight", "normal"),
            _num("outlineWidth", 0),
            _col("outlineColor", "#000000"),
            _col("labelShadowColor", None),
            _num("labelShadowOffsetX", 0),
            _num("labelShadowOffsetY", 0),
            _num("labelLetterSpacing", 0),
            _p("labelVAlign", "enum", "middle", "top", "middle", "bottom"),
            *_size(0, 0),
            _num("typewriterSpeed", 0),
            _col("glowColor", "#ffffff"),
            _num("glowStrength", 0, min=0, max=4),
        ],
    ),
    "Group2D": ("2d", [*_SIZED]),
    "CanvasLayer2D": ("2d", [*_SIZED]),
    "Camera2D": (
        "2d",
        [
            _num("priority", 10),
            _num("zoom", 1),
            _v2("offset", [0, 0]),
            Prop("followTargetId", "node", None),
            _v2("followOffset", [0, 0]),
            _num("followDamping", 8),
            _v2("deadzone", [0, 0]),
            _bool("limitsEnabled", False),
            _v2("limitsCenter", [0, 0]),
            _v2("limitsSize", [1000, 1000]),
            _num("shakeAmplitude", 8),
            _num("shakeFrequency", 24),
            _num("shakeDuration", 0.35),
            _num("shakeDecay", 1.5),
        ],
    ),
    "Button2D": (
        "2d",
        [
            *_CONTROL,
            *_size(100, 40),
            _col("backgroundColor", "#4a4a4a"),
            _col("hoverColor", "#5a5a5a"),
            _col("pressedColor", "#3a3a3a"),
            _str("buttonAction", "Submit"),
            *(_tex(f"texture{s}") for s in ("Normal", "Hover", "Pressed", "Disabled")),
            *_slices(),
            *(_str(f"texture{s}Key", "") for s in ("Normal", "Hover", "Pressed", "Disabled")),
        ],
    ),
    "Slider2D": (
        "2d",
        [
            *_CONTROL,
            *_size(200, 20),
            _num("handleSize", 20),
            _col("trackBackgroundColor", "#333333"),
            _col("trackFilledColor", "#4a9eff"),
            _col("handleColor", "#ffffff"),
            _num("minValue", 0),
            _num("maxValue", 100),
            _num("value", 50),
            _str("axisName", "Slider"),
            _tex("textureTrack"),
            _tex("textureFill"),
            _tex("textureThumb"),
            *_slices(),
        ],
    ),
    "Bar2D": (
        "2d",
        [
            *_CONTROL,
            *_size(200, 20),
            _num("value", 50),
            _num("minValue", 0),
            _num("maxValue", 100),
            _col("backgroundColor", "#333333"),
            _col("fillColor", "#4a9eff"),
            _col("barColor"),
            _col("backBackgroundColor"),
            _bool("showBorder"),
            _tex("textureTrough"),
            _tex("textureFill"),
            *_slices(),
        ],
    ),
    "Checkbox2D": (
        "2d",
        [
            *_CONTROL,
            *_size(24, 24),
            _bool("checked", False),
            _col("uncheckedColor", "#333333"),
            _col("checkedColor", "#4a9eff"),
            _tex("textureBox"),
            _tex("textureBoxChecked"),
            _tex("textureMark"),
        ],
    ),
    "Joystick2D": (
        "2d",
        [
            *_CONTROL,
            _num("radius", 50),
            _bool("floating", False),
            _str("axisHorizontal", "Horizontal"),
            _str("axisVertical", "Vertical"),
        ],
    ),
    "ScrollContainer2D": (
        "2d",
        [
            *_CONTROL,
            *_SIZED,
            _num("scrollY", 0),
            _bool("dragScrollEnabled", True),
            _bool("wheelScrollEnabled", True),
            _bool("inertiaEnabled", True),
            _num("wheelSensitivity", 1),
            _num("dragThreshold", 6),
            _num("inertiaDamping", 14),
            _bool("showScrollbar", True),
            _num("scrollbarWidth", 8),
            _num("scrollbarMinHeight", 24),
            _num("scrollbarInset", 8),
            _col("scrollbarColor", "#f5f7ff"),
            _col("scrollbarTrackColor", "#ffffff"),
            _tex("scrollbarThumbTexture"),
            _tex("scrollbarTrackTexture"),
        ],
    ),
    "InventorySlot2D": (
        "2d",
        [
            *_CONTROL,
            *_size(64, 64),
            _col("backgroundColor", "#2a2a2a"),
            _col("borderColor", "#444444"),
            _col("highlightColor", "#4a9eff"),
            _num("itemCount", 0),
        ],
    ),
    "GeometryMesh": (
        "3d",
        [
            _p("geometry", "enum", "box", "box", "sphere", "plane", "cylinder", "cone", "torus"),
            _v3("size", [1, 1, 1]),
            _str("materialType", "standard"),
            _col("color", "#4e8df5"),
            _num("roughness", 0.35),
            _num("metalness", 0.25),
            _tex("map"),
            _num("aoMapIntensity", 1),
            _bool("castShadow", True),
            _bool("receiveShadow", True),
        ],
    ),
    "MeshInstance": ("3d", [Prop("src", "resource", None), _bool("castShadow", True), _bool("receiveShadow", True)]),
    "InstancedMesh3D": (
        "3d",
        [
            _num("maxInstances"),
            _bool("enablePerInstanceColor", False),
            _bool("castShadow", True),
            _bool("receiveShadow", True),
            _p("materialType", "enum", "standard", "standard", "lambert", "basic"),
            _col("color", "#ffffff"),
            _num("visibleInstanceCount"),
        ],
    ),
    "Sprite3D": (
        "3d",
        [
            _tex("texture"),
            *_size(1, 1),
            _bool("billboard", False),
            _num("billboardRoll", 0),
            _num("opacity", 1, min=0, max=1),
            _num("textureAspectRatio"),
            _bool("aspectRatioLocked"),
        ],
    ),
    "AnimatedSprite3D": (
        "3d",
        [
            *_size(1, 1),
            _num("fps", 10),
            _bool("playing", True),
            _bool("loop", True),
            _bool("freeOnFinish", False),
            _num("currentFrame", 0),
            _bool("billboard", True),
            _col("color", "#ffffff"),
            _num("opacity", 1, min=0, max=1),
        ],
    ),
    "Particles3D": (
        "3d",
        [
            _tex("texture"),
            _num("emissionRate", 24),
            _num("maxParticles", 512),
            _num("lifetime", 2),
            _num("speed", 2),
            _num("speedSpread", 0.5),
            _v3("gravity", [0, 0, 0]),
            _col("startColor"),
            _col("endColor"),
            _num("startAlpha", 1),
            _num("endAlpha", 0),
            _p("simulationSpace", "enum", "local", "local", "world"),
            _bool("trailEnabled", False),
            _num("trailLifetime", 0.3),
            _num("trailWidth", 0.05),
            _num("trailSegments", 16),
            _num("trailFade", 1),
            Prop("subEmitterId", "node", None),
            _num("subEmitterBurstCount", 8),
            _num("subEmitterInheritVelocity", 0),
        ],
    ),
    "AmbientLightNode": ("3d", [_col("color", "#ffffff"), _num("intensity", 0.5)]),
    "HemisphereLightNode": (
        "3d",
        [_col("skyColor", "#ffffff"), _col("groundColor", "#444444"), _num("intensity", 0.5)],
    ),
    "DirectionalLightNode": ("3d", [*_LIGHT, _bool("castShadow", True)]),
    "PointLightNode": ("3d", [*_LIGHT, _num("distance", 0), _num("decay", 2), _bool("castShadow", True)]),
    "SpotLightNode": (
        "3d",
        [
            *_LIGHT,
            _num("distance", 0),
            _num("angle", 60),
            _num("penumbra", 0),
            _num("decay", 2),
            _bool("castShadow", True),
        ],
    ),
    "Camera3D": (
        "3d",
        [
            _p("projection", "enum", "perspective", "perspective", "orthographic"),
            _num("fov", 60, positive=True),
            _num("near", 0.1),
            _num("far", 1000),
        ],
    ),
    "VirtualCamera3D": (
        "3d",
        [
            _num("priority", 10),
            _num("fov", 60, positive=True),
            _num("orthographicSize", 5),
            Prop("followTargetId", "node", None),
            _v3("followOffset", [0, 0, 0]),
            _num("followDamping", 8),
            _v3("deadzone", [0, 0, 0]),
            Prop("lookAtTargetId", "node", None),
            _num("lookAtWeight", 1),
            _num("rotationDamping", 8),
            _bool("confinerEnabled", False),
            _v3("confinerCenter", [0, 0, 0]),
            _v3("confinerSize", [10, 10, 10]),
            _num("blendDuration", 1),
            _str("blendEasing", "cubicInOut"),
        ],
    ),
    "PostProcess": (
        "base",
        [
            _bool("affect2D", True),
            _bool("bloomEnabled", True),
            _num("bloomIntensity", 1),
            _num("bloomThreshold", 0.9),
            _num("bloomSmoothing", 0.025),
            _num("bloomRadius", 0.85),
            _bool("vignetteEnabled", False),
            _num("vignetteOffset", 0.35),
            _num("vignetteDarkness", 0.5),
            _bool("chromaticAberrationEnabled", False),
            _num("chromaticAberrationOffset", 0.002),
            _p("aoMode", "enum", "inherit", "inherit", "off", "ssao", "baked"),
            _num("ssaoIntensity", 2.5),
            _num("ssaoRadius", 0.25),
            _bool("lutEnabled", False),
            Prop("lutSrc", "resource", ""),
            _num("lutIntensity", 1),
        ],
    ),
    "AudioPlayer": (
        "base",
        [
            Prop("audioTrack", "resource", None),
            _bool("autoplay", False),
            _bool("loop", False),
            _num("volume", 1),
            _p("bus", "enum", "sfx", "master", "music", "sfx"),
            _num("pitchVariation", 0),
            _num("volumeVariation", 0),
        ],
    ),
}

_FAMILY_BASE = {"base": _BASE, "2d": _NODE2D, "3d": _NODE3D}

FAMILIES: Final[dict[str, str]] = {name: family for name, (family, _) in _OWN.items()}


def _schema(type_name: str) -> dict[str, Prop]:
    family, own = _OWN[type_name]
    merged: dict[str, Prop] = {}
    for prop in (*_FAMILY_BASE[family], *own):
        merged[prop.name] = prop  # a type's own entry wins (e.g. Sprite3D opacity)
    return merged


NODE_SCHEMAS: Final[dict[str, dict[str, Prop]]] = {name: _schema(name) for name in _OWN}


@dataclass(frozen=True)
class ComponentSchema:
    """A built-in component's config schema. ``complete`` is False when the documented list is
    partial: then unknown config keys are not reported (we would be guessing)."""

    props: dict[str, Prop]
    complete: bool


def _comp(complete: bool, *props: Prop) -> ComponentSchema:
    return ComponentSchema({p.name: p for p in props}, complete)


_ANY = "any"
COMPONENTS: Final[dict[str, ComponentSchema]] = {
    "core:Rotate": _comp(True, _num("rotationSpeed", 1.0, min=0, max=10)),
    "core:SimpleMove": _comp(False),
    "core:Sine": _comp(False),
    "core:Follow": _comp(False),
    "core:PinToNode": _comp(False),
    "core:Fade": _comp(False),
    "core:RadialProgress": _comp(False),
    "core:AnimationPlayer": _comp(False),
    "core:PointAttachment": _comp(False),
    "core:CharacterVisual2D": _comp(True, _str("variant"), _str("state"), _str("separator")),
    "core:PlaySound": _comp(
        False,
        Prop("audioTrack", "resource"),
        _p("bus", "enum", "sfx", "master", "music", "sfx"),
        _num("pitchVariation", 0),
        _num("volumeVariation", 0),
    ),
    "core:SfxOnSignal": _comp(True, _str("signal"), _str("preset"), _num("volume"), _num("pitch")),
    "core:BurstOnSignal": _comp(False),
    "core:FreeOnSignal": _comp(False),
    "core:Shake": _comp(False),
    "core:PunchScale": _comp(False),
    "core:PopIn": _comp(
        True, Prop("from", _ANY), _num("duration"), Prop("easing", _ANY), _bool("playOnStart"), _str("triggerEvent")
    ),
    "core:CameraBrain": _comp(False),
    "core:Hitbox2D": _comp(False, _p("shape", "enum", "rect", "rect", "circle", "polygon"), _num("radius")),
    "core:PhysicsBody2D": _comp(False),
    "core:Collider2D": _comp(False),
    "core:PhysicsWorld2D": _comp(True, _num("gravityX"), _num("gravityY")),
    "core:RevoluteJoint2D": _comp(False),
    "core:NetworkedNode": _comp(False),
    "core:ReplicatedTransform": _comp(False),
}
