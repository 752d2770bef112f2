"""The real `pix3 __dev-server` process over real HTTP and WebSockets (docs/devserver.md).

The project has no Vite here (the embedded default); tests/integration/test_devserver_vite.py runs
the same server with the real Vite.
"""

from __future__ import annotations

import hashlib
import json
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio
import trio_websocket

from tests.support.devserver import DevServer, dev_server, fake_tab, wait_for_record
from tests.support.pix3 import pix3_argv, pix3_env, run_pix3
from tests.support.ports import free_port
from tests.support.projects import make_project

X = {"X-Pix3": "1"}


def sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[DevServer]:
    root = make_project(tmp_path / "game", {"index.html": "<p>game</p>\n", "a.txt": "a"})
    with dev_server(root) as running:
        yield running


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    """One server for the read-only checks (no writer is ever claimed on it)."""
    root = make_project(tmp_path_factory.mktemp("shared") / "game", {"index.html": "<p>game</p>\n"})
    with dev_server(root) as running:
        yield running


# -- the process, dev.json, ports ------------------------------------------------------------------


def test_dev_json_while_listening_and_gone_after_sigterm(tmp_path: Path) -> None:
    root = make_project(tmp_path / "game")
    with dev_server(root) as server:
        record = server.record()
        assert list(record)[:6] == ["url", "editorUrl", "port", "pid", "versions", "startedAt"]
        assert record["port"] == server.port
        assert record["url"] == f"http://localhost:{server.port}/"
        assert record["editorUrl"] == f"http://localhost:{server.port}/__pix3/"
        assert record["pid"] == server.proc.pid
        assert record["versions"]["plugin"] == "2.0.0-alpha.0" and record["versions"]["vite"] is None
        assert (root / ".pix3" / "dev.json").read_text().endswith("}\n")
        assert server.stop(signal.SIGTERM) == 0
    assert not (root / ".pix3" / "dev.json").exists()
    assert "listening on http://localhost:" in (root / ".pix3" / "dev.log").read_text()


def test_sigint_also_stops_cleanly_and_a_foreign_record_is_left_alone(tmp_path: Path) -> None:
    root = make_project(tmp_path / "game")
    with dev_server(root) as server:
        foreign = {**server.record(), "pid": 1}
        (root / ".pix3" / "dev.json").write_text(json.dumps(foreign))
        assert server.stop(signal.SIGINT) == 0
    assert json.loads((root / ".pix3" / "dev.json").read_text())["pid"] == 1


def test_port_choice_busy_default_moves_on_and_strict_port_fails(tmp_path: Path) -> None:
    root = make_project(tmp_path / "game")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_pix3("__dev-server", "--project", str(root), "--port", str(port), timeout=30)
        assert result.returncode == 1
        assert f"Port {port} is already in use" in result.stderr
    assert not (root / ".pix3" / "dev.json").exists()


def test_default_port_is_5173_or_the_next_free_one(tmp_path: Path) -> None:
    root = make_project(tmp_path / "game")
    proc = subprocess.Popen(
        pix3_argv("__dev-server", "--project", str(root)), env=pix3_env(), stderr=subprocess.DEVNULL
    )
    try:
        wait_for_record(root, proc.pid, proc)  # written whole, by this process
        port = json.loads((root / ".pix3" / "dev.json").read_text())["port"]
        assert port >= 5173
        with socket.socket() as probe:  # every port below ours from 5173 was taken when it chose
            assert probe.connect_ex(("127.0.0.1", port)) == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)


def test_usage_errors_and_no_project(tmp_path: Path) -> None:
    # A usage error is exit 2 with the usage, as for every command.
    result = run_pix3("__dev-server", "--what")
    assert result.returncode == 2 and result.stderr.startswith('pix3 __dev-server: unknown option "--what"\n\nUsage:')
    result = run_pix3("__dev-server", "--port", "x")
    assert result.returncode == 2 and result.stderr.startswith("pix3 __dev-server: --port needs a port\n\nUsage:")
    result = run_pix3("__dev-server", "--project", str(tmp_path))
    assert result.returncode == 2 and "pix3project.yaml" in result.stderr


