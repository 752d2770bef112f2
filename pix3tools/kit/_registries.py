"""Facts the kit states, read from the code that owns them.

Each function answers ``None`` when the owning module is not part of this build (validate and the
scene model come from their own package): the kit then leaves that part out rather than guess.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pix3tools.gap import KINDS

# The editor's bridge tools (docs/bridge.md): name → parameters. Every editor page answers all of
# them: the real editor (@pix3/editor-core) and the dev server's own page alike.
BRIDGE_TOOLS: dict[str, str] = {
    "pix3_status": "{}",
    "pix3_sync": "{expect?, timeoutMs?}",
    "pix3_scene": "{path?, maxDepth?, nodeId?, find?}",
    "pix3_play": "{action: start|stop|restart|pause|status, scenePath?, force?}",
    "pix3_game_run": "{until, fail?, maxFrames?, maxWallMs?, settleMs?, pauseOnOutcome?}",
    "pix3_screenshot": "{target: game|viewport}",
    "pix3_errors": "{since?, clear?}",
}

# Where each kind of fact may live once its package lands (module, attribute names tried in order).
_NODE_TYPE_SOURCES = (("pix3tools.scene", ("NODE_TYPES", "KNOWN_NODE_TYPES", "KNOWN_SCENE_NODE_TYPES")),)
_CODE_SOURCES = (
    ("pix3tools.validate", ("CODES", "DIAGNOSTIC_CODES", "REGISTRY")),
    ("pix3tools.check", ("CODES", "DIAGNOSTIC_CODES")),
)

STARTER_PACKAGE = Path(__file__).resolve().parents[1] / "new" / "templates" / "base" / "files" / "package.json"


def _probe(sources: Iterable[tuple[str, tuple[str, ...]]]) -> list[Any]:
    found: list[Any] = []
    for module_name, names in sources:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in names:
            value = getattr(module, name, None)
            if value is not None:
                found.append(value)
                break
    return found


def _describe(value: Any) -> str:
    if isinstance(value, str):
        return value
    for attr in ("summary", "description", "when", "message"):
        text = getattr(value, attr, None)
        if isinstance(text, str):
            return text
    if isinstance(value, Mapping):
        for key in ("summary", "description", "when"):
            if isinstance(value.get(key), str):
                return str(value[key])
    return ""


def node_types() -> list[str] | None:
    """The node types the scene loader knows, or ``None`` when the scene model is absent."""
    sources = _probe(_NODE_TYPE_SOURCES)
    if not sources:
        return None
    names: set[str] = set()
    for source in sources:
        names.update(str(name) for name in source)
    names.discard("Layout2D")  # listed only so the loader can reject it
    return sorted(names)


def diagnostic_codes() -> dict[str, str] | None:
    """Every diagnostic code a command emits → a one-line description; ``None`` when none is built."""
    sources = _probe(_CODE_SOURCES)
    if not sources:
        return None
    codes: dict[str, str] = {}
    for source in sources:
        if isinstance(source, Mapping):
            for code, value in source.items():
                codes.setdefault(str(code), _describe(value))
        else:
            for item in source:
                code = item if isinstance(item, str) else getattr(item, "code", None)
                if isinstance(code, str):
                    codes.setdefault(code, "" if isinstance(item, str) else _describe(item))
    return codes


def core_components() -> dict[str, list[str]] | None:
    """Built-in ``core:`` components → their documented config keys; ``None`` without the scene model."""
    sources = _probe((("pix3tools.scene", ("COMPONENTS",)),))
    if not sources:
        return None
    found: dict[str, list[str]] = {}
    for name, schema in sources[0].items():
        props = getattr(schema, "props", {})
        found[str(name)] = [str(key) for key in props]
    return found


def starter_scripts() -> dict[str, str]:
    """The starter's npm scripts, in the order of its package.json."""
    data = json.loads(STARTER_PACKAGE.read_text(encoding="utf-8"))
    scripts: dict[str, str] = data["scripts"]
    return scripts


def gap_kinds() -> tuple[str, ...]:
    return KINDS
