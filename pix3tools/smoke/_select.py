"""Which scenes `pix3 smoke` runs when no scene is named (docs/smoke.md, "Scene selection").

Pure: the project's file list, a function reading a file's text, the git change list (or None
when there is no git) and the two flags go in; a :class:`Selection` or a :class:`SelectionError`
comes out. The patterns are lexical on purpose: a scene's YAML and a script's source are read as
text, so a file that does not parse still counts for what it names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pix3tools._js import locale_key
from pix3tools.core.walk import INVENTORY
from pix3tools.project import project_path

# The editor's startup scene: where the starters and the 1.x recipes put the game. Runs first.
MAIN_SCENE = "scenes/main.pix3scene"
# How many orphans the widening reason names before "…".
ORPHANS_NAMED = 3

# An `instance:` line (also as a list item); the target is taken as written, only leading "/"
# removed, so `./x` or `RES://x` never equals a project path (the reference does the same).
_INSTANCE = re.compile(r"^\s*(?:-\s+)?instance:\s*[\"']?(?:res://)?([^\"'\s#]+)", re.MULTILINE)
_RES_REF = re.compile(r"res://[^\"'\s#)]+")
_USER_COMPONENT = re.compile(r"\buser:([A-Za-z_$][\w$]*)", re.ASCII)
_EXPORTED_CLASS = re.compile(r"\bexport\s+(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)", re.ASCII)
_PREFAB_OR_UI = re.compile(r"(^|/)(prefabs?|ui)/", re.IGNORECASE)
_SCRIPT_EXTS = (".ts", ".mts", ".js", ".mjs")
_NOT_GAME_CODE = tuple(f".{kind}{ext}" for kind in ("d", "spec", "test") for ext in _SCRIPT_EXTS)

ReadText = Callable[[str], str]


def is_scene(path: str) -> bool:
    return path.endswith(".pix3scene")


def is_script(path: str) -> bool:
    """Game code: ``.ts/.mts/.js/.mjs``, not a declaration file, a spec or a test."""
    return path.endswith(_SCRIPT_EXTS) and not path.endswith(_NOT_GAME_CODE)


def is_code(path: str) -> bool:
    return is_scene(path) or is_script(path)


def has_ignored_segment(path: str) -> bool:
    """Under a folder the inventory never enters (``node_modules``, a ``.yalc`` copy, …)."""
    return INVENTORY.hides(path)


def instance_targets(text: str) -> list[str]:
    return [match.group(1).lstrip("/") for match in _INSTANCE.finditer(text)]


def top_level_scenes(files: Sequence[str], read: ReadText, manifest_default: str | None) -> list[str]:
    """Scenes no other scene instances and not under a ``prefab(s)/`` or ``ui/`` folder, in run
    order: the main scene, then the manifest's default scene, then the rest by name."""
    scenes = [f for f in files if is_scene(f)]
    instanced = {target for scene in scenes for target in instance_targets(read(scene))}
    top = [s for s in scenes if s not in instanced and not _PREFAB_OR_UI.search(s)]

    def rank(scene: str) -> int:
        if scene == MAIN_SCENE:
            return 0
        return 1 if scene == manifest_default else 2

    return sorted(top, key=lambda s: (rank(s), locale_key(s)))


def class_index(files: Iterable[str], read: ReadText) -> dict[str, list[str]]:
    """Class name → the scripts exporting it (scripts in file-list order)."""
    index: dict[str, list[str]] = {}
    for path in files:
        if is_script(path):
            for match in _EXPORTED_CLASS.finditer(read(path)):
                exporters = index.setdefault(match.group(1), [])
                if path not in exporters:
                    exporters.append(path)
    return index


def _through_instances(scene: str, read: ReadText) -> Iterator[tuple[str, str]]:
    """``(path, text)`` of the scene and of everything it instances, at any depth, each once."""
    seen: set[str] = set()
    work = [scene]
    while work:
        path = work.pop()
        if path in seen:
            continue
        seen.add(path)
        text = read(path)
        work.extend(instance_targets(text))
        yield path, text


