"""The project model every file tool works on (validate, tree, check, kit; the dev server's file
table and smoke's scene selection share its walk).

- ``Project(root)``: ``files`` (the inventory, walked once), ``manifest`` (``pix3project.yaml``
  read once), ``load(rel)`` / ``scene(rel)`` / ``scene_data(rel)`` (scenes, the prefabs cached),
  ``prefabs`` (the instance resolver: ``roots``, ``innermost``, ``cycle``, ``override_target``).
- ``ProjectFiles(root)``: the inventory alone: ``files`` (code-unit order), ``scenes``, ``exists``,
  ``case_match``, ``with_suffix``. Its walk and folder rules are ``pix3tools.core.walk``.
- ``project_path(ref)``: a ``res://`` or bare reference as a project path, or None.
- ``load_scene(path) -> SceneLoad`` (``scene_from_bytes(raw)`` for bytes in hand), ``load_manifest(root)``, ``read_text(path)``. The file name is ``pix3tools.core.PROJECT_FILE``.
- ``sort_paths`` / ``code_unit_key``: JavaScript's default string order.
"""

from pix3tools.project._inventory import ProjectFiles, code_unit_key, project_path, read_text, sort_paths
from pix3tools.project._model import Project
from pix3tools.project._prefabs import Prefabs, first_mapping, instance_targets, only_root
from pix3tools.project._read import MAX_SCENE_BYTES, SceneLoad, load_manifest, load_scene, scene_from_bytes

__all__ = [
    "MAX_SCENE_BYTES",
    "Prefabs",
    "Project",
    "ProjectFiles",
    "SceneLoad",
    "code_unit_key",
    "first_mapping",
    "instance_targets",
    "load_manifest",
    "load_scene",
    "only_root",
    "project_path",
    "read_text",
    "scene_from_bytes",
    "sort_paths",
]