# -- HTTP surface ------------------------------------------------------------------------------------


async def test_hello_body(shared: DevServer) -> None:
    async with httpx.AsyncClient() as client:
        reply = await client.get(shared.url + "/__pix3/api/hello")
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "application/json; charset=utf-8"
    assert reply.headers["cache-control"] == "no-store"
    body = reply.json()
    assert list(body) == ["root", "resRoot", "seq", "revision", "writerId", "tabs", "versions", "build"]
    assert body["root"] == str(shared.root)
    assert (body["seq"], body["writerId"], body["tabs"], body["build"], body["resRoot"]) == (0, None, [], "html", ".")
    assert body["versions"]["plugin"] == "2.0.0-alpha.0"
    assert len(body["revision"]) == 64


async def test_routes_statuses(shared: DevServer) -> None:
    async with httpx.AsyncClient(base_url=shared.url) as client:
        reply = await client.get("/__pix3?x=1")
        assert (reply.status_code, reply.headers["location"]) == (302, "/__pix3/?x=1")
        page = await client.get("/__pix3/")
        assert page.status_code == 200
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert page.headers["cache-control"] == "no-store"
        assert page.headers["cross-origin-opener-policy"] == "same-origin-allow-popups"
        assert page.headers["content-security-policy"] == "frame-ancestors 'none'"  # never framed
        assert "<title>Pix3</title>" in page.text and 'id="pix3-editor"' in page.text
        assert page.text.index("__PIX3_VITE_CLIENT__") < page.text.index('type="module"')
        assert "@vite/client" not in page.text.split("__PIX3_VITE_CLIENT__=true")[1].split("</head>")[0]
        head = await client.head("/__pix3/index.html")
        assert head.status_code == 200 and head.content == b""
        refused = await client.post("/__pix3/")
        assert refused.json()["error"] == "missing_x_pix3"
        wrong = await client.post("/__pix3/", headers=X)
        assert (wrong.status_code, wrong.json()) == (405, {"error": "method", "message": "GET only."})
        for method, path in [
            ("HEAD", "/__pix3/api/hello"),
            ("GET", "/__pix3/api/sync"),
            ("GET", "/__pix3/api/flush"),
            ("GET", "/__pix3/api/nothing"),
            ("GET", "/__pix3/other.js"),
        ]:
            reply = await client.request(method, path)
            assert reply.status_code == 404, (method, path)
            if method != "HEAD":
                assert reply.json() == {"error": "not_found", "message": "Not found."}
        css = await client.get("/__pix3/editor.css")
        assert css.status_code == 404 and css.json()["message"] == "@pix3/editor-core is not installed."


async def test_private_paths_are_404_everywhere(shared: DevServer) -> None:
    async with httpx.AsyncClient(base_url=shared.url) as client:
        for path in (
            "/.pix3/dev.json",
            "/%2epix3/dev.json",
            "/.PIX3/dev.log",
            f"/@fs{shared.root}/.pix3/dev.json",
            "/.pix3/local/keys.json?import",
            "/__pix3/.pix3/x",
        ):
            reply = await client.get(path)
            assert (reply.status_code, reply.json()) == (404, {"error": "not_found", "message": "Not found."}), path
        reply = await client.get("/__pix3/api/file", params={"path": ".pix3/dev.json"})
        assert (reply.status_code, reply.json()["error"]) == (403, "reserved_path")
        static = await client.get("/index.html")
        assert static.status_code == 200 and static.text == "<p>game</p>\n"
        root = await client.get("/")
        assert root.text == "<p>game</p>\n"
        escape = await client.get("/%2e%2e/%2e%2e/etc/passwd")
        assert escape.status_code == 404
        (shared.root / "m.js").write_text("export default 1;\n")
        module = await client.get("/m.js")
        assert module.headers["content-type"] == "text/javascript; charset=utf-8"
        assert (await client.post("/m.js")).status_code == 405
        (shared.root / "outside").symlink_to("/etc")
        assert (await client.get("/outside/hostname")).status_code == 404


