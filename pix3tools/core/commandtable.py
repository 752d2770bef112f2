"""The command table: which commands exist, in the overview's order, and the module of each.

A command is listed here only once it works (no stubs in the usage text). Each entry module has
``main(argv: list[str]) -> int`` and declares its arguments (docs/cli.md, "How a command declares
its arguments"). Modules are named here, never imported: the entry loads one only when its command
runs, so ``pix3 --version`` and ``pix3 help`` load nothing heavy.
"""

from __future__ import annotations

__all__ = ["COMMANDS", "HIDDEN", "ORDER", "entry_module"]

# The overview's order (docs/cli.md).
ORDER: tuple[str, ...] = (
    "new",
    "editor",
    "agent-setup",
    "validate",
    "check",
    "smoke",
    "tree",
    "kit",
    "character-compile",
    "sfx",
    "gap",
)

COMMANDS: dict[str, str] = {
    "new": "pix3tools.new.command",
    "editor": "pix3net.commands.editor.command",
    "agent-setup": "pix3net.commands.agentsetup.command",
    "validate": "pix3tools.validate.command",
    "check": "pix3tools.check.command",
    "smoke": "pix3net.commands.smoke.command",
    "tree": "pix3tools.tree.command",
    "kit": "pix3tools.kit.command",
    "character-compile": "pix3tools.character.command",
    "sfx": "pix3tools.sfx.command",
    "gap": "pix3tools.gap.command",
}

# Dispatched, never listed: the two daemons `pix3 editor` starts.
HIDDEN: dict[str, str] = {
    "__chrome-owner": "pix3net.owner.command",
    "__dev-server": "pix3net.devserver.command",
}


def entry_module(name: str) -> str | None:
    """The module that runs ``name``, or None when no such command is dispatched."""
    return COMMANDS.get(name) or HIDDEN.get(name)
