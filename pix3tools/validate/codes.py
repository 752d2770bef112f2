"""The diagnostic code registry, in the reference's order (docs/validate.md, "Codes").

``CODES`` is importable by ``check`` (help texts) and the kit generator. Severity follows the
code: ``W_…`` is a warning, everything else an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pix3tools._diagnostic import severity_of

__all__ = ["CODES", "CODE_NAMES", "Code", "codes_help", "severity_of"]


@dataclass(frozen=True)
class Code:
    code: str
    level: int
    summary: str

    @property
    def severity(self) -> str:
        return severity_of(self.code)


CODES: Final[tuple[Code, ...]] = (
    Code("E_YAML", 1, "the file is not valid YAML"),
    Code("E_SHAPE", 1, "wrong document, node, component or override structure"),
    Code("E_UNKNOWN_NODE_TYPE", 1, "unknown type: (loads as an inert placeholder)"),
    Code("W_TYPE_CASE", 1, "type: loads, but is not the canonical spelling"),
    Code("E_UNKNOWN_PROPERTY", 1, "a key under properties: the loader never reads for this type"),
    Code("W_WRITE_ONLY_PROPERTY", 1, "saved by the editor, not read back by the loader"),
    Code("W_LEGACY_KEY", 1, "read-compat spelling; the editor rewrites it on save"),
    Code("E_PROPERTY_TYPE", 1, "the value has the wrong type"),
    Code("E_PROPERTY_RANGE", 1, "the value fails the property's validation rule"),
    Code("W_PROPERTY_RANGE", 1, "a number outside the inspector's min..max"),
    Code("E_PROPERTY_ENUM", 1, "the value is not one of the options"),
    Code("E_UNKNOWN_COMPONENT", 1, "unknown component type"),
    Code("E_UNKNOWN_CONFIG_KEY", 1, "a config key the component does not declare (user: at level 2)"),
    Code("E_USER_SCRIPT_NOT_FOUND", 1, "no script exports a Script class with that name"),
    Code("E_MISSING_RESOURCE", 1, "a referenced file does not exist"),
    Code("E_MISSING_PREFAB", 1, "the instance: target does not exist"),
    Code("E_PREFAB_CYCLE", 1, "prefab instances form a cycle"),
    Code("E_PREFAB_ROOT", 1, "an instanced prefab must have exactly one root"),
    Code("E_UNKNOWN_OVERRIDE_TARGET", 1, "overrides.byLocalId names a node the prefab does not have"),
    Code("E_DUPLICATE_ID", 1, "two nodes share an id"),
    Code("E_EMOJI_AS_ART", 1, "a text that is nothing but emoji"),
    Code("E_SVG_INVALID", 1, "a referenced .svg has no <svg> root or no SVG xmlns"),
    Code("E_SVG_NO_SIZE", 1, "a referenced .svg has no usable width/height (and no viewBox)"),
    Code("W_SVG_VIEWBOX_ONLY", 1, "a referenced .svg has a viewBox but no width/height (300x150)"),
    Code("W_SVG_EXTERNAL_REF", 1, "a referenced .svg points outside itself"),
    Code("E_ANIM_JSON", 1, "a .pix3anim is not a JSON object, or its clips are not a list"),
    Code("E_MISSING_FRAME", 1, "an image a .pix3anim names does not exist"),
    Code("E_LOCALE_MISSING", 1, "the default or fallback locale has no locales/<id>.json"),
    Code("W_LOCALE_MISSING", 1, "another declared locale has no table"),
    Code("E_LOCALE_JSON", 1, "the default/fallback table is not an object with strings/sprites maps"),
    Code("W_LOCALE_JSON", 1, "the same, for another locale's table"),
    Code("E_LOCALE_VALUE", 1, "a non-string value in the default/fallback table"),
    Code("W_LOCALE_VALUE", 1, "a non-string value in another table"),
    Code("E_LOCALE_KEY", 1, "a labelKey with no text in the default (and fallback) table"),
    Code("E_LOCALE_SCRIPT_KEY", 1, "a literal tr()/setTextKey()/trPlural() key with no text"),
    Code("E_LOCALE_SPRITE_KEY", 1, "a Sprite2D textureKey with no sprites entry, and no own texture"),
    Code("W_LOCALE_SPRITE_KEY", 1, "a textureKey/stateTextureKeys/trSprite() key with no sprites entry"),
    Code("E_MISSING_LOCALE_SPRITE", 1, "an image a locale table's sprites names does not exist"),
    Code("E_AUTOLOAD", 1, "a pix3project.yaml autoload that never runs"),
    Code("W_LEGACY_VERSION", 1, "the scene version: is missing or not current"),
    Code("W_UNUSED_ASSET", 1, "a file under sprites/ or audio/ nothing references (whole project)"),
    Code("E_LOAD", 2, "the loader rejected the scene or warned"),
    Code("E_PENDING_COMPONENT", 2, "a component is still unregistered after the scripts compiled"),
    Code("E_SCRIPT_COMPILE", 2, "the project scripts do not compile"),
    Code("W_SCRIPT_IMPORT", 2, "the compiled scripts threw on import"),
    Code("W_HYDRATE_SKIPPED", 2, "level 2 did not run"),
    Code("W_RENDERABILITY", 2, "W_RENDERABILITY_<ISSUE>: no light, no 3D camera, PBR on mobile"),
)

CODE_NAMES: Final[frozenset[str]] = frozenset(c.code for c in CODES)


def codes_help() -> str:
    """The ``Codes:`` block ``pix3 validate --help`` appends to the usage."""
    lines = ["Codes:"] + [f"  {c.code.ljust(26)} L{c.level}  {c.summary}" for c in CODES]
    return "\n".join(lines) + "\n"