SECRETS = {
    ".git/config": '[remote "origin"]\n\turl = https://pix3-leak-token@example.com/game.git\n',
    ".env": "SECRET=pix3-leak-env\n",
    ".env.production": "SECRET=pix3-leak-env\n",
    "key.pem": "pix3-leak-pem\n",
    "certs/server.crt": "pix3-leak-crt\n",
}


async def test_the_folder_served_without_vite_keeps_its_secrets(shared: DevServer) -> None:
    """docs/devserver.md, "The Host rule" and "What the front door refuses": a rebinding name
    gets nothing on any route; the deny list holds for every Host, however the name is spelled."""
    for name, text in SECRETS.items():
        (shared.root / name).parent.mkdir(parents=True, exist_ok=True)
        (shared.root / name).write_text(text)
    async with httpx.AsyncClient(base_url=shared.url) as client:
        for host in ("attacker.example", "127.evil.example", f"127.0.0.1.nip.io:{shared.port}", "127.1"):
            for path in ("/.git/config", "/.env", "/key.pem", "/index.html", "/__pix3/api/hello", "/__pix3/"):
                reply = await client.get(path, headers={"Host": host})
                assert (reply.status_code, reply.json()["error"]) == (403, "forbidden_host"), (host, path)
            file_api = await client.get("/__pix3/api/file", params={"path": "index.html"}, headers={"Host": host})
            assert file_api.status_code == 403
        for path in (
            "/.git/config",
            "/.env",
            "/.env.production",
            "/key.pem",
            "/certs/server.crt",
            "/%2egit/config",
            "/.GIT/config",
            "/.env.",
            "/key.pem/",
            "/key.pem%2e",
            "/certs/../key.pem",
            "/%252eenv",
        ):
            reply = await client.get(path, headers={"Host": f"localhost:{shared.port}"})
            assert (reply.status_code, reply.json()["error"]) == (404, "not_found"), path
            assert "pix3-leak" not in reply.text
        assert (await client.get("/index.html", headers={"Host": f"127.0.0.2:{shared.port}"})).status_code == 200


async def test_without_vite_typescript_is_served_as_text_never_as_a_script(shared: DevServer) -> None:
    """docs/devserver.md, "Media types": one table on every machine; TypeScript and JSX are
    text/plain (a browser cannot run them), never the system table's Qt Linguist or MPEG-TS."""
    sources = {"src/main.ts": "export const a: number = 1;\n", "b.tsx": "x", "c.mts": "x", "d.cts": "x", "e.jsx": "x"}
    for name, text in sources.items():
        (shared.root / name).parent.mkdir(parents=True, exist_ok=True)
        (shared.root / name).write_text(text)
    (shared.root / "m.cjs").write_text("module.exports = 1;\n")
    (shared.root / "data.bin").write_bytes(b"\0\1")
    async with httpx.AsyncClient(base_url=shared.url) as client:
        for name, text in sources.items():
            reply = await client.get("/" + name)
            assert (reply.status_code, reply.headers["content-type"]) == (200, "text/plain; charset=utf-8"), name
            assert reply.text == text
        assert (await client.get("/m.cjs")).headers["content-type"] == "text/javascript; charset=utf-8"
        assert (await client.get("/data.bin")).headers["content-type"] == "application/octet-stream"
        file_api = await client.get("/__pix3/api/file", params={"path": "src/main.ts"})
        assert file_api.headers["content-type"] == "text/plain; charset=utf-8"


