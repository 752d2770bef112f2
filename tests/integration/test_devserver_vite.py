"""The dev server with the real Vite (tests/node/node_modules): proxy, HMR socket, supervision."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio
import trio_websocket

from tests.support.devserver import DevServer, dev_server, fake_tab, hello, wait_vite_ready
from tests.support.processes import pid_alive, wait_gone
from tests.support.projects import make_project

pytestmark = [pytest.mark.node, pytest.mark.slow]

MAIN_JS = 'export const msg = "v1";\ndocument.getElementById("out").textContent = msg;\n'
INDEX = (
    '<!doctype html><html><body><div id="out"></div><script type="module" src="/src/main.js"></script></body></html>\n'
)


def vite_project(root: Path, node_modules: Path) -> Path:
    make_project(root, {"index.html": INDEX, "src/main.js": MAIN_JS})
    (root / "node_modules").symlink_to(node_modules)
    return root


@pytest.fixture
def vite_server(tmp_path: Path, node_modules: Path) -> Iterator[DevServer]:
    with dev_server(vite_project(tmp_path / "game", node_modules), wait_vite=True) as server:
        yield server


def test_modules_are_proxied_and_private_paths_refused(vite_server: DevServer) -> None:
    info = hello(vite_server)
    assert info["versions"]["vite"] == "8.4.0"
    assert (info["vite"]["running"], info["vite"]["restarts"]) == (True, 0)
    vite_pid = info["vite"]["pid"]
    with httpx.Client(base_url=vite_server.url) as client:
        module = client.get("/src/main.js")
        assert module.status_code == 200
        assert module.headers["content-type"].startswith("text/javascript")
        assert 'export const msg = "v1"' in module.text and "sourceMappingURL=" in module.text  # transformed by Vite
        assert len([v for k, v in module.headers.multi_items() if k == "date"]) == 1
        page = client.get("/")
        assert page.status_code == 200 and "/@vite/client" in page.text
        etag = module.headers["etag"]
        assert client.get("/src/main.js", headers={"If-None-Match": etag}).status_code == 304
        for path in (
            "/.pix3/dev.json",
            "/%2Epix3/dev.log",
            "/.%70ix3/dev.json",
            f"/@fs{vite_server.root}/.pix3/dev.json?import",
        ):
            reply = client.get(path)
            assert (reply.status_code, reply.json()["error"]) == (404, "not_found"), path
        assert client.get("/__pix3/api/hello").status_code == 200
        # the private port is Vite's own: what the proxy forwards equals what Vite answers
        with open(f"/proc/{vite_pid}/cmdline", "rb") as cmdline:
            argv = cmdline.read().split(b"\0")
        port = int(argv[argv.index(b"--port") + 1])
        direct = httpx.get(f"http://127.0.0.1:{port}/src/main.js")
        assert direct.text == module.text


def test_one_connection_mixing_editor_and_module_requests(vite_server: DevServer) -> None:
    """After a `/__pix3` request the connection belongs to Hypercorn; modules still reach Vite
    (through the ASGI proxy) and the `.pix3` filter still holds."""
    connection = http.client.HTTPConnection("127.0.0.1", vite_server.port, timeout=30)
    try:
        answers = []
        for path in ("/src/main.js", "/__pix3/api/hello", "/src/main.js", "/.pix3/dev.json", "/"):
            connection.request("GET", path, headers={"Host": f"localhost:{vite_server.port}"})
            response = connection.getresponse()
            answers.append((response.status, response.read()))
        assert [status for status, _ in answers] == [200, 200, 200, 404, 200]
        assert answers[0][1] == answers[2][1]
        assert json.loads(answers[1][1])["vite"]["running"] is True
        assert b"/@vite/client" in answers[4][1]
        connection.request("POST", "/__pix3/api/flush", body=b"{}", headers={"X-Pix3": "1"})
        flushed = connection.getresponse()
        assert json.loads(flushed.read()) == {"ok": True, "editor": False, "flushed": False}
    finally:
        connection.close()


async def test_hmr_socket_through_our_port(vite_server: DevServer) -> None:
    async with httpx.AsyncClient(base_url=vite_server.url) as client:
        source = (await client.get("/@vite/client")).text
        await client.get("/src/main.js")
    token = re.search(r'const wsToken = "([^"]+)"', source)
    assert token is not None
    url = f"ws://127.0.0.1:{vite_server.port}/?token={token.group(1)}"
    origin = [(b"Origin", f"http://127.0.0.1:{vite_server.port}".encode())]
    async with trio_websocket.open_websocket_url(url, subprotocols=["vite-hmr"], extra_headers=origin) as ws:
        assert ws.subprotocol == "vite-hmr"
        assert await ws.get_message() == '{"type":"connected"}'
        (vite_server.root / "src" / "main.js").write_text(MAIN_JS.replace("v1", "v2"))
        with trio.fail_after(15):
            while True:
                message = await ws.get_message()
                if "/src/main.js" in message:
                    break
        assert '"update"' in message or '"full-reload"' in message


async def test_a_script_edit_outside_a_sync_is_announced(vite_server: DevServer) -> None:
    scripts = vite_server.root / "scripts"
    scripts.mkdir()
    async with trio.open_nursery() as nursery, fake_tab(vite_server, "tab-a", nursery) as tab:
        seen = len(tab.frames)
        (scripts / "Foo.ts").write_text("export const speed = 1;\n")
        frame = await tab.next_frame("pix3:scripts", after=seen, within=15)
        assert frame == {"type": "pix3:scripts", "path": "scripts/Foo.ts"}
        nursery.cancel_scope.cancel()


def test_vite_killed_is_restarted_and_reported(vite_server: DevServer) -> None:
    first = hello(vite_server)["vite"]["pid"]
    os.kill(first, signal.SIGKILL)
    status = wait_vite_ready(vite_server, restarts=1)
    assert status["pid"] != first
    assert status["lastExit"] == -9 and "exited with code -9" in status["lastError"]
    assert f"vite: pid {first} exited with code -9" in vite_server.log()
    assert httpx.get(vite_server.url + "/src/main.js").status_code == 200


# A Vite plugin that starts a process of its own, as plugins that run a type checker or a
# watcher do: it must not outlive the dev server either.
PLUGIN_WITH_A_CHILD = """
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
export default {
  plugins: [{
    name: "spawns-a-child",
    configureServer() {
      const child = spawn("sleep", ["300"], { stdio: "ignore" });
      writeFileSync("plugin-child.pid", String(child.pid));
    },
  }],
};
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=["TERM", "INT", "KILL"])
def test_no_vite_orphan_after_the_server_stops(tmp_path: Path, node_modules: Path, sig: int) -> None:
    root = vite_project(tmp_path / "game", node_modules)
    (root / "vite.config.mjs").write_text(PLUGIN_WITH_A_CHILD)
    with dev_server(root, wait_vite=True) as server:
        vite_pid = hello(server)["vite"]["pid"]
        child_pid = int((root / "plugin-child.pid").read_text())
        assert pid_alive(child_pid)
        code = server.stop(sig)
        assert code == (-signal.SIGKILL if sig == signal.SIGKILL else 0)
        assert wait_gone(vite_pid), f"vite pid {vite_pid} survived {signal.Signals(sig).name}"
        assert wait_gone(child_pid), f"the plugin's child {child_pid} survived {signal.Signals(sig).name}"
    if sig == signal.SIGKILL:
        assert (root / ".pix3" / "dev.json").exists()  # a stale record, as the reference leaves
    else:
        assert not (root / ".pix3" / "dev.json").exists()
