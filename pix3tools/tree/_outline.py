"""A scene's outline: one record per node, read from the YAML alone (docs/tree.md).

The depth cut happens while building (nodes below it are never built), then `--types` prunes
to the matching nodes and their ancestors (kept as context). Anchored 2D nodes in the W21
margin form get the rect the runtime's layout pass gives them at the design size.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pix3tools.project import Project, first_mapping, project_path
from pix3tools.tree._text import is_number, tidy_number

__all__ = ["Instance", "Node", "OutlineOptions", "build_outline", "count_nodes", "normalise_type"]

MARGIN_SIDES = ("left", "right", "top", "bottom")
_NON_ALNUM = re.compile(r"[^a-z0-9]")

Size = tuple[float | None, float | None]


def normalise_type(text: str) -> str:
    return _NON_ALNUM.sub("", text.lower())


@dataclass
class Instance:
    path: str
    root_type: str | None
    root_name: str | None
    overrides: int
    properties: int


@dataclass
class Node:
    raw: dict[str, Any]
    id: str
    type: str
    name: str | None
    depth: int
    properties: dict[str, Any]
    instance: Instance | None = None
    position: list[float] | None = None
    size: tuple[float, float] | None = None
    layout: str | None = None
    margins: dict[str, float] | None = None
    resolved_position: list[float | None] | None = None
    resolved_size: Size | None = None
    hidden: bool = False
    text: str | None = None
    groups: list[str] | None = None
    components: list[dict[str, Any]] = field(default_factory=list)
    below: int | None = None
    context: bool = False
    children: list[Node] = field(default_factory=list)
    props: dict[str, Any] | None = None

    def shown(self) -> int:
        return 1 + sum(child.shown() for child in self.children)


@dataclass(frozen=True)
class OutlineOptions:
    depth: int | None = None
    types: tuple[str, ...] = ()


def count_nodes(items: object) -> int:
    """Every mapping in `root:`/`children:` lists, recursively (prefab contents not counted)."""
    if not isinstance(items, list):
        return 0
    total = 0
    stack: list[Any] = list(items)
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            total += 1
            children = item.get("children")
            if isinstance(children, list) and not isinstance(item.get("instance"), str):
                stack.extend(children)
    return total


def _prefab_root(project: Project, reference: str) -> tuple[str | None, str | None] | None:
    """(type, name) an instance line shows for its prefab: the prefab's first node as written,
    with the type of the node a chain of instances finally stands for; None when unreadable.
    A type that cannot be followed (a cycle, an unreadable inner prefab) is None."""
    target = project_path(reference)
    roots = project.prefabs.roots(target)
    first = first_mapping(roots) if roots is not None and target is not None else None
    if first is None or target is None:
        return None
    name = first.get("name") if isinstance(first.get("name"), str) else None
    inner, complete = project.prefabs.innermost(first, {target}, first_mapping)
    kind = inner.get("type") if complete and isinstance(inner, dict) else None
    return (kind if isinstance(kind, str) else None), name


def _vector(value: Any) -> list[float] | None:
    if isinstance(value, list) and value and all(is_number(v) for v in value):
        return [float(v) if isinstance(v, float) else v for v in value]
    if isinstance(value, dict) and "x" in value:
        parts = [value[k] for k in ("x", "y", "z", "w") if k in value]
        if all(is_number(v) for v in parts):
            return parts
    return None


def _edits(raw: dict[str, Any]) -> tuple[int, int]:
    overrides = 0
    block = raw.get("overrides")
    by_local = block.get("byLocalId") if isinstance(block, dict) else None
    if isinstance(by_local, dict):
        for entry in by_local.values():
            if not isinstance(entry, dict):
                overrides += 1
                continue
            props = entry.get("properties")
            if isinstance(props, dict):
                overrides += len(props)
            elif props is not None:
                overrides += 1
    props = raw.get("properties")
    return overrides, len(props) if isinstance(props, dict) else 0


def _axis(
    align: object, near: float | None, far: float | None, parent: float | None, length: float | None
) -> tuple[float | None, float | None] | None:
    """(position, length) on one axis from its margins; None when the axis is not anchored by
    margins (pre-W21 or centred): the file's values stand. ``near`` is the left/bottom margin,
    ``far`` the right/top one, in the runtime's Y-up frame."""
    half = parent / 2 if parent is not None else None
    if align == "stretch" and near is not None and far is not None:
        size = parent - near - far if parent is not None else None
        return (near - far) / 2, size
    if align == "near" and near is not None:
        x = -half + near + length / 2 if half is not None and length is not None else None
        return x, length
    if align == "far" and far is not None:
        x = half - far - length / 2 if half is not None and length is not None else None
        return x, length
    return None