async def test_guard_refusals(server: DevServer) -> None:
    async with httpx.AsyncClient(base_url=server.url) as client:
        put = await client.put("/__pix3/api/file", params={"path": "new.txt"}, content=b"x")
        assert (put.status_code, put.json()) == (
            403,
            {"error": "missing_x_pix3", "message": "Mutations need the header `X-Pix3: 1`."},
        )
        evil = await client.put(
            "/__pix3/api/file",
            params={"path": "new.txt"},
            content=b"x",
            headers={**X, "Origin": "http://evil.example"},
        )
        assert (evil.status_code, evil.json()) == (403, {"error": "forbidden_origin", "message": "Origin not allowed."})
        assert not (server.root / "new.txt").exists()
        host = await client.get("/__pix3/api/hello", headers={"Host": "evil.example"})
        assert (host.status_code, host.json()["error"]) == (403, "forbidden_host")
        for route in ("flush", "sync", "handover/claim"):
            reply = await client.post(f"/__pix3/api/{route}", json={})
            assert reply.json()["error"] == "missing_x_pix3", route
        editor = f"localhost:{server.port}"  # the editor page's name (the game's, 127.0.0.1, is refused a browser)
        ok = await client.put(
            "/__pix3/api/file",
            params={"path": "new.txt"},
            content=b"x",
            headers={**X, "Origin": f"http://{editor}", "Host": editor},
        )
        assert ok.status_code == 200
    assert (server.root / "new.txt").read_bytes() == b"x"


def _rejection(error: BaseException) -> trio_websocket.ConnectionRejected:
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, trio_websocket.ConnectionRejected), error
    return error


async def test_socket_with_foreign_origin_never_opens(server: DevServer) -> None:
    # (open_websocket_url leaks its socket on a refusal, so the test owns the stream)
    own = f"127.0.0.1:{server.port}"
    for host, headers in ((own, [(b"Origin", b"http://evil.example")]), ("evil.example", []), ("127.evil.example", [])):
        stream = await trio.open_tcp_stream("127.0.0.1", server.port)
        with pytest.raises(BaseException) as caught, trio.fail_after(10):  # an opened socket would wait forever
            async with trio.open_nursery() as nursery:
                await trio_websocket.wrap_client_stream(nursery, stream, host, "/__pix3/ws", extra_headers=headers)
        await stream.aclose()
        assert _rejection(caught.value).status_code == 403, host


async def _post_too_large(server: DevServer, path: str, size: int) -> tuple[int, dict[str, object]]:
    """POST ``size`` bytes on a raw socket while reading the answer: the server may answer 413 and
    close before the body is all sent, which an HTTP client reports as a reset instead of the reply."""
    stream = await trio.open_tcp_stream("127.0.0.1", server.port)
    head = f"POST {path} HTTP/1.1\r\nHost: localhost:{server.port}\r\nX-Pix3: 1\r\nContent-Length: {size}\r\n\r\n"
    received = bytearray()

    async def send_body() -> None:
        try:
            await stream.send_all(head.encode())
            for _ in range(size // 65536 + 1):
                await stream.send_all(b" " * 65536)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(send_body)
            while True:
                try:
                    chunk = await stream.receive_some()
                except trio.BrokenResourceError:
                    chunk = b""
                received += chunk
                header, sep, body = bytes(received).partition(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":")[1])
                        for line in header.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    None,
                )
                if not chunk or (sep and length is not None and len(body) >= length):
                    nursery.cancel_scope.cancel()
                    break
    await stream.aclose()
    status = int(header.split(b" ")[1])
    return status, json.loads(body)


async def test_bad_bodies(server: DevServer) -> None:
    assert await _post_too_large(server, "/__pix3/api/flush", 1024 * 1024 + 1) == (
        413,
        {"error": "too_large", "message": "Request body too large."},
    )
    async with httpx.AsyncClient(base_url=server.url, headers=X) as client:
        for body in (b"{", b"[]", b"3", b'"x"', b"\xff"):
            reply = await client.post("/__pix3/api/sync", content=body)
            assert (reply.status_code, reply.json()) == (
                400,
                {"error": "bad_json", "message": "Body must be a JSON object."},
            ), body
        reply = await client.post("/__pix3/api/flush", json={"timeoutMs": -1})
        assert reply.json()["message"] == "`timeoutMs` must be a non-negative number."
        reply = await client.post("/__pix3/api/sync", json={"expect": {"../x": sha("a")}})
        assert (reply.status_code, reply.json()["error"]) == (400, "bad_path")
        reply = await client.post("/__pix3/api/sync", json={"expect": {".pix3/dev.json": sha("a")}})
        assert (reply.status_code, reply.json()["error"]) == (403, "reserved_path")
        reply = await client.post("/__pix3/api/handover/claim", json={"writerId": "no spaces"})
        assert (reply.status_code, reply.json()) == (
            400,
            {"error": "bad_writer", "message": "`writerId` must be 1–128 chars of [A-Za-z0-9_.:-]."},
        )
        empty = await client.post("/__pix3/api/flush", content=b"  ")
        assert empty.json() == {"ok": True, "editor": False, "flushed": False}


