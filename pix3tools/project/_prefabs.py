"""Instances: what an ``instance: res://…`` node stands for (docs/project-model.md, "Instances").

One resolver for validate (its prefab, cycle and override rules) and tree (the type and name an
instance line shows): prefab files are read once per run through the project's scene cache; a
prefab that is missing, does not parse or has no ``root:`` list is *unreadable* (each tool says
so its own way), and a chain of instances that comes back to a file already on it is a *cycle*.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pix3tools.project._inventory import project_path

__all__ = ["Prefabs", "first_mapping", "instance_targets", "only_root"]

# Which of a prefab's roots an instance stands for. The reference's loader accepts exactly one
# root (validate reports E_PREFAB_ROOT otherwise); its tree reads the YAML as written and shows
# the first node, so the two tools pick differently.
RootPick = Callable[[list[Any]], Any]


def only_root(roots: list[Any]) -> Any:
    """The root of a prefab with exactly one, else None (the loader's rule)."""
    return roots[0] if len(roots) == 1 else None


def first_mapping(roots: list[Any]) -> Any:
    """The first root that is a node mapping (what the file shows), else None."""
    return next((root for root in roots if isinstance(root, dict)), None)


class Prefabs:
    """Prefab lookups over ``data_of(project path) -> parsed scene or None`` (cached by the caller)."""

    def __init__(self, data_of: Callable[[str], Any]) -> None:
        self._data_of = data_of

    def roots(self, target: str | None) -> list[Any] | None:
        """The ``root:`` list of the prefab at ``target``; None when unreadable."""
        if target is None:
            return None
        data = self._data_of(target)
        if not isinstance(data, dict) or not isinstance(data.get("root"), list):
            return None
        roots: list[Any] = data["root"]
        return roots

    def innermost(self, node: Any, seen: set[str], pick: RootPick) -> tuple[Any, bool]:
        """Follow ``instance:`` links from ``node`` to the node they finally stand for.

        Returns (node, True) at a node that is not an instance, or (the last node reached, False)
        when a link is not a project path, is unreadable, picks no root, or comes back to a file
        in ``seen`` (which collects every file followed).
        """
        while isinstance(node, dict) and isinstance(node.get("instance"), str):
            target = project_path(node["instance"])
            if target is None or target in seen:
                return node, False
            seen.add(target)
            roots = self.roots(target)
            chosen = pick(roots) if roots is not None else None
            if chosen is None:
                return node, False
            node = chosen
        return node, True

    def cycle(self, owner: str, target: str) -> list[str] | None:
        """The first cycle met following every ``instance:`` anywhere in each prefab's tree,
        starting at ``target`` instanced from ``owner``: ``[a, b, …, a]`` from the first file
        repeated, or None."""
        done: set[str] = set()

        def search(rel: str, stack: list[str]) -> list[str] | None:
            if rel in stack:
                return [*stack[stack.index(rel) :], rel]
            if rel in done:
                return None
            for inner in instance_targets(self._data_of(rel)):
                found = search(inner, [*stack, rel])
                if found:
                    return found
            done.add(rel)
            return None

        return search(target, [owner])

    def children(self, node: Any, seen: set[str]) -> list[Any] | None:
        """A node's children as the loader builds them: an instance's are its prefab root's.
        None when that cannot be known (an unreadable prefab, a cycle, not one root)."""
        if not isinstance(node, dict):
            return []
        if isinstance(node.get("instance"), str):
            target = project_path(node["instance"])
            roots = self.roots(target) if target is not None and target not in seen else None
            if roots is None or len(roots) != 1 or target is None:
                return None
            seen.add(target)
            return self.children(roots[0], seen)
        children = node.get("children")
        return children if isinstance(children, list) else []

    def local_ids(self, node: Any, seen: set[str]) -> set[str]:
        """The ids an override key may use for ``node``: its own, and for an instance also its
        prefab root's."""
        if not isinstance(node, dict):
            return set()
        ids = {node["id"]} if isinstance(node.get("id"), str) else set()
        if isinstance(node.get("instance"), str):
            target = project_path(node["instance"])
            roots = self.roots(target) if target is not None and target not in seen else None
            if roots is not None and len(roots) == 1:
                inner = roots[0]
                if isinstance(inner, dict) and isinstance(inner.get("id"), str):
                    ids.add(inner["id"])
        return ids

    def override_target(self, root: Any, key: str, seen: set[str]) -> tuple[Any, bool]:
        """(node or None, determined): the node an ``overrides.byLocalId`` key names below the
        prefab ``root`` (ids joined with ``/``; the root's own id may lead). Not determined when an
        inner prefab on the way cannot be read."""
        key = key.strip().replace("\\", "/").lstrip("/")
        root_id = root.get("id") if isinstance(root, dict) else None
        if key == root_id:
            return root, True
        segments = [s for s in key.split("/") if s]
        attempts = [segments]
        if root_id and segments and segments[0] == root_id:
            attempts.append(segments[1:])
        undetermined = False
        for attempt in attempts:
            node: Any = root
            ok = True
            for seg in attempt:
                children = self.children(node, seen)
                if children is None:
                    undetermined = True
                    ok = False
                    break
                node = next((c for c in children if seg in self.local_ids(c, seen)), None)
                if node is None:
                    ok = False
                    break
            if ok and attempt:
                return node, True
        return None, not undetermined


def instance_targets(data: Any) -> Iterator[str]:
    """Every ``instance:`` target anywhere in a scene's data, as project paths."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            ref = value.get("instance")
            if isinstance(ref, str):
                target = project_path(ref)
                if target:
                    yield target
            stack.extend(v for v in value.values() if isinstance(v, dict | list))
        elif isinstance(value, list):
            stack.extend(v for v in value if isinstance(v, dict | list))