def dependencies(scene: str, read: ReadText, classes: dict[str, list[str]]) -> set[str]:
    """Every project file a top-level scene reaches: itself, what it instances (followed through
    any depth, even a file that is missing), the non-scene ``res://`` files they name and the
    scripts exporting a ``user:`` class they attach. Neither a script's imports nor a scene named
    outside an ``instance:`` line (a ``changeScene`` target) is followed."""
    reached: set[str] = set()
    for path, text in _through_instances(scene, read):
        reached.add(path)
        for match in _RES_REF.finditer(text):
            target = project_path(match.group(0))
            if target is not None and not is_scene(target):
                reached.add(target)
        for match in _USER_COMPONENT.finditer(text):
            reached.update(classes.get(match.group(1), ()))
    return reached


def attached_scripts(scene: str, read: ReadText) -> list[str]:
    """The ``user:`` component types a scene and everything it instances attach, sorted."""
    types: set[str] = set()
    for _, text in _through_instances(scene, read):
        types.update(f"user:{match.group(1)}" for match in _USER_COMPONENT.finditer(text))
    return sorted(types)


@dataclass(frozen=True)
class Selection:
    mode: Literal["changed", "all"]
    scenes: list[str]
    reason: str
    changed: list[str] | None = field(default=None)


@dataclass(frozen=True)
class SelectionError:
    """No scene can be picked: the run set is one ``E_SMOKE_NO_SCENE`` failure with this reason."""

    reason: str


def select_scenes(
    files: Sequence[str],
    read: ReadText,
    changed: list[str] | None,
    *,
    changed_only: bool = False,
    run_all: bool = False,
    manifest_default: str | None = None,
) -> Selection | SelectionError:
    """The scenes to run with no scene argument (first matching rule wins; docs/smoke.md).

    ``changed`` is git's list of changed project files (see ``_git.changed_files``) or None
    without git; paths under an ignored folder (``node_modules``, a ``.yalc`` package copy, …)
    are not project changes and are dropped first. It is not looked at under ``run_all``.
    """
    if changed is not None:
        changed = [path for path in changed if not has_ignored_segment(path)]
    if not any(is_scene(f) for f in files):
        return SelectionError("the project has no .pix3scene files.")
    top = top_level_scenes(files, read, manifest_default)
    if not top:
        return SelectionError(
            "every scene is a prefab, a scenes/ui overlay or instanced by another — name one: pix3 smoke <scene>."
        )
    if run_all:
        return Selection("all", top, "--all: every top-level scene")
    if changed is None:
        if changed_only:
            return SelectionError("--changed needs git and a project inside a git work tree.")
        return Selection("all", top, "every top-level scene (no git history to narrow it down)")
    if not changed:
        if changed_only:
            return SelectionError("--changed: nothing changed since the last commit.")
        return Selection("all", top, "every top-level scene (nothing changed since the last commit)")
    if "pix3project.yaml" in changed:
        return Selection("all", top, "every top-level scene (pix3project.yaml changed)", changed)
    classes = class_index(files, read)
    reach = {scene: dependencies(scene, read, classes) for scene in top}
    reached_any = set().union(*reach.values())
    orphans = [path for path in changed if is_code(path) and path not in reached_any]
    if orphans:
        named = ", ".join(orphans[:ORPHANS_NAMED]) + (", …" if len(orphans) > ORPHANS_NAMED else "")
        return Selection("all", top, f"every top-level scene (changed {named} reaches no scene directly)", changed)
    changed_set = set(changed)
    picked = [scene for scene in top if reach[scene] & changed_set]
    if not picked:
        return Selection("all", top, "every top-level scene (no changed file is used by a scene)", changed)
    reason = f"scenes reached by files changed since the last commit ({len(changed)} changed; --all for every scene)"
    return Selection("changed", picked, reason, changed)
