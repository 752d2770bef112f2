"""The editor page's own routes on the real dev server: its modules, the scene list, and the scene
structure (`GET/POST /__pix3/api/scene`), which must be exactly what `pix3 tree --json` prints."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pix3tools.tree import scene_outline
from tests.support.devserver import DevServer, dev_server
from tests.support.editor_page import big_scene
from tests.support.pix3 import REPO, run_pix3

X = {"X-Pix3": "1"}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `pix3 new 2d` project, the 3D starter's scene beside its own, a 2 000-node scene, and the
    tree fixture with prefab instances."""
    base = tmp_path_factory.mktemp("workbench")
    env = {"PIX3_HOME": str(base / "home")}
    for kind in ("2d", "3d"):
        done = run_pix3("new", kind, str(base / kind), cwd=base, env=env)
        assert done.returncode == 0, done.stderr
    root = base / "2d"
    shutil.copy(base / "3d" / "scenes" / "main.pix3scene", root / "scenes" / "starter3d.pix3scene")
    (root / "scenes" / "big.pix3scene").write_text(big_scene(2000))
    instances = REPO / "tests" / "fixtures" / "tree" / "instances" / "scenes"
    shutil.copytree(instances, root / "scenes" / "inst")
    (root / "scenes" / "broken.pix3scene").write_text("root:\n  - id: a\n    type: [unclosed\n")
    (root / "notes.txt").write_text("not a scene\n")
    os.symlink(root / "scenes" / "main.pix3scene", root / "scenes" / "link.pix3scene")
    return root


@pytest.fixture(scope="module")
def server(project: Path) -> Iterator[DevServer]:
    with dev_server(project) as running:
        yield running


def tree_json(root: Path, scene: str) -> Any:
    done = run_pix3("tree", scene, "--json", "--project", str(root))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


SCENES = [
    "scenes/main.pix3scene",
    "scenes/starter3d.pix3scene",
    "scenes/big.pix3scene",
    "scenes/inst/level.pix3scene",
    "scenes/inst/prefabs/enemy.pix3scene",
]


@pytest.mark.parametrize("scene", SCENES)
def test_scene_route_is_pix3_tree_json(server: DevServer, project: Path, scene: str) -> None:
    reply = httpx.get(f"{server.url}/__pix3/api/scene", params={"path": scene}, timeout=30)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"] == "application/json; charset=utf-8"
    assert reply.headers["etag"] == f'"{hashlib.sha256((project / scene).read_bytes()).hexdigest()}"'
    assert reply.json() == tree_json(project, scene)


