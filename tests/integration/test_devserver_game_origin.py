"""The game's origin may not use the editor's API (docs/devserver.md, "The guard"; docs/reliability.md).

The editor page is served under `localhost` and runs the game under `127.0.0.1` on the same port
(docs/game-page.md, section 4). The game's script is same-origin with the dev server under its
name, so a browser's request under `127.0.0.1` may only load the game; the API, the file API and
the editor socket refuse it. The same requests under the editor's name, and without a browser's
fields under either name (pix3's own clients, curl), are answered. A real `pix3 __dev-server`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import trio
import trio_websocket

from tests.support.devserver import DevServer, dev_server
from tests.support.editor_page import LEVEL_SCENE
from tests.support.projects import make_project

X = {"X-Pix3": "1"}
GAME, EDITOR = "127.0.0.1", "localhost"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    root = make_project(
        tmp_path_factory.mktemp("game-origin") / "game",
        {"index.html": "<p>game</p>\n", "a.txt": "a", "scenes/level.pix3scene": LEVEL_SCENE},
    )
    with dev_server(root) as running:
        yield running


def browser(name: str, port: int, how: str) -> dict[str, str]:
    """What a page on ``http://<name>:<port>`` sends with a same-origin request: Chrome's Fetch
    Metadata (on every request), an `Origin` (on every request but a same-origin GET), or both."""
    fields: dict[str, str] = {}
    if how in ("sec-fetch", "both"):
        fields |= {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}
    if how in ("origin", "both"):
        fields["Origin"] = f"http://{name}:{port}"
    return fields


# (method, path, params, body, headers): the editor page's requests a game would copy
REQUESTS: list[tuple[str, str, dict[str, str], Any, dict[str, str]]] = [
    ("GET", "/__pix3/api/hello", {}, None, {}),
    ("POST", "/__pix3/api/flush", {}, {"timeoutMs": 100}, X),
    ("POST", "/__pix3/api/sync", {}, {"timeoutMs": 100}, X),
    ("GET", "/__pix3/api/file", {"path": "a.txt"}, None, {}),
    ("PUT", "/__pix3/api/file", {"path": "written.txt"}, b"by the game", X),
    ("GET", "/__pix3/api/manifest", {}, None, {}),
    ("POST", "/__pix3/api/handover/claim", {}, {"writerId": "the-game"}, X),
]
IDS = [f"{method} {path.removeprefix('/__pix3/api/')}" for method, path, *_ in REQUESTS]


async def _ask(
    name: str, port: int, request: tuple[str, str, dict[str, str], Any, dict[str, str]], extra: dict[str, str]
) -> httpx.Response:
    method, path, params, body, headers = request
    async with httpx.AsyncClient() as client:
        return await client.request(
            method,
            f"http://127.0.0.1:{port}{path}",
            params=params,
            headers={"Host": f"{name}:{port}", **headers, **extra},
            **({"json": body} if isinstance(body, dict) else {"content": body} if body is not None else {}),
        )


@pytest.mark.parametrize("how", ["sec-fetch", "origin", "both"])
@pytest.mark.parametrize("request_", REQUESTS, ids=IDS)
async def test_a_browser_under_the_game_s_name_is_refused_the_api(
    server: DevServer, request_: tuple[str, str, dict[str, str], Any, dict[str, str]], how: str
) -> None:
    port = server.port
    answer = await _ask(GAME, port, request_, browser(GAME, port, how))
    assert answer.status_code == 403, answer.text
    assert answer.json() == {
        "error": "forbidden_game_origin",
        "message": f"The game's origin (http://127.0.0.1:{port}) may not use the editor's API or socket; "
        f"the editor page is http://localhost:{port}/__pix3/.",
    }
    assert not (server.root / "written.txt").exists()


@pytest.mark.parametrize("request_", REQUESTS, ids=IDS)
async def test_the_editor_s_name_and_clients_without_browser_fields_are_answered(
    server: DevServer, request_: tuple[str, str, dict[str, str], Any, dict[str, str]]
) -> None:
    port = server.port
    for name, extra in ((EDITOR, browser(EDITOR, port, "both")), (GAME, {}), (EDITOR, {})):
        answer = await _ask(name, port, request_, extra)
        assert answer.status_code == 200, (name, extra, answer.text)
    if request_[0] == "PUT":
        assert (server.root / "written.txt").read_bytes() == b"by the game"
        (server.root / "written.txt").unlink()


async def _upgrade(port: int, name: str, origin: str | None) -> trio_websocket.ConnectionRejected | None:
    """Ask for the editor socket under ``name``; None when it opened (and sent its welcome)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    headers = [(b"Origin", origin.encode())] if origin is not None else []
    try:
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                ws = await trio_websocket.wrap_client_stream(
                    nursery, stream, f"{name}:{port}", "/__pix3/ws", extra_headers=headers
                )
                await ws.send_message(json.dumps({"type": "hello", "tabId": f"tab-{name.replace('.', '-')}"}))
                assert json.loads(await ws.get_message())["type"] == "welcome"
                await ws.aclose()
                nursery.cancel_scope.cancel()
        return None
    except BaseException as error:  # the rejection comes wrapped in exception groups
        while isinstance(error, BaseExceptionGroup):
            error = error.exceptions[0]
        if isinstance(error, trio_websocket.ConnectionRejected):
            return error
        raise
    finally:
        await stream.aclose()