# -- tabs, writer, flush, sync ------------------------------------------------------------------------


async def test_public_url_learnt_from_the_newest_tab(server: DevServer) -> None:
    own = f"localhost:{server.port}"
    async with trio.open_nursery() as nursery:
        # fake_tab returns once the welcome is in, and the hub learns from a hello before it welcomes
        async with fake_tab(server, "tab-a", nursery, origin=f"http://{own}", host=own):
            assert "publicUrl" not in server.record()
        async with fake_tab(server, "tab-b", nursery, origin="http://localhost:15999", host="localhost:15999"):
            with trio.fail_after(5):
                while "publicUrl" not in server.record():  # noqa: ASYNC110 - polling a file
                    await trio.sleep(0.01)
            record = server.record()
            assert record["publicUrl"] == "http://localhost:15999/"
            assert record["publicEditorUrl"] == "http://localhost:15999/__pix3/"
            assert record["editorUrl"] == f"http://localhost:{server.port}/__pix3/"
        async with fake_tab(server, "tab-c", nursery, origin=f"http://{own}", host=own):
            assert server.record()["publicUrl"] == "http://localhost:15999/"  # never cleared
        nursery.cancel_scope.cancel()
    assert "the browser reaches this server at http://localhost:15999/ (dev.json publicUrl)" in server.log()


def test_public_url_from_the_environment(tmp_path: Path) -> None:
    root = make_project(tmp_path / "game")
    with dev_server(root, env={"PIX3_PUBLIC_URL": "https://box.example/"}) as server:
        deadline = time.monotonic() + 5
        while "publicUrl" not in server.record():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert server.record()["publicEditorUrl"] == "https://box.example/__pix3/"
        # the public name is a Host the rule accepts, on every route; other names are not
        for host, status in (("box.example", 200), ("BOX.example:443", 200), ("other.example", 403)):
            reply = httpx.get(server.url + "/__pix3/api/hello", headers={"Host": host})
            assert reply.status_code == status, host
        assert httpx.get(server.url + "/pix3project.yaml", headers={"Host": "box.example"}).status_code == 200


async def test_welcome_hello_tabs_and_invalid_hellos(server: DevServer) -> None:
    async with trio.open_nursery() as nursery, fake_tab(server, "tab-a", nursery) as tab:
        welcome = tab.frames[0]
        assert list(welcome) == [
            "type",
            "tabId",
            "seq",
            "revision",
            "writerId",
            "root",
            "projectName",
            "resRoot",
            "versions",
        ]
        assert (welcome["tabId"], welcome["projectName"], welcome["writerId"]) == ("tab-a", "game", None)
        async with trio_websocket.open_websocket_url(server.ws_url) as silent:
            await silent.send_message(json.dumps({"type": "hello", "tabId": "bad id"}))
            await silent.send_message("not json")
            await silent.send_message("[1]")
            async with httpx.AsyncClient() as client:
                body = (await client.get(server.url + "/__pix3/api/hello")).json()
            assert body["tabs"] == ["tab-a"]
            # One socket's frames are handled in order: with no welcome for an invalid hello, the
            # first frame this socket gets is the welcome of a valid one sent after them.
            await silent.send_message(json.dumps({"type": "hello", "tabId": "tab-late"}))
            with trio.fail_after(10):
                first = json.loads(await silent.get_message())
            assert (first["type"], first["tabId"]) == ("welcome", "tab-late")
        await tab.ws.send_message(json.dumps({"type": "hello", "tabId": "again"}))
        await trio.sleep(0.1)
        assert [f["type"] for f in tab.frames] == ["welcome"]
        nursery.cancel_scope.cancel()