def _resolve_layout(node: Node, layout: dict[str, Any], parent: Size) -> None:
    margins = {side: layout[side] for side in MARGIN_SIDES if is_number(layout.get(side))}
    if not margins:
        return
    node.margins = margins
    horizontal = {"left": "near", "right": "far"}.get(str(layout.get("horizontalAlign")), layout.get("horizontalAlign"))
    vertical = {"bottom": "near", "top": "far"}.get(str(layout.get("verticalAlign")), layout.get("verticalAlign"))
    position = node.position or [0, 0]
    width = node.properties.get("width")
    height = node.properties.get("height")
    w = float(width) if is_number(width) else None
    h = float(height) if is_number(height) else None
    x_axis = _axis(horizontal, margins.get("left"), margins.get("right"), parent[0], w)
    y_axis = _axis(vertical, margins.get("bottom"), margins.get("top"), parent[1], h)
    x: float | None = position[0]
    y: float | None = position[1] if len(position) > 1 else 0
    if x_axis is not None:
        x, w = x_axis
    if y_axis is not None:
        y, h = y_axis
    resolved: list[float | None] = [tidy_number(x), tidy_number(y), *position[2:]]
    node.resolved_position = resolved
    node.resolved_size = (tidy_number(w), tidy_number(h))


def _make(raw: dict[str, Any], depth: int, parent: Size, project: Project) -> Node:
    props = raw.get("properties")
    properties: dict[str, Any] = props if isinstance(props, dict) else {}
    ident = raw.get("id")
    name = raw.get("name")
    node = Node(
        raw=raw,
        id=ident if isinstance(ident, str) and ident else "?",
        type="?",
        name=name if isinstance(name, str) else None,
        depth=depth,
        properties=properties,
    )
    reference = raw.get("instance")
    if isinstance(reference, str):
        found = _prefab_root(project, reference)
        overrides, own = _edits(raw)
        node.instance = Instance(reference, found[0] if found else None, found[1] if found else None, overrides, own)
        node.type = (found[0] or "?") if found else "Instance"
    elif isinstance(raw.get("type"), str):
        node.type = raw["type"]
    transform = properties.get("transform")
    position = transform.get("position") if isinstance(transform, dict) else None
    node.position = _vector(position if position is not None else properties.get("position"))
    width, height = properties.get("width"), properties.get("height")
    if is_number(width) and is_number(height):
        node.size = (width, height)
    layout = properties.get("layout")
    if node.instance is None and isinstance(layout, dict) and layout.get("enabled") is True:
        h_align, v_align = layout.get("horizontalAlign"), layout.get("verticalAlign")
        node.layout = (
            f"{h_align if isinstance(h_align, str) else 'none'}/{v_align if isinstance(v_align, str) else 'none'}"
        )
        _resolve_layout(node, layout, parent)
    node.hidden = properties.get("visible") is False
    label = properties.get("label")
    node.text = label if isinstance(label, str) else None
    groups = raw.get("groups")
    if isinstance(groups, list) and groups:
        node.groups = [str(g) for g in groups]
    components = raw.get("components")
    if isinstance(components, list):
        node.components = [c for c in components if isinstance(c, dict)]
    return node


def _own_size(node: Node) -> Size:
    if node.resolved_size is not None:
        return node.resolved_size
    if node.size is not None:
        return (float(node.size[0]), float(node.size[1]))
    w, h = node.properties.get("width"), node.properties.get("height")
    return (float(w) if is_number(w) else None, float(h) if is_number(h) else None)


def build_outline(
    doc: dict[str, Any],
    root: Path,
    viewport: Size,
    options: OutlineOptions,
    props: Callable[[Node], dict[str, Any] | None] | None = None,
) -> list[Node]:
    """The outline of a scene document (``doc["root"]`` is a list)."""
    project = Project(root)

    def build(raw: dict[str, Any], depth: int, parent: Size) -> Node:
        node = _make(raw, depth, parent, project)
        if props is not None:
            node.props = props(node)
        children = raw.get("children")
        if node.instance is None and isinstance(children, list):
            items = [c for c in children if isinstance(c, dict)]
            if options.depth is not None and depth >= options.depth:
                if items:
                    node.below = count_nodes(items)
            else:
                size = _own_size(node)
                node.children = [build(child, depth + 1, size) for child in items]
        return node

    nodes = [build(item, 0, viewport) for item in doc["root"] if isinstance(item, dict)]
    if options.types:
        wanted = {normalise_type(t) for t in options.types}
        nodes = _prune(nodes, wanted)
    return nodes


def _matches(node: Node, wanted: set[str]) -> bool:
    own = "instance" if node.instance is not None else node.type
    if normalise_type(own) in wanted:
        return True
    return any(isinstance(c.get("type"), str) and normalise_type(c["type"]) in wanted for c in node.components)


def _prune(nodes: list[Node], wanted: set[str]) -> list[Node]:
    kept: list[Node] = []
    for node in nodes:
        node.children = _prune(node.children, wanted)
        if _matches(node, wanted):
            kept.append(node)
        elif node.children:
            node.context = True
            kept.append(node)
    return kept