async def test_the_editor_socket_refuses_the_game_s_origin(server: DevServer) -> None:
    port = server.port
    refused = await _upgrade(port, GAME, f"http://{GAME}:{port}")
    assert refused is not None and refused.status_code == 403
    assert json.loads(refused.body or b"{}")["error"] == "forbidden_game_origin"
    assert await _upgrade(port, EDITOR, f"http://{EDITOR}:{port}") is None
    assert await _upgrade(port, GAME, None) is None  # a client that is no browser


@pytest.mark.parametrize("how", ["sec-fetch", "both"])
async def test_the_game_still_loads_under_its_name(server: DevServer, how: str) -> None:
    """What the game needs under its name: its frame, the page's modules, a scene's outline (the
    demo draws from it), the project's files; the editor page is sent to the editor's name."""
    port = server.port
    fields = browser(GAME, port, how)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers=fields) as client:
        frame = await client.get("/__pix3/game/", params={"scene": "res://scenes/level.pix3scene"})
        assert frame.status_code == 200 and "gameframe.js" in frame.text
        assert frame.headers["content-security-policy"] == f"frame-ancestors 'self' http://localhost:{port}"
        for module in ("gameframe.js", "recorder.js", "scene2d.js"):
            assert (await client.get(f"/__pix3/page/{module}")).status_code == 200, module
        scene = await client.get("/__pix3/api/scene", params={"path": "scenes/level.pix3scene", "draw": "1"})
        assert scene.status_code == 200 and scene.json()["scene"] == "scenes/level.pix3scene", scene.text
        assert (await client.get("/index.html")).text == "<p>game</p>\n"
        assert (await client.get("/a.txt")).text == "a"
        page = await client.get("/__pix3/", params={"tab": "1"})
        assert (page.status_code, page.headers["location"]) == (302, f"http://localhost:{port}/__pix3/?tab=1")
        # what the game may read is no way around the rule
        for path in ("/__pix3/api/scenes", "/__pix3/editor.css", "/__pix3/api/agents"):
            assert (await client.get(path)).status_code == 403, path
        post = await client.post("/__pix3/api/scene", json={"path": "scenes/level.pix3scene", "text": ""}, headers=X)
        assert post.status_code == 403
    async with httpx.AsyncClient() as client:  # the editor page itself, under the editor's name
        page = await client.get(
            f"http://127.0.0.1:{port}/__pix3/", headers={"Host": f"localhost:{port}", **browser(EDITOR, port, how)}
        )
        assert page.status_code == 200 and "<html" in page.text
        frame = await client.get(f"http://127.0.0.1:{port}/__pix3/game/", headers={"Host": f"localhost:{port}"})
        assert frame.headers["content-security-policy"] == "frame-ancestors 'self'"
