"""What to do when the game page's TypeScript reached the browser uncompiled (docs/smoke.md,
"Scripts that did not run").

The shared rules (``judge.js``) word a script refused for its media type; this part depends on the
project folder, which only the command sees: is Vite installed, so that the dev server should have
compiled it? The text is handed to the rules as ``advice``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["compile_advice"]


def compile_advice(root: Path, vite: Path | None, base_url: str) -> str:
    """What to do when the page's TypeScript reached the browser uncompiled (no clause ending)."""
    if vite is None:
        return (
            f"TypeScript needs the project's Vite and there is none (no node_modules/vite in {root} or above):"
            f" run npm install in {root} (while the Pix3 2.0 packages are unpublished that fails,"
            " and the project's README.md says how to link them instead)"
        )
    return (
        f"the dev server at {base_url} serves the project folder without Vite although {vite} is installed:"
        " restart it (stop pix3 editor and start it again)"
    )
