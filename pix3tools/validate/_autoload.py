"""``pix3project.yaml`` autoloads (E_AUTOLOAD; docs/validate.md, "Project rules")."""

from __future__ import annotations

import re

from pix3tools.core import PROJECT_FILE
from pix3tools.project import project_path
from pix3tools.scene import Document
from pix3tools.validate._context import ValidateProject
from pix3tools.validate._report import Diagnostic
from pix3tools.validate._scripts import is_script_folder

__all__ = ["check_autoloads"]

_SCRIPT_EXT = re.compile(r"\.(?:ts|js|mjs|cjs|tsx|jsx)$")


def check_autoloads(project: ValidateProject, manifest: Document | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if manifest is None or not isinstance(manifest.data, dict):
        return out
    autoloads = manifest.data.get("autoloads")
    if autoloads is None:
        return out

    def emit(path: tuple[str | int, ...], message: str, fix: str | None = None) -> None:
        out.append(Diagnostic("E_AUTOLOAD", PROJECT_FILE, message, path=path, fix=fix, doc=manifest))

    if not isinstance(autoloads, list):
        emit(("autoloads",), "autoloads: must be a list; the game reads none.")
        return out
    seen: set[str] = set()
    for i, entry in enumerate(autoloads):
        at: tuple[str | int, ...] = ("autoloads", i)
        singleton = entry.get("singleton") if isinstance(entry, dict) else None
        script = entry.get("scriptPath") if isinstance(entry, dict) else None
        if not (isinstance(singleton, str) and singleton.strip() and isinstance(script, str) and script.strip()):
            emit(
                at,
                "an autoload needs a singleton name and a scriptPath; this one is skipped.",
                "- singleton: Game\n  scriptPath: scripts/Game.ts",
            )
            continue
        assert isinstance(entry, dict)
        singleton = singleton.strip()
        if singleton in seen:
            emit((*at, "singleton"), f'singleton "{singleton}" is declared twice; the game keeps the first.')
            continue
        seen.add(singleton)
        if entry.get("enabled") is False:
            continue
        rel = project_path(script) or script.strip()
        name = _SCRIPT_EXT.sub("", rel.rsplit("/", 1)[-1])
        where = (*at, "scriptPath")
        if not is_script_folder(rel):
            emit(
                where,
                f'{rel} is not under scripts/ or src/scripts/: the game only loads scripts from there, so "{singleton}"'
                " never runs.",
                f"move it to scripts/{name}.ts",
            )
            continue
        if not project.files.exists(rel):
            emit(where, f'{rel} does not exist: autoload "{singleton}" never runs.')
            continue
        scripts = project.scripts
        if rel not in scripts.entries:
            emit(
                where,
                f'{rel} is not a script entry (no "extends Script" in a .ts/.js file): autoload "{singleton}" never'
                " runs.",
            )
            continue
        if name not in scripts.entries[rel] and rel not in scripts.opaque_files:
            emit(
                where,
                f"{rel} does not export {name}: an autoload's class is the one named like its file (user:{name}),"
                f' so "{singleton}" never runs.',
                f"export class {name} extends Script in {rel}",
            )
    return out