def test_big_scene_has_2000_nodes_five_levels_deep(server: DevServer) -> None:
    nodes = httpx.get(f"{server.url}/__pix3/api/scene", params={"path": "scenes/big.pix3scene"}, timeout=30).json()

    def walk(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for item in items:
            yield item
            yield from walk(item["children"])

    every = list(walk(nodes["nodes"]))
    assert len(every) == 2000 and len({n["id"] for n in every}) == 2000
    assert max(n["depth"] for n in every) == 4


def test_saved_adds_the_file_mapping_and_the_description(server: DevServer, project: Path) -> None:
    plain = httpx.get(f"{server.url}/__pix3/api/scene", params={"path": "scenes/starter3d.pix3scene"}).json()
    saved = httpx.get(f"{server.url}/__pix3/api/scene", params={"path": "scenes/starter3d.pix3scene", "saved": "1"})
    body = saved.json()
    assert body["description"] == "Entry scene"
    root = body["nodes"][0]
    assert root["saved"] == {"id": "game-root", "type": "Node3D", "name": "Game Root"}
    camera = root["children"][0]
    assert camera["saved"]["properties"]["transform"] == {"position": [0, 3, 8], "rotationEuler": [-20, 0, 0]}

    def strip(items: list[dict[str, Any]]) -> None:
        for item in items:
            del item["saved"]
            strip(item["children"])

    strip(body["nodes"])
    del body["description"]
    assert body == plain


def test_post_outlines_an_unsaved_text(server: DevServer) -> None:
    text = "root:\n  - id: only\n    type: Label2D\n    name: Only\n    properties: { label: hi }\n"
    reply = httpx.post(
        f"{server.url}/__pix3/api/scene", headers=X, json={"path": "scenes/main.pix3scene", "text": text, "saved": True}
    )
    assert reply.status_code == 200, reply.text
    assert reply.headers["etag"] == f'"{hashlib.sha256(text.encode()).hexdigest()}"'
    assert reply.json() == {
        "scene": "scenes/main.pix3scene",
        "nodes": [
            {
                "id": "only",
                "type": "Label2D",
                "name": "Only",
                "depth": 0,
                "text": "hi",
                "components": [],
                "children": [],
                "saved": {"id": "only", "type": "Label2D", "name": "Only", "properties": {"label": "hi"}},
            }
        ],
        "description": None,
    }
    # an unsaved text for a scene not on disk yet is outlined too
    new = httpx.post(f"{server.url}/__pix3/api/scene", headers=X, json={"path": "scenes/new.pix3scene", "text": text})
    assert new.status_code == 200 and new.json()["nodes"][0]["id"] == "only"


def test_draw_adds_what_the_renderer_draws_with(server: DevServer, project: Path) -> None:
    """`draw=1` (GET) / `draw: true` (POST): the scene model's drawing data, nothing else changed."""
    drawn = httpx.get(f"{server.url}/__pix3/api/scene", params={"path": "scenes/main.pix3scene", "draw": "1"}).json()
    assert drawn == scene_outline(project, "scenes/main.pix3scene", draw=True)
    assert drawn["viewport"] == [1920, 1080]
    background = drawn["nodes"][0]["children"][0]["draw"]
    assert background["family"] == "2d" and background["props"]["color"] == "#1a1a2e"
    assert (background["props"]["width"], background["props"]["height"]) == (1920, 1080)  # stretched
    text = "root:\n  - id: cam\n    type: Camera3D\n"
    posted = httpx.post(
        f"{server.url}/__pix3/api/scene", headers=X, json={"path": "scenes/x.pix3scene", "text": text, "draw": True}
    ).json()
    assert posted["nodes"][0]["draw"] == {"family": "3d"} and "saved" not in posted["nodes"][0]


def refusal(reply: httpx.Response) -> tuple[int, str, str]:
    body = reply.json()
    return reply.status_code, body["error"], body["message"]


def test_scene_route_refusals(server: DevServer) -> None:
    url = f"{server.url}/__pix3/api/scene"
    assert refusal(httpx.get(url)) == (
        400,
        "bad_path",
        "`path` is not a valid project path: it must be a non-empty string.",
    )
    assert refusal(httpx.get(url, params={"path": "../x.pix3scene"}))[:2] == (400, "bad_path")
    assert refusal(httpx.get(url, params={"path": "notes.txt"})) == (
        400,
        "not_a_scene",
        "`path` must name a .pix3scene file.",
    )
    assert refusal(httpx.get(url, params={"path": "scenes/none.pix3scene"}))[:2] == (404, "not_found")
    assert refusal(httpx.get(url, params={"path": "scenes/link.pix3scene"}))[:2] == (403, "symlink")
    assert refusal(httpx.get(url, params={"path": ".pix3/dev.pix3scene"}))[:2] == (404, "not_found")
    status, code, message = refusal(httpx.get(url, params={"path": "scenes/broken.pix3scene"}))
    assert (status, code) == (422, "bad_scene")
    assert message.startswith("scenes/broken.pix3scene is not valid YAML: ") and message.endswith(".")
    assert refusal(httpx.post(url, json={"path": "scenes/main.pix3scene", "text": ""}))[:2] == (403, "missing_x_pix3")
    assert refusal(httpx.post(url, headers=X, json={"path": "scenes/main.pix3scene", "text": 3})) == (
        400,
        "bad_request",
        "`text` must be a string.",
    )
    assert refusal(httpx.post(url, headers=X, json={"path": "scenes/a.pix3scene", "text": "", "saved": "yes"})) == (
        400,
        "bad_request",
        "`saved` must be a boolean.",
    )
    assert refusal(httpx.post(url, headers=X, json={"path": "scenes/a.pix3scene", "text": "", "draw": 1})) == (
        400,
        "bad_request",
        "`draw` must be a boolean.",
    )
    assert refusal(httpx.post(url, headers=X, content=b"[1]"))[:2] == (400, "bad_json")
    assert refusal(httpx.post(url, headers=X, json={"path": "scenes/a.pix3scene", "text": "root: 3\n"})) == (
        422,
        "bad_scene",
        "scenes/a.pix3scene is not a .pix3scene (no `root:` list).",
    )
    assert refusal(httpx.put(url, headers=X, params={"path": "scenes/main.pix3scene"}))[:2] == (404, "not_found")


def test_scene_list_and_default(server: DevServer, project: Path, tmp_path: Path) -> None:
    body = httpx.get(f"{server.url}/__pix3/api/scenes").json()
    assert body["defaultScene"] == "scenes/main.pix3scene"
    assert body["scenes"] == sorted(body["scenes"])
    assert {"scenes/main.pix3scene", "scenes/big.pix3scene", "scenes/inst/prefabs/enemy.pix3scene"} <= set(
        body["scenes"]
    )
    # without scenes/main.pix3scene the manifest's default scene is the one the page opens
    other = tmp_path / "other"
    (other / "levels").mkdir(parents=True)
    (other / "pix3project.yaml").write_text("version: 1.0.0\ndefaultExportScenePath: res://levels/one.pix3scene\n")
    (other / "levels" / "one.pix3scene").write_text("root: []\n")
    (other / "levels" / "two.pix3scene").write_text("root: []\n")
    with dev_server(other) as second:
        assert httpx.get(f"{second.url}/__pix3/api/scenes").json() == {
            "scenes": ["levels/one.pix3scene", "levels/two.pix3scene"],
            "defaultScene": "levels/one.pix3scene",
        }


def test_page_modules_are_served(server: DevServer) -> None:
    page = httpx.get(f"{server.url}/__pix3/")
    assert page.status_code == 200
    assert '<script type="module" src="/__pix3/page/main.js"></script>' in page.text
    main = httpx.get(f"{server.url}/__pix3/page/main.js")
    assert main.status_code == 200 and main.headers["content-type"] == "text/javascript; charset=utf-8"
    assert main.headers["cache-control"] == "no-cache"
    assert main.content == (REPO / "pix3net" / "devserver" / "page" / "main.js").read_bytes()
    again = httpx.get(f"{server.url}/__pix3/page/main.js", headers={"If-None-Match": main.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    for name in (
        "index.html",
        "../app.py",
        "nope.js",
        "Main.js",
        "smokerun.js",
    ):  # smokerun.js: smoke's template, read only
        missing = httpx.get(f"{server.url}/__pix3/page/{name}")
        assert (missing.status_code, missing.json()["error"]) == (404, "not_found"), name
