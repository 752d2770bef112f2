"""The dispatch table: which commands exist and where each one lives.

A command is listed here only once it works (DEVELOPERS.md: no stubs in the usage text). Each
target is ``"module:function"``; the function takes the command's own argv and returns the exit
code. Modules are imported only when their command runs, so ``pix3 --version`` and ``pix3 help``
load nothing heavy.
"""

from __future__ import annotations

# Order is the usage overview's order (spec/cli.md §1.3).
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
    "new": "pix3tools.new:main",
    "editor": "pix3net.editor.command:run",
    "agent-setup": "pix3net.agents.command:run",
    "validate": "pix3tools.validate.cli:main",
    "check": "pix3tools.check.cli:main",
    "smoke": "pix3net.smoke.command:main",
    "tree": "pix3tools.tree.cli:main",
    "kit": "pix3tools.kit:main",
    "character-compile": "pix3tools.character.cli:main",
    "sfx": "pix3tools.sfx.cli:main",
    "gap": "pix3tools.gap:main",
}

# Hidden commands: dispatched, never listed.
HIDDEN: dict[str, str] = {
    "__chrome-owner": "pix3net.chrome.owner:main",
    "__dev-server": "pix3net.devserver.server:main",
}
