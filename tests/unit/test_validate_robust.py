"""Whatever a scene holds, level 1 reports diagnostics and never raises."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pix3tools.validate import run_validate
from tests.support.validate import make

_words = st.sampled_from(
    [
        "id", "type", "name", "instance", "properties", "children", "components", "overrides", "byLocalId",
        "config", "transform", "layout", "position", "material", "texture", "url", "frames", "label",
        "labelKey", "textureKey", "stateTextureKeys", "Sprite2D", "Label2D", "GeometryMesh", "Node3D",
        "AnimatedSprite3D", "Button2D", "core:Rotate", "user:X", "res://scenes/p.pix3scene", "res://a.svg",
        "🪙", "", "groups", "enabled", "version", "root",
    ]
)  # fmt: skip
_leaf = st.one_of(_words, st.integers(-3, 3), st.booleans(), st.none(), st.floats(allow_nan=False, width=16))
_data = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.one_of(_words, st.integers(0, 2)), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(root=st.lists(_data, max_size=3), prefab=st.lists(_data, max_size=2))
def test_any_scene_shape_is_reported_not_raised(tmp_path: Path, root: list[Any], prefab: list[Any]) -> None:
    dumper = YAML(typ="safe", pure=True)

    def text(items: list[Any]) -> str:
        out = io.StringIO()
        dumper.dump({"version": "1.0.0", "root": items}, out)
        return out.getvalue()

    project = make(
        tmp_path / "p",
        {"scenes/a.pix3scene": text(root), "scenes/p.pix3scene": text(prefab), "a.svg": "<svg/>"},
    )
    report = run_validate(project, None, hydrate=False)
    assert report.to_json()["errorCount"] >= 0


def test_non_string_keys_everywhere(tmp_path: Path) -> None:
    text = (
        "version: 1.0.0\nroot:\n  - id: a\n    type: Sprite2D\n    4: z\n    properties:\n      1: x\n      null: y\n"
        "      transform: {3: 1}\n    components:\n      - type: core:Rotate\n        config: {2: 1}\n        3: x\n"
        "  - {id: i, instance: res://scenes/p.pix3scene, properties: {5: 1, transform: {6: 1}},"
        " overrides: {byLocalId: {7: {properties: {9: 1}}}}}\n"
    )
    prefab = "version: 1.0.0\nroot:\n  - id: p\n    type: Group2D\n    children:\n      - id: 7\n"
    report = run_validate(
        make(tmp_path, {"scenes/a.pix3scene": text, "scenes/p.pix3scene": prefab}), None, hydrate=False
    )
    assert report.error_count == 10 and all(d.line for d in report.diagnostics)


_types = st.sampled_from(
    ["Sprite2D", "Label2D", "Button2D", "GeometryMesh", "InstancedMesh3D", "AnimatedSprite3D", "Node3D", "Group2D"]
)
_props = st.dictionaries(st.one_of(_words, st.integers(0, 2)), _data, max_size=5)
_node = st.fixed_dictionaries(
    {"id": _words, "type": _types},
    optional={
        "properties": _props,
        "components": st.lists(st.fixed_dictionaries({"type": _words}, optional={"config": _props}), max_size=2),
        "children": st.lists(
            st.fixed_dictionaries({"id": _words, "type": _types}, optional={"properties": _props}), max_size=2
        ),
    },
)
_instance = st.fixed_dictionaries(
    {"id": _words, "instance": st.just("res://scenes/p.pix3scene")},
    optional={
        "properties": _props,
        "overrides": st.one_of(_data, st.fixed_dictionaries({"byLocalId": st.dictionaries(_words, _data, max_size=3)})),
    },
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    root=st.lists(st.one_of(_node, _instance), min_size=1, max_size=3), prefab=st.lists(_node, min_size=1, max_size=1)
)
def test_node_shaped_scenes_never_raise(tmp_path: Path, root: list[Any], prefab: list[Any]) -> None:
    dumper = YAML(typ="safe", pure=True)

    def text(items: list[Any]) -> str:
        out = io.StringIO()
        dumper.dump({"version": "1.0.0", "root": items}, out)
        return out.getvalue()

    project = make(tmp_path / "p", {"scenes/a.pix3scene": text(root), "scenes/p.pix3scene": text(prefab)})
    report = run_validate(project, None, hydrate=False)
    assert all(d.code for d in report.diagnostics)
