"""`pix3 tree`: a scene's outline from its YAML alone (docs/tree.md).

Public surface: ``scene_outline(root, scene, text=None, saved=False)`` (the ``--json`` answer as
data), ``scene_files(root)`` (every ``.pix3scene``, sorted), ``SceneError``.
"""

from pix3tools.tree._paths import SceneError, scene_files
from pix3tools.tree._scene_json import scene_outline

__all__ = ["SceneError", "scene_files", "scene_outline"]
