"""Whatever a scene holds, level 1 reports diagnostics and never raises — and the report keeps
its own rules: counts that add up, codes from the registry with their severity, a line for every
scene diagnostic that has a path, the documented order, the same answer every time; a scene made
only of valid nodes gets no diagnostic at all."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pix3tools.scene import classify_key, type_format
from pix3tools.validate import CODE_NAMES, ValidateReport, locale_key, run_validate
from tests.support.validate import make


def _check_report(project: Path, report: ValidateReport) -> None:
    """The rules every report keeps, whatever it found."""
    data = report.to_json()
    found = data["diagnostics"]
    errors = sum(d["severity"] == "error" for d in found)
    assert (data["errorCount"], data["warningCount"], data["ok"]) == (errors, len(found) - errors, errors == 0)
    known_files = {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()} | {"scripts"}
    for d in found:
        assert d["code"] in CODE_NAMES or d["code"].startswith("W_RENDERABILITY_"), d
        assert d["severity"] == ("warning" if d["code"].startswith("W_") else "error"), d
        assert list(d)[:4] == ["severity", "code", "file", "message"] and d["message"], d
        assert d["file"] in known_files, d
        if d["file"].endswith(".pix3scene") and "path" in d and d["code"] != "E_YAML":
            lines = (project / d["file"]).read_text().count("\n") + 1
            assert 1 <= d["line"] <= lines, d
    keys = [
        (locale_key(d["file"]), (0, d["line"]) if "line" in d else (1, 0), locale_key(d.get("path", "")), d["code"])
        for d in found
    ]
    assert keys == sorted(keys), "diagnostics out of order"
    again = run_validate(project, None, hydrate=False)
    assert json.dumps(again.to_json()) == json.dumps(data), "a second run answered differently"


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
    _check_report(project, run_validate(project, None, hydrate=False))


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
    _check_report(project, run_validate(project, None, hydrate=False))


# -- valid scenes: no diagnostic -------------------------------------------------------------------
# Values each property type accepts (resources and free-form objects left out: they need files).
_VALID: dict[str, st.SearchStrategy[Any]] = {
    "boolean": st.booleans(),
    "string": st.text(alphabet="abc XYZ09._-", max_size=8),
    "node": st.one_of(st.none(), st.text(alphabet="abc-", min_size=1, max_size=5)),
    "color": st.sampled_from(["#fff", "#ff8800", "#ff880080", "red", "rgb(1, 2, 3)"]),
    "vector2": st.lists(st.integers(-500, 500), min_size=2, max_size=2),
    "vector3": st.lists(st.floats(-9, 9, allow_nan=False), min_size=3, max_size=3),
    "euler": st.lists(st.integers(-180, 180), min_size=3, max_size=3),
    "vector4": st.lists(st.integers(0, 9), min_size=4, max_size=4),
}
_VALID_TYPES = ["Sprite2D", "Label2D", "Button2D", "Group2D", "ColorRect2D", "Node3D", "GeometryMesh", "Camera3D"]


def _valid_value(prop: Any) -> st.SearchStrategy[Any] | None:
    if prop.type == "number":
        low = prop.min if prop.min is not None else -1000
        high = prop.max if prop.max is not None else 1000
        if prop.positive:
            low = max(low, 1)
        return st.integers(int(low), int(high)) if low <= high else None
    if prop.type in ("enum", "select"):
        return st.sampled_from(prop.options) if prop.options else None
    return _VALID.get(prop.type)


def _valid_props(type_name: str) -> st.SearchStrategy[dict[str, Any]]:
    fmt = type_format(type_name)
    fields = {}
    for key, prop in fmt.schema.items():
        value = _valid_value(prop)
        if value is not None and classify_key(fmt, key) == "schema":
            fields[key] = value
    return st.fixed_dictionaries({}, optional=fields)


@st.composite
def _valid_scene(draw: st.DrawFn) -> list[dict[str, Any]]:
    made = 0

    def node(depth: int) -> dict[str, Any]:
        nonlocal made
        made += 1
        kind = draw(st.sampled_from(_VALID_TYPES))
        item: dict[str, Any] = {"id": f"n{made}", "type": kind, "properties": draw(_valid_props(kind))}
        if depth < 2:
            children = [node(depth + 1) for _ in range(draw(st.integers(0, 2)))]
            if children:
                item["children"] = children
        return item

    return [node(0) for _ in range(draw(st.integers(1, 2)))]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(root=_valid_scene())
def test_a_scene_of_valid_nodes_gets_no_diagnostic(tmp_path: Path, root: list[dict[str, Any]]) -> None:
    out = io.StringIO()
    dumper = YAML(typ="safe", pure=True)
    dumper.default_flow_style = None
    dumper.dump({"version": "1.0.0", "root": root}, out)
    project = make(tmp_path / "v", {"scenes/a.pix3scene": out.getvalue()})
    report = run_validate(project, None, hydrate=False)
    assert [d.to_json() for d in report.diagnostics] == [], out.getvalue()