async def test_writer_handover_and_fs_frames(server: DevServer) -> None:
    async with (
        trio.open_nursery() as nursery,
        fake_tab(server, "tab-a", nursery) as a,
        fake_tab(server, "tab-b", nursery) as b,
        httpx.AsyncClient(base_url=server.url, headers=X) as client,
    ):
        claim = await client.post("/__pix3/api/handover/claim", json={"writerId": "tab-a"})
        body = claim.json()
        assert body["writerId"] == "tab-a" and body["hashes"]["a.txt"] == sha("a")
        assert (await a.next_frame("pix3:writer"))["writerId"] == "tab-a"
        seen = len(a.frames)
        put = await client.put(
            "/__pix3/api/file", params={"path": "s.txt"}, content=b"one", headers={"X-Pix3-Writer": "tab-a"}
        )
        assert put.status_code == 200
        frame = await a.next_frame("pix3:fs", after=seen)
        assert frame["writerId"] == "tab-a"
        assert [(e["op"], e["path"], e["author"]) for e in frame["events"]] == [("create", "s.txt", "editor")]
        seen = len(a.frames)
        (server.root / "s.txt").write_text("one# agent\n")
        frame = await a.next_frame("pix3:fs", after=seen, within=15)
        event = frame["events"][0]
        assert (event["path"], event["sha256"], event["author"]) == ("s.txt", sha("one# agent\n"), "external")
        refused = await client.put(
            "/__pix3/api/file", params={"path": "a.txt"}, content=b"b", headers={"X-Pix3-Writer": "tab-b"}
        )
        assert refused.status_code == 409 and refused.json()["error"] == "writer_superseded"
        seen, seen_b = len(a.frames), len(b.frames)
        await client.post("/__pix3/api/handover/claim", json={"writerId": "tab-b"})
        assert (await a.next_frame("pix3:writer", after=seen))["writerId"] == "tab-b"
        assert (await b.next_frame("pix3:writer", after=seen_b))["writerId"] == "tab-b"
        again = await client.put(
            "/__pix3/api/file", params={"path": "a.txt"}, content=b"b", headers={"X-Pix3-Writer": "tab-a"}
        )
        assert (again.status_code, again.json()["writerId"]) == (409, "tab-b")
        hello = (await client.get("/__pix3/api/hello")).json()
        assert (hello["writerId"], hello["tabs"]) == ("tab-b", ["tab-a", "tab-b"])
        nursery.cancel_scope.cancel()
    assert (server.root / "a.txt").read_text() == "a"


async def test_sync_without_tab_reports_changes_and_expectations(server: DevServer) -> None:
    (server.root / "a.txt").write_text("agent thought so")
    async with httpx.AsyncClient(base_url=server.url, headers=X) as client:
        reply = await client.post("/__pix3/api/sync", json={})
        body = reply.json()
        assert reply.status_code == 200
        assert (body["ok"], body["editor"]) == (True, False)
        # The rescan reports what the watcher had not told yet: on a loaded machine the watcher may
        # see the write first (its frame goes to no tab). Either way the table holds the new sha,
        # which the expectation below checks.
        assert body["changed"] in ({"a.txt": sha("agent thought so")}, {}), body
        assert body["rev"] == body["seq"] >= 1 and isinstance(body["ms"], int)
        stale = await client.post("/__pix3/api/sync", json={"expect": {"a.txt": sha("a")}})
        body = stale.json()
        assert (body["ok"], body["reason"]) == (False, "expect_mismatch")
        assert body["expectMismatch"] == [{"path": "a.txt", "expected": sha("a"), "actual": sha("agent thought so")}]
        missing = await client.post("/__pix3/api/sync", json={"expect": {"nope.txt": sha("a")}})
        assert missing.json()["expectMismatch"][0]["actual"] is None


