"""The Pix3 scene model: ``.pix3scene`` / ``pix3project.yaml`` as data with line numbers, the
disk-format descriptor and the node-type schemas (docs/validate.md). The project around the
scenes (its files, manifest, prefabs) is ``pix3tools.project``.

Public surface (what validate, tree, kit and character-compile import):

- ``parse_yaml(text) -> Document``: YAML 1.2 as plain data (``Document.data``);
  ``Document.line_of(path)`` gives the 1-based line of a key / list item (looked up lazily).
  Raises ``YamlError(message, line)``.
- ``iter_nodes(data) -> NodeRef…``: every node mapping under ``root:`` (path, depth, node, parent).
- ``format_path(path)``: ``root[0].properties.width``.
- ``NODE_TYPES`` (canonical names a scene may use), ``KNOWN_NODE_TYPES`` (+ ``Layout2D``),
  ``resolve_node_type(name) -> (canonical|None, "exact"|"case"|"alias"|"")``,
  ``suggest_node_type(name)``, ``node_type_elsewhere(name)`` (another engine's name for a type).
- ``type_format(name) -> TypeFormat``: family, ``schema`` ({name: Prop(type, default, options,
  min, max)}), disk ``extras`` (DiskRule), ``relocated``, ``not_stored``, ``write_only``;
  ``classify_key(fmt, key)``. ``Prop.default is MISSING`` when the docs give no default.
- ``VALUE_TYPES``: the value kinds a property may have (the runtime's PropertyType names, plus
  ``texture`` and ``resource``).
- ``COMPONENTS``: the built-in ``core:`` components and their (possibly partial) config schemas.
"""

from pix3tools.scene._disk import (
    KNOWN_NODE_TYPES,
    NODE_TYPES,
    DiskRule,
    TypeFormat,
    classify_key,
    levenshtein,
    node_type_elsewhere,
    resolve_node_type,
    suggest_node_type,
    type_format,
)
from pix3tools.scene._nodes import NodeRef, format_path, iter_nodes
from pix3tools.scene._schema import COMPONENTS, MISSING, NODE_SCHEMAS, VALUE_TYPES, ComponentSchema, Prop
from pix3tools.scene._yaml import Document, PathSeg, YamlError, parse_yaml

CURRENT_SCENE_FORMAT_VERSION = "1.0.0"

__all__ = [
    "COMPONENTS",
    "CURRENT_SCENE_FORMAT_VERSION",
    "KNOWN_NODE_TYPES",
    "MISSING",
    "NODE_SCHEMAS",
    "NODE_TYPES",
    "VALUE_TYPES",
    "ComponentSchema",
    "DiskRule",
    "Document",
    "NodeRef",
    "PathSeg",
    "Prop",
    "TypeFormat",
    "YamlError",
    "classify_key",
    "format_path",
    "iter_nodes",
    "levenshtein",
    "node_type_elsewhere",
    "parse_yaml",
    "resolve_node_type",
    "suggest_node_type",
    "type_format",
]
