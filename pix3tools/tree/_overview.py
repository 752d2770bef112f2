"""`pix3 tree` with no scene: the project at a glance (docs/tree.md, "Overview (no scene)")."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pix3tools.project import Project, project_path, read_text
from pix3tools.tree._outline import count_nodes
from pix3tools.tree._paths import SceneError, scene_of
from pix3tools.tree._text import is_number

__all__ = ["Overview", "build_overview", "overview_json", "overview_lines"]

_SCRIPT_FILE = re.compile(r"^(?:src/)?scripts/.+\.(?:ts|js)$")
_EXPORTED_CLASS = re.compile(r"export\s+(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)")
_EXTENDS_SCRIPT = re.compile(r"extends\s+Script\b")


@dataclass
class SceneFacts:
    path: str
    nodes: int = 0
    types: Counter[str] = field(default_factory=Counter)
    components: set[str] = field(default_factory=set)
    instances: set[str] = field(default_factory=set)
    error: str | None = None
    kind: str = "scene"
    entry: bool = False

    def sorted_types(self) -> list[tuple[str, int]]:
        return sorted(self.types.items(), key=lambda item: (-item[1], item[0]))


@dataclass
class Overview:
    root: Path
    manifest: dict[str, Any] | None
    scripts: list[str]
    scenes: list[SceneFacts]

    @property
    def failed(self) -> bool:
        return any(scene.error is not None for scene in self.scenes)


def _scripts(project: Project) -> list[str]:
    names: set[str] = set()
    for rel in project.files.files:
        name = rel.rsplit("/", 1)[-1]
        if not _SCRIPT_FILE.match(rel) or name.endswith(".d.ts") or ".spec." in name:
            continue
        text = read_text(project.root / rel)
        if text is not None and _EXTENDS_SCRIPT.search(text):
            names.update(_EXPORTED_CLASS.findall(text))
    return sorted(f"user:{name}" for name in names)


def _kind(path: str, instanced: set[str]) -> str:
    segments = path.split("/")[:-1]
    if "ui" in segments:
        return "overlay"
    if path in instanced or "prefab" in segments or "prefabs" in segments:
        return "prefab"
    return "scene"


def _facts(project: Project, path: str) -> SceneFacts:
    facts = SceneFacts(path)
    try:
        doc = scene_of(project.load(path))
    except SceneError as exc:
        facts.error = f"{path} {exc}"  # a sentence with its subject, in the text and in --json
        return facts
    facts.nodes = count_nodes(doc["root"])
    stack: list[Any] = list(doc["root"])
    while stack:
        item = stack.pop()
        if not isinstance(item, dict):
            continue
        reference = item.get("instance")
        if isinstance(reference, str):
            target = project_path(reference)
            if target is not None:
                facts.instances.add(target)
        else:
            kind = item.get("type")
            if isinstance(kind, str):
                facts.types[kind] += 1
            children = item.get("children")
            if isinstance(children, list):
                stack.extend(children)
        components = item.get("components")
        if isinstance(components, list):
            facts.components.update(
                c["type"] for c in components if isinstance(c, dict) and isinstance(c.get("type"), str)
            )
    return facts


def build_overview(root: Path, manifest: dict[str, Any] | None) -> Overview:
    entry = manifest.get("defaultExportScenePath") if manifest else None
    entry_path = project_path(entry) if isinstance(entry, str) else None
    project = Project(root)
    scenes = [_facts(project, path) for path in project.files.scenes]
    instanced = {target for scene in scenes for target in scene.instances}
    for scene in scenes:
        scene.kind = _kind(scene.path, instanced)
        scene.entry = scene.path == entry_path
    return Overview(root, manifest, _scripts(project), scenes)


def _project_facts(manifest: dict[str, Any]) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    metadata = manifest.get("metadata")
    name = metadata.get("projectName") if isinstance(metadata, dict) else None
    if isinstance(name, str) and name:
        facts["name"] = name
    if isinstance(manifest.get("projectType"), str):
        facts["projectType"] = manifest["projectType"]
    size = manifest.get("viewportBaseSize")
    if isinstance(size, dict) and is_number(size.get("width")) and is_number(size.get("height")):
        facts["viewport"] = {"width": size["width"], "height": size["height"]}
    entry = manifest.get("defaultExportScenePath")
    if isinstance(entry, str) and entry.strip():
        facts["entry"] = project_path(entry) or entry
    return facts


def overview_lines(view: Overview) -> list[str]:
    from pix3tools.tree._text import js_number

    if view.manifest is None:
        lines = [f"{view.root} (no pix3project.yaml)"]
    else:
        facts = _project_facts(view.manifest)
        label = f'"{facts["name"]}"' if "name" in facts else "Project"
        details = []
        if "projectType" in facts:
            details.append(facts["projectType"])
        if "viewport" in facts:
            details.append(f"{js_number(facts['viewport']['width'])}x{js_number(facts['viewport']['height'])}")
        if "entry" in facts:
            details.append(f"entry {facts['entry']} (*)")
        lines = [f"{label} — {', '.join(details)}" if details else label]
    if view.scripts:
        lines.append("scripts: " + " ".join(view.scripts))
    else:
        lines.append("scripts: none (no Script classes under scripts/ or src/scripts/)")
    if not view.scenes:
        lines.append("no .pix3scene files")
    labels = {scene.path: scene.path + (" *" if scene.entry else "") for scene in view.scenes}
    width = max((len(label) for label in labels.values()), default=0)
    pad = " " * (width + 2)
    for scene in view.scenes:
        label = labels[scene.path]
        if scene.error is not None:
            lines.append(f"{label}  UNPARSABLE: {scene.error}")
            continue
        types = " ".join(f"{name}×{n}" if n > 1 else name for name, n in scene.sorted_types())
        noun = "node " if scene.nodes == 1 else "nodes"
        lines.append(
            f"{label.ljust(width)}  {scene.kind.ljust(7)} {str(scene.nodes).rjust(3)} {noun}  {types}".rstrip()
        )
        if scene.components:
            lines.append(f"{pad}components: {' '.join(sorted(scene.components))}")
        if scene.instances:
            lines.append(f"{pad}instances: {' '.join(sorted(scene.instances))}")
    lines.append("")
    lines.append("`pix3 tree <scene>` for one scene's nodes (--depth N, --types A,B, --props).")
    return lines


def overview_json(view: Overview) -> dict[str, Any]:
    scenes = []
    for scene in view.scenes:
        entry: dict[str, Any] = {
            "path": scene.path,
            "nodes": scene.nodes,
            "types": dict(scene.sorted_types()),
            "components": sorted(scene.components),
            "instances": sorted(scene.instances),
        }
        if scene.error is not None:
            entry["error"] = scene.error
        entry["kind"] = scene.kind
        entry["entry"] = scene.entry
        scenes.append(entry)
    return {
        "projectRoot": str(view.root),
        "project": _project_facts(view.manifest) if view.manifest is not None else None,
        "scripts": view.scripts,
        "scenes": scenes,
    }