async def test_flush_and_sync_with_a_tab(server: DevServer) -> None:
    async with (
        trio.open_nursery() as nursery,
        fake_tab(server, "tab-a", nursery) as tab,
        httpx.AsyncClient(base_url=server.url, headers=X) as client,
    ):
        first = await client.post("/__pix3/api/flush")
        assert first.json() == {"ok": True, "editor": True, "flushed": False}
        await client.post("/__pix3/api/handover/claim", json={"writerId": "tab-a"})
        flushed = await client.post("/__pix3/api/flush")
        assert flushed.json() == {"ok": True, "written": [], "editor": True, "flushed": True}
        synced = await client.post("/__pix3/api/sync", json={})
        body = synced.json()
        assert (body["ok"], body["editor"], body["tabId"]) == (True, True, "tab-a")
        asked = await client.post("/__pix3/api/sync", json={"tabId": "tab-a"})
        assert asked.json()["ok"] is True
        kinds = [r["kind"] for r in tab.requests]
        assert kinds.count("flush") == 2 and kinds.count("sync") == 2
        request = tab.requests[-1]
        assert set(request) == {"type", "id", "kind", "rev", "changed", "paths", "policyOnly"}
        flushed = await client.post("/__pix3/api/flush", json={"timeoutMs": 1234})
        assert (flushed.json()["flushed"], tab.requests[-1]["timeoutMs"]) == (True, 1234)

        tab.answers["flush"] = {"ok": False, "reason": "gesture_in_progress"}
        body = (await client.post("/__pix3/api/sync", json={})).json()
        assert body == {"ok": False, "reason": "gesture_in_progress", "editor": True, "flushed": False, "step": "flush"}
        tab.answers["flush"] = {"ok": True}

        tab.answers["sync"] = {
            "ok": False,
            "reason": "stale",
            "playing": "designer",
            "pending": ["a.txt"],
            "executed": {},
        }
        body = (await client.post("/__pix3/api/sync", json={})).json()
        assert (body["ok"], body["reason"], body["playing"], body["pending"]) == (False, "stale", "designer", ["a.txt"])
        assert "executed" not in body

        (server.root / "a.txt").write_text("changed")
        seen = len(tab.requests)
        tab.answers["sync"] = None
        body = (await client.post("/__pix3/api/sync", json={"tabId": "tab-a"})).json()
        assert body["ok"] is True and body["changed"] == {"a.txt": sha("changed")}
        assert tab.requests[seen]["paths"] == ["a.txt"]

        (server.root / "a.txt").write_text("changed again")
        tab.answers["sync"] = {"ok": True, "rev": -5}
        body = (await client.post("/__pix3/api/sync", json={"tabId": "tab-a"})).json()
        assert (body["ok"], body["reason"], body["ackRev"]) == (False, "stale_modules", -5)

        tab.answers["sync"] = {"ok": True, "rev": 10**6, "viteClient": True}
        body = (await client.post("/__pix3/api/sync", json={"tabId": "tab-a"})).json()
        assert (body["ok"], body["viteClient"]) == (True, True)
        assert "`pix3 check`" in body["warning"] and "game" not in body

        # a playing game that took the changes live: its answer comes back with the barrier's
        game = {"applied": ["a.txt"], "stale": [], "ms": 4}
        tab.answers["sync"] = {"ok": True, "rev": 10**6, "playing": "agent", "game": game}
        body = (await client.post("/__pix3/api/sync", json={"tabId": "tab-a"})).json()
        assert (body["ok"], body["game"]) == (True, game) and "playing" not in body
        tab.answers["sync"] = {"ok": True, "rev": 10**6, "game": "not an object"}
        assert "game" not in (await client.post("/__pix3/api/sync", json={"tabId": "tab-a"})).json()
        nursery.cancel_scope.cancel()


