"""The codes `pix3 check` adds to validate's, in help order (docs/check.md, "Codes")."""

from __future__ import annotations

CHECK_CODES: tuple[tuple[str, str, str], ...] = (
    ("E_TYPE", "error", "a TypeScript error in a project script"),
    ("E_DEPENDENCIES_MISSING", "error",
     "the project has its own tsconfig.json but no node_modules: run npm install (the type-check was skipped)"),
    ("E_TYPECHECK_UNAVAILABLE", "error",
     "TypeScript (or, without a tsconfig.json of the project's own, three's types) could not be found or "
     "installed, so the scripts were not type-checked"),
    ("E_EDITOR_UNSYNCED", "error",
     "a running Pix3 editor did not flush its unsaved scenes in time, so the disk may be older than what the "
     "designer sees (--no-sync reads it anyway)"),
    ("E_RUNTIME_VERSION", "error",
     "the project's node_modules/@pix3/runtime is not the runtime this CLI validates with (run the project's own "
     "CLI, or install the matching runtime)"),
    ("W_PIX3_VERSION_MISMATCH", "warning",
     "an installed @pix3/cli, @pix3/vite-plugin or @pix3/editor-core is not this CLI's version (the packages are "
     "released in lockstep)"),
    ("W_VITE_ADVISORY", "warning",
     "the project's node_modules/vite is a version with known dev-server advisories (the message names them and "
     "the version that fixes them)"),
    ("W_RUNTIME_NOT_INSTALLED", "warning",
     "the project has its own tsconfig.json and node_modules, but no node_modules/@pix3/runtime"),
    ("W_KIT_OUTDATED", "warning", "the agent kit in this project was written by another CLI version"),
    ("W_EDITOR_HMR_API", "warning",
     "import.meta.hot in a module the editor runs (a script, a bot policy or what they import): Vite puts its HMR "
     "client on the editor page, and a full-reload of the game reloads the editor"),
    ("W_EDITOR_CSS_IMPORT", "warning",
     "a stylesheet imported by a module the editor runs: Vite puts its HMR client on the editor page"),
    ("W_EDITOR_DYNAMIC_IMPORT", "warning",
     "a non-literal import() in a module the editor runs: Vite wraps it with a helper from its HMR client, which "
     "then loads on the editor page"),
)  # fmt: skip


def codes_help() -> str:
    lines = ["Codes added to validate's (pix3 validate --help lists those):"]
    lines += [f"  {code:<28} {summary}" for code, _, summary in CHECK_CODES]
    return "\n".join(lines) + "\n"
