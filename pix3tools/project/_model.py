"""``Project``: one run's view of a project folder, built lazily and kept for the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pix3tools.project._inventory import ProjectFiles
from pix3tools.project._prefabs import Prefabs
from pix3tools.project._read import SceneLoad, load_manifest, load_scene
from pix3tools.scene import Document

__all__ = ["Project"]

_UNSET: Any = object()


class Project:
    """The project at ``root`` as the file tools see it during one run.

    - ``files``: the inventory (walked on first use, once);
    - ``manifest``: ``pix3project.yaml`` parsed (read on first use, once; None when absent or not
      YAML);
    - ``load(rel)``: read and parse one scene, not kept (validate drops each scene after its check);
    - ``scene(rel)`` / ``scene_data(rel)``: a scene kept for the run as data only (prefabs are
      instanced many times);
    - ``prefabs``: the instance resolver over those cached scenes.

    Nothing is read until asked for: ``pix3 tree <scene>`` never walks the project.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: ProjectFiles | None = None
        self._manifest: Document | None = _UNSET
        self._scenes: dict[str, SceneLoad] = {}
        self.prefabs = Prefabs(self.scene_data)

    @property
    def files(self) -> ProjectFiles:
        if self._files is None:
            self._files = ProjectFiles(self.root)
        return self._files

    @property
    def manifest(self) -> Document | None:
        if self._manifest is _UNSET:
            self._manifest = load_manifest(self.root)
        return self._manifest

    def load(self, rel: str) -> SceneLoad:
        """Read and parse the scene at ``rel`` (not cached)."""
        return load_scene(self.root / rel)

    def scene(self, rel: str) -> SceneLoad:
        """The scene at ``rel``, cached for the run without its bytes and text."""
        cached = self._scenes.get(rel)
        if cached is None:
            cached = self.load(rel)
            if cached.doc is not None:
                cached.doc.text = ""  # only the data is needed for prefab lookups
            cached.raw = None
            self._scenes[rel] = cached
        return cached

    def scene_data(self, rel: str) -> Any:
        """The parsed data of a scene, or None when it is missing or does not parse."""
        load = self.scene(rel)
        return load.doc.data if load.doc is not None else None
