"""Scene nodes as data: every node mapping of a scene, and document paths as text."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pix3tools._diagnostic import PathSeg, format_path

__all__ = ["NodeRef", "format_path", "iter_nodes"]


@dataclass(frozen=True)
class NodeRef:
    """One node mapping of a scene: its document path, depth, and the node's data."""

    path: tuple[PathSeg, ...]
    depth: int
    node: dict[str, Any]
    parent: NodeRef | None

    @property
    def id(self) -> str | None:
        value = self.node.get("id")
        return value if isinstance(value, str) and value.strip() else None


def iter_nodes(data: Any) -> Iterator[NodeRef]:
    """Every node mapping under ``root:`` depth-first, children of instance nodes excluded."""
    if not isinstance(data, dict) or not isinstance(data.get("root"), list):
        return

    def walk(items: list[Any], base: tuple[PathSeg, ...], depth: int, parent: NodeRef | None) -> Iterator[NodeRef]:
        for index, node in enumerate(items):
            if not isinstance(node, dict):
                continue
            ref = NodeRef((*base, index), depth, node, parent)
            yield ref
            children = node.get("children")
            if "instance" not in node and isinstance(children, list):
                yield from walk(children, (*ref.path, "children"), depth + 1, ref)

    yield from walk(data["root"], ("root",), 0, None)
