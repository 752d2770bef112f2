"""The outline as text lines and as JSON (docs/tree.md, "The node line" and "JSON")."""

from __future__ import annotations

from typing import Any

from pix3tools.tree._outline import MARGIN_SIDES, Node
from pix3tools.tree._text import js_number, js_round, quote_short, tidy_number, value_text

__all__ = ["header", "node_json", "node_lines"]


def header(scene: str, total: int, shown: int, depth: int | None, types: tuple[str, ...]) -> str:
    line = f"{scene} — {total} {'node' if total == 1 else 'nodes'}"
    if shown != total or depth is not None or types:
        parts = []
        if types:
            parts.append(f"matching {','.join(types)} (with ancestors)")
        if depth is not None:
            parts.append(f"to depth {depth}")
        line += f", {shown} shown " + ", ".join(parts)
    return line


def _num(value: float | None) -> str:
    return "?" if value is None else js_number(js_round(value))


def _summary(node: Node) -> str:
    parts = [f"{node.type}#{node.id}"]
    if node.name is not None and node.name != node.id:
        parts.append(quote_short(node.name, 40))
    if node.instance is not None:
        edits = []
        if node.instance.overrides:
            edits.append(f"{node.instance.overrides} override{'' if node.instance.overrides == 1 else 's'}")
        if node.instance.properties:
            count = node.instance.properties
            edits.append(f"{count} {'property' if count == 1 else 'properties'}")
        parts.append(f"↳ instance {node.instance.path} ({', '.join(edits) or 'no overrides'})")
    if node.text is not None:
        parts.append(f"text={quote_short(node.text, 28)}")
    position = node.resolved_position if node.resolved_position is not None else node.position
    if position is not None and any(v is None or js_round(v) != 0 for v in position):
        parts.append("pos=(" + ",".join(_num(v) for v in position) + ")")
    if node.resolved_size is not None:
        w, h = node.resolved_size
        if w is not None or h is not None:
            parts.append(f"size={_num(w)}x{_num(h)}")
    elif node.size is not None:
        parts.append(f"size={js_number(node.size[0])}x{js_number(node.size[1])}")
    if node.layout is not None:
        text = f"layout={node.layout}"
        if node.margins:
            text += "(" + ",".join(f"{s}={js_number(node.margins[s])}" for s in MARGIN_SIDES if s in node.margins) + ")"
        parts.append(text)
    if node.hidden:
        parts.append("hidden")
    if node.groups:
        parts.append(f"groups=[{','.join(node.groups)}]")
    line = " ".join(parts)
    if node.components:
        names = []
        for component in node.components:
            kind = component.get("type")
            names.append(
                f"{kind if isinstance(kind, str) else '?'}{'(off)' if component.get('enabled') is False else ''}"
            )
        line += f"  components=[{', '.join(names)}]"
    if node.below:
        line += f"  … +{node.below} below"
    return line


def node_lines(nodes: list[Node], out: list[str]) -> None:
    for node in nodes:
        indent = "  " * node.depth
        out.append(indent + ("· " if node.context else "") + _summary(node))
        if node.props:
            out.append(indent + "    " + " ".join(f"{k}={value_text(v)}" for k, v in node.props.items()))
        node_lines(node.children, out)


def node_json(node: Node) -> dict[str, Any]:
    data: dict[str, Any] = {"id": node.id, "type": node.type}
    if node.name is not None:
        data["name"] = node.name
    data["depth"] = node.depth
    if node.position is not None:
        data["position"] = node.position
    if node.size is not None:
        data["size"] = list(node.size)
    if node.layout is not None:
        data["layout"] = node.layout
    if node.margins:
        data["margins"] = {s: node.margins[s] for s in MARGIN_SIDES if s in node.margins}
    if node.resolved_position is not None and node.resolved_size is not None:
        data["resolved"] = {
            "position": [tidy_number(v) for v in node.resolved_position[:2]],
            "size": [tidy_number(v) for v in node.resolved_size],
        }
    if node.hidden:
        data["hidden"] = True
    if node.text is not None:
        data["text"] = node.text
    if node.groups:
        data["groups"] = node.groups
    components = []
    for component in node.components:
        entry: dict[str, Any] = {"type": component.get("type") if isinstance(component.get("type"), str) else "?"}
        if isinstance(component.get("id"), str):
            entry["id"] = component["id"]
        entry["enabled"] = component.get("enabled") is not False
        components.append(entry)
    data["components"] = components
    if node.instance is not None:
        instance: dict[str, Any] = {"path": node.instance.path}
        if node.instance.root_type is not None:
            instance["rootType"] = node.instance.root_type
        if node.instance.root_name is not None:
            instance["rootName"] = node.instance.root_name
        instance["overrides"] = node.instance.overrides
        instance["properties"] = node.instance.properties
        data["instance"] = instance
    if node.props is not None:
        data["props"] = node.props
    if node.context:
        data["context"] = True
    if node.below:
        data["hiddenBelow"] = node.below
    data["children"] = [node_json(child) for child in node.children]
    return data
