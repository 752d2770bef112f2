"""The locale keys a node sets, collected for the locale checks (docs/validate.md, "Scene rules":
"Keys collected for the locale checks").

One rule for a plain node and an instance node: the node's type (for an instance, its prefab
root's) decides which keys count, and whether the node has a texture of its own is read from the
node (for an instance, from the prefab root). A second copy of this rule for instances once
missed ``stateTextureKeys``; there is one now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

from pix3tools.scene import PathSeg

__all__ = ["BUTTON_STATES", "KeyUse", "collect_keys", "own_texture"]

# Button2D's states, as its disk block `stateTextureKeys` and its schema names
# `texture<State>Key` spell them (docs/validate.md, "The disk format").
BUTTON_STATES = ("normal", "hover", "pressed", "disabled")


@dataclass(frozen=True)
class KeyUse:
    """A locale key a scene sets: ``kind`` is "label" or "sprite"; ``own_texture`` for sprites."""

    kind: str
    key: str
    prop: str
    node_id: str | None
    path: tuple[PathSeg, ...]
    own_texture: bool = True
    severe: bool = False  # a Sprite2D with no texture of its own: a missing image is an error


def own_texture(props: dict[str, Any]) -> bool:
    """Whether a node draws a texture of its own (a locale sprite key then only overrides it)."""
    texture = props.get("texture")
    if texture is not None and texture != "":
        return True
    path = props.get("texturePath")
    return path is not None and path != ""


def _text(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip())


def collect_keys(
    uses: list[KeyUse],
    node_id: str | None,
    type_name: str | None,
    props: dict[str, Any],
    at: tuple[PathSeg, ...],
    own: bool,
) -> None:
    """Append the keys of one node's ``props`` (at ``at``) to ``uses``: ``labelKey`` on any node;
    a ``Sprite2D``'s ``textureKey`` (an error when missing only if ``own`` is false); a
    ``Button2D``'s state keys, in either spelling (``stateTextureKeys.<state>``, as a plain node
    stores them, or ``texture<State>Key``, the schema name an instance uses)."""
    base = (*at, "properties")
    label = props.get("labelKey")
    if _text(label):
        uses.append(KeyUse("label", label, "labelKey", node_id, (*base, "labelKey")))
    if type_name == "Sprite2D":
        key = props.get("textureKey")
        if _text(key):
            uses.append(KeyUse("sprite", key, "textureKey", node_id, (*base, "textureKey"), own, not own))
    if type_name == "Button2D":
        states = props.get("stateTextureKeys")
        if isinstance(states, dict):
            for state in BUTTON_STATES:
                key = states.get(state)
                if _text(key):
                    where = (*base, "stateTextureKeys", state)
                    uses.append(KeyUse("sprite", key, f"stateTextureKeys.{state}", node_id, where))
        for state in BUTTON_STATES:
            name = f"texture{state.title()}Key"
            key = props.get(name)
            if _text(key):
                uses.append(KeyUse("sprite", key, name, node_id, (*base, name)))
