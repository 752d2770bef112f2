"""The generated parts of the kit: each a function of the code, never of hand-kept lists."""

from __future__ import annotations

from collections.abc import Callable

from pix3tools.core.commandtable import ORDER
from pix3tools.core.usage import COMMAND_USAGE, OVERVIEW_BLOCKS
from pix3tools.kit import _registries

_FACTS: dict[str, Callable[[], object | None]] = {
    "codes": _registries.diagnostic_codes,
    "node-types": _registries.node_types,
    "components": _registries.core_components,
}


def fact_available(name: str) -> bool:
    if name not in _FACTS:
        raise ValueError(f"unknown kit fact {name!r}")
    return _FACTS[name]() is not None


def _commands(commands: set[str]) -> list[str]:
    blocks = [OVERVIEW_BLOCKS[name] for name in ORDER if name in commands]
    return ["```text", *"\n".join(blocks).split("\n"), "```"]


def _usage(commands: set[str], name: str) -> list[str]:
    if name not in commands:
        return []
    return ["```text", *COMMAND_USAGE[name].rstrip("\n").split("\n"), "```"]


# What each starter script is for, in the agent's words; a script missing here shows its command.
_SCRIPT_PURPOSE = {
    "dev": "the game in the browser, served by Vite with hot reload",
    "editor": "the Pix3 editor in Chrome, behind the CDP token proxy (see the pix3-editor skill)",
    "build": "a production build in `dist/`",
    "preview": "serves the production build",
    "check": "flush the open editor, validate every scene, type-check the scripts (see pix3-verify)",
    "smoke": "run the game headless and report what threw",
}


def _npm_scripts() -> list[str]:
    return [
        f"- `npm run {name}` — {_SCRIPT_PURPOSE.get(name, f'runs `{command}`')}"
        for name, command in _registries.starter_scripts().items()
    ]


def _codes() -> list[str]:
    codes = _registries.diagnostic_codes() or {}
    rows = ["| Code | Severity | Meaning |", "| --- | --- | --- |"]
    for code, text in codes.items():
        severity = "error" if code.startswith("E_") else "warning"
        rows.append(f"| `{code}` | {severity} | {text.replace('|', '/')} |")
    return rows


def _node_types() -> list[str]:
    names = _registries.node_types() or []
    two_d = [n for n in names if n.endswith("2D")]
    three_d = [n for n in names if n not in two_d and n not in ("Group", "PostProcess", "AudioPlayer")]
    other = [n for n in names if n in ("Group", "PostProcess", "AudioPlayer")]
    lines: list[str] = []
    for title, group in (("2D", two_d), ("3D", three_d), ("Either", other)):
        if group:
            lines.append(f"- {title}: " + ", ".join(f"`{n}`" for n in group))
    return lines


def _components() -> list[str]:
    rows = ["| Component | Config keys (documented) |", "| --- | --- |"]
    for name, keys in (_registries.core_components() or {}).items():
        rows.append(f"| `{name}` | {', '.join(f'`{k}`' for k in keys) or '—'} |")
    return rows


def _bridge_tools() -> list[str]:
    rows = ["| Tool | Params |", "| --- | --- |"]
    for name, params in _registries.BRIDGE_TOOLS.items():
        rows.append(f"| `{name}` | `{params}` |")
    return rows


def generate(name: str, args: list[str], *, commands: set[str]) -> list[str]:
    if name == "commands":
        return _commands(commands)
    if name == "usage":
        return _usage(commands, args[0])
    if name == "npm-scripts":
        return _npm_scripts()
    if name == "gap-kinds":
        return ["|".join(_registries.gap_kinds())]
    if name == "codes":
        return _codes()
    if name == "node-types":
        return _node_types()
    if name == "components":
        return _components()
    if name == "bridge-tools":
        return _bridge_tools()
    raise ValueError(f"unknown generated block {name!r}")
