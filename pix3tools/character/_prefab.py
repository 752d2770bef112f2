"""The character prefab as YAML, byte for byte what the reference's `yaml` v2 library writes with
``lineWidth: 0`` (docs/character-compile.md, "The prefab"): 2-space indent, block lists under their key, ``[]`` for an
empty list, and its scalar quoting rules (ruamel's defaults differ, so we emit by hand)."""

from __future__ import annotations

import json
import re
from typing import Any

from pix3tools._js import js_string

__all__ = ["prefab_yaml", "yaml_scalar"]

# Plain text that YAML 1.2's core schema would read back as something other than a string.
_NOT_A_STRING = re.compile(
    r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    r"|true|True|TRUE|false|False|FALSE|null|Null|NULL|~)$"
)
_INDICATORS = tuple("#&*!%@`|>[{,\"'")


def _needs_quotes(text: str) -> bool:
    if text in ("", "-", ":") or _NOT_A_STRING.match(text):
        return True
    if text.startswith(_INDICATORS) or text.startswith(("- ", "? ")):
        return True
    if ": " in text or " #" in text or text.endswith(":"):
        return True
    return text != text.strip(" ")


def yaml_scalar(value: Any, indent: int = 0) -> str:
    """A scalar as the reference writes it (strings plain when they read back as themselves)."""
    if value is None or isinstance(value, bool | int | float):
        return js_string(value)
    text = str(value)
    if "\n" in text:
        pad = " " * (indent + 2)
        return "|-\n" + "\n".join(pad + line if line else "" for line in text.split("\n"))
    if not _needs_quotes(text):
        return text
    if text.startswith('"'):
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text, ensure_ascii=False)


def _emit(value: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict):
        for key, item in value.items():
            if (isinstance(item, dict) and item) or (isinstance(item, list) and item):
                out.append(f"{pad}{key}:")
                _emit(item, indent + 2, out)
            elif isinstance(item, list):
                out.append(f"{pad}{key}: []")
            elif isinstance(item, dict):
                out.append(f"{pad}{key}: {{}}")
            else:
                out.append(f"{pad}{key}: {yaml_scalar(item, indent)}")
        return
    for item in value:
        if isinstance(item, dict) and item:
            lines: list[str] = []
            _emit(item, indent + 2, lines)
            lines[0] = f"{pad}- {lines[0][indent + 2 :]}"
            out.extend(lines)
        else:
            out.append(f"{pad}- {yaml_scalar(item, indent)}")


def prefab_yaml(
    *,
    name: str,
    slug: str,
    animation_path: str,
    clip: str,
    width: int,
    height: int,
    variant: str,
    state: str,
    separator: str,
) -> str:
    document = {
        "version": "1.0.0",
        "metadata": {"name": name, "description": f"{name} — 2D character (variant/state flipbook)"},
        "root": [
            {
                "id": slug,
                "type": "AnimatedSprite2D",
                "name": name,
                "properties": {
                    "animationResourcePath": f"res://{animation_path}",
                    "currentClip": clip,
                    "isPlaying": True,
                    "sizeMode": "native",
                    "width": width,
                    "height": height,
                    "transform": {"position": [0, 0], "scale": [1, 1], "rotation": 0},
                },
                "components": [
                    {
                        "id": f"{slug}-character",
                        "type": "core:CharacterVisual2D",
                        "enabled": True,
                        "config": {"variant": variant, "state": state, "separator": separator},
                    }
                ],
                "children": [],
            }
        ],
    }
    out: list[str] = []
    _emit(document, 0, out)
    return "\n".join(out) + "\n"