async def test_tab_that_never_answers_and_tab_that_closes(server: DevServer) -> None:
    async with (
        trio.open_nursery() as nursery,
        httpx.AsyncClient(base_url=server.url, headers=X, timeout=30) as client,
    ):
        async with fake_tab(server, "tab-a", nursery) as tab:
            await client.post("/__pix3/api/handover/claim", json={"writerId": "tab-a"})
            tab.answers["flush"] = "never"
            start = trio.current_time()
            body = (await client.post("/__pix3/api/flush", json={"timeoutMs": 0})).json()
            assert body == {"ok": False, "reason": "timeout", "tabId": "tab-a", "editor": True, "flushed": False}
            assert 0.9 <= trio.current_time() - start < 5  # T + 1 s
            tab.answers["sync"] = "never"
            body = (await client.post("/__pix3/api/sync", json={"tabId": "tab-a", "timeoutMs": 300})).json()
            assert (body["ok"], body["reason"], body["tabId"]) == (False, "timeout", "tab-a")
            tab.answers["flush"] = "close"
            body = (await client.post("/__pix3/api/flush")).json()
            assert body == {"ok": False, "reason": "tab_closed", "tabId": "tab-a", "editor": True, "flushed": False}
        body = (await client.post("/__pix3/api/flush")).json()
        assert body == {"ok": True, "editor": False, "flushed": False}
        nursery.cancel_scope.cancel()


async def test_barriers_run_one_at_a_time(server: DevServer) -> None:
    async with (
        trio.open_nursery() as nursery,
        fake_tab(server, "tab-a", nursery) as tab,
        httpx.AsyncClient(base_url=server.url, headers=X, timeout=30) as client,
    ):
        tab.answers["sync"] = "never"
        results: list[tuple[str, float]] = []

        async def one(name: str) -> None:
            await client.post("/__pix3/api/sync", json={"tabId": "tab-a", "timeoutMs": 400})
            results.append((name, trio.current_time()))

        start = trio.current_time()
        async with trio.open_nursery() as inner:
            inner.start_soon(one, "first")
            await tab.next_frame("request")  # the first barrier is running
            inner.start_soon(one, "second")
        assert [name for name, _ in results] == ["first", "second"]
        assert results[1][1] - start >= 0.8  # the second waited for the first
        nursery.cancel_scope.cancel()


# -- the flush client -------------------------------------------------------------------------------


def test_sync_editor_outcomes(tmp_path: Path) -> None:
    from pix3net.clients.flush import flush_editor

    root = make_project(tmp_path / "game")
    assert flush_editor(root, no_sync=True).status == "skipped"
    assert flush_editor(root).status == "no-server"
    with dev_server(root) as server:
        outcome = flush_editor(root)
        assert (outcome.status, outcome.url) == ("no-editor", f"http://localhost:{server.port}/")
        record = server.record()
    (root / ".pix3" / "dev.json").write_text(json.dumps(record))  # a stale record: ignored
    assert flush_editor(root).status == "no-server"
    (root / ".pix3" / "dev.json").write_text(json.dumps({"url": f"http://127.0.0.1:{free_port()}/", "pid": 0}))
    assert flush_editor(root).status == "no-server"


async def test_sync_editor_flushed_and_unsynced(server: DevServer) -> None:
    from pix3net.clients.flush import flush_editor

    async with (
        trio.open_nursery() as nursery,
        fake_tab(server, "tab-a", nursery) as tab,
        httpx.AsyncClient(base_url=server.url, headers=X) as client,
    ):
        outcome = await trio.to_thread.run_sync(flush_editor, server.root)
        assert outcome.status == "flushed"  # a tab is open, nothing to flush (no writer yet)
        await client.post("/__pix3/api/handover/claim", json={"writerId": "tab-a"})
        outcome = await trio.to_thread.run_sync(flush_editor, server.root)
        assert (outcome.status, outcome.message) == ("flushed", None)
        assert tab.requests[-1]["timeoutMs"] == 15000
        tab.answers["flush"] = {"ok": False, "reason": "gesture_in_progress"}
        outcome = await trio.to_thread.run_sync(flush_editor, server.root)
        url = f"http://localhost:{server.port}/"
        assert (outcome.status, outcome.reason) == ("unsynced", "gesture_in_progress")
        assert outcome.message == (
            f"the Pix3 editor at {url} did not flush its unsaved scenes (gesture_in_progress); "
            "save in the editor and retry, or pass --no-sync to read the disk as it is"
        )
        nursery.cancel_scope.cancel()
