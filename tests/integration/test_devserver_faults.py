"""Faults under the dev server: a full disk, a SIGKILL mid-write, Vite crashing mid-request, the
dev server SIGKILLed while Vite has children (docs/devserver.md "Faults").

The disk-full cases mount a small tmpfs (we run as root, as the test machine does) and unmount
it afterwards. The Vite cases run a small stand-in `vite.js` under the real node: it listens
where it is told, spawns a child, and can crash on request.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import h11
import httpx
import pytest
import trio

from tests.support.devserver import DevServer, dev_server, hello, wait_vite_ready
from tests.support.processes import pid_alive, wait_gone
from tests.support.projects import make_project

X = {"X-Pix3": "1"}
API = "/__pix3/api"

# A stand-in for node_modules/vite/bin/vite.js: the dev server runs it under node exactly as it
# runs Vite (`--host 127.0.0.1 --port <p> --strictPort`).
FAKE_VITE = r"""
const http = require("http");
const fs = require("fs");
const { spawn } = require("child_process");
const args = process.argv.slice(2);
const port = Number(args[args.indexOf("--port") + 1]);
const child = spawn("sleep", ["300"], { stdio: "ignore" });
fs.writeFileSync("vite-child.pid", String(child.pid));
http.createServer((req, res) => {
  if (req.url === "/crash") process.exit(3);
  if (req.url === "/half") {
    res.writeHead(200, { "content-type": "text/javascript", "content-length": "1000" });
    res.write("export ");
    setTimeout(() => process.exit(3), 50);
    return;
  }
  res.writeHead(200, { "content-type": "text/javascript" });
  res.end("export default 1;\n");
}).listen(port, "127.0.0.1");
"""


# Vite's start as it is (vite 8's httpServerStart): the port checked free by listening on it on
# the wildcard address for a moment, with a server that answers nothing, closed again; a moment
# where it refuses; then the real server on the address it was given. Held longer here (1 s,
# 0.3 s) than Vite holds them, so that a probe cannot miss them. Node's keep-alive timeout is
# 100 ms instead of 5 s, so idle connections are closed as often as a test needs.
PORT_CHECKING_VITE = r"""
const http = require("http");
const net = require("net");
const fs = require("fs");
const args = process.argv.slice(2);
const port = Number(args[args.indexOf("--port") + 1]);
const check = net.createServer();
check.listen(port, "0.0.0.0", () => {
  setTimeout(() => {
    check.close();
    setTimeout(() => {
      const server = http.createServer((req, res) => {
        res.writeHead(200, { "content-type": "text/javascript" });
        res.end("export default 1;\n");
      });
      server.keepAliveTimeout = 100;
      server.listen(port, "127.0.0.1", () => fs.writeFileSync("listening", ""));
    }, 300);
  }, 1000);
});
"""


def fake_vite_project(root: Path, vite_js: str = FAKE_VITE) -> Path:
    make_project(root, {"index.html": "<p>game</p>\n"})
    package = root / "node_modules" / "vite"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "vite", "version": "0.0.0-stand-in"}\n')
    (package / "bin" / "vite.js").write_text(vite_js)
    return root


def _vite_child(root: Path, timeout: float = 10) -> int:
    path = root / "vite-child.pid"
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text():
        assert time.monotonic() < deadline, "the stand-in Vite wrote no child pid"
        time.sleep(0.05)
    return int(path.read_text())


# -- Vite --------------------------------------------------------------------------------------------


def _until_vite_down(server: DevServer, timeout: float = 10) -> None:
    """Until the dev server has seen Vite exit (requests then wait for the restart)."""
    deadline = time.monotonic() + timeout
    while hello(server)["vite"]["running"]:
        assert time.monotonic() < deadline, "the dev server did not notice Vite's exit"
        time.sleep(0.01)


@pytest.mark.node
def test_vite_crashing_mid_request_is_a_502(tmp_path: Path) -> None:
    root = fake_vite_project(tmp_path / "game")
    with dev_server(root, wait_vite=True) as server:
        assert httpx.get(server.url + "/src/ok.js").text == "export default 1;\n"
        reply = httpx.get(server.url + "/crash", timeout=30)  # spliced
        assert (reply.status_code, reply.json()["error"]) == (502, "vite_unavailable")
        assert "Vite" in reply.json()["message"]
        wait_vite_ready(server, restarts=1)
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        try:  # a connection that carried a /__pix3 request is Hypercorn's: its proxy answers the same
            connection.request("GET", API + "/hello")
            assert connection.getresponse().read()
            connection.request("GET", "/crash")
            answer = connection.getresponse()
            assert (answer.status, json.loads(answer.read())["error"]) == (502, "vite_unavailable")
        finally:
            connection.close()
        wait_vite_ready(server, restarts=2)
        assert httpx.get(server.url + "/src/ok.js").status_code == 200


@pytest.mark.node
def test_vite_checking_its_port_is_not_vite_ready(tmp_path: Path) -> None:
    """While Vite checks its port (a wildcard listener that answers nothing, then a refusal), the
    dev server does not call it running; a module asked for meanwhile waits and is answered."""
    root = fake_vite_project(tmp_path / "game", PORT_CHECKING_VITE)
    with dev_server(root) as server:
        early = httpx.get(server.url + "/src/early.js", timeout=30)  # arrives before Vite listens
        assert (early.status_code, early.text) == (200, "export default 1;\n")
        assert (root / "listening").exists()
        assert hello(server)["vite"]["running"]

    with dev_server(fake_vite_project(tmp_path / "second", PORT_CHECKING_VITE)) as server:
        deadline = time.monotonic() + 30
        while not hello(server)["vite"]["running"]:
            assert time.monotonic() < deadline, "Vite never became ready"
            time.sleep(0.005)
        assert (server.root / "listening").exists(), "called ready before Vite's own server listened"
        reply = httpx.get(server.url + "/src/a.js", timeout=10)  # spliced: Vite is running
        assert (reply.status_code, reply.text) == (200, "export default 1;\n")


@pytest.mark.node
def test_node_closing_idle_connections_is_never_a_502(tmp_path: Path) -> None:
    """Node (keep-alive timeout 100 ms here) closes idle connections to it; requests 80-120 ms
    apart meet some just closed, on a spliced connection and on one the ASGI proxy serves: every
    answer is a 200."""
    root = fake_vite_project(tmp_path / "game", PORT_CHECKING_VITE)
    with dev_server(root, wait_vite=True) as server:
        for proxied in (False, True):
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            try:
                if proxied:  # a connection that carried a /__pix3 request is Hypercorn's
                    connection.request("GET", API + "/hello")
                    assert connection.getresponse().read()
                for n in range(30):
                    connection.request("GET", f"/src/m{n}.js")
                    answer = connection.getresponse()
                    assert (answer.status, answer.read()) == (200, b"export default 1;\n"), (proxied, n)
                    time.sleep(0.08 + 0.04 * (n % 11) / 10)
            finally:
                connection.close()
    assert "Traceback" not in server.log()


@pytest.mark.node
async def test_requests_racing_to_a_restarted_vite_through_the_proxy(tmp_path: Path) -> None:
    """The ASGI proxy's pool still holds connections to the Vite that died; requests that waited
    for the restart go at once, each dropping stale pooled connections on its way (one popped
    what another was iterating over: a 500)."""
    root = fake_vite_project(tmp_path / "game")
    with dev_server(root, wait_vite=True) as server:
        streams = [await trio.open_tcp_stream("127.0.0.1", server.port) for _ in range(8)]
        try:
            parsers = {id(stream): h11.Connection(h11.CLIENT) for stream in streams}

            async def ask(stream: trio.SocketStream, path: str) -> int:
                """One request on a kept-alive connection; its status once the whole answer is read."""
                parser = parsers[id(stream)]
                if parser.our_state is h11.DONE:
                    parser.start_next_cycle()
                request = h11.Request(method="GET", target=path, headers=[("Host", f"localhost:{server.port}")])
                await stream.send_all(parser.send(request) + parser.send(h11.EndOfMessage()))
                status = 0
                while True:
                    event = parser.next_event()
                    if event is h11.NEED_DATA:
                        parser.receive_data(await stream.receive_some())
                    elif isinstance(event, h11.Response):
                        status = event.status_code
                    elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                        return status

            for stream in streams:  # each connection becomes Hypercorn's, then fills the proxy's pool
                assert await ask(stream, API + "/hello") == 200
            async with trio.open_nursery() as nursery:
                for stream in streams:
                    nursery.start_soon(ask, stream, "/src/a.js")
            vite = hello(server)["vite"]["pid"]
            os.kill(vite, signal.SIGKILL)
            assert await trio.to_thread.run_sync(wait_gone, vite)
            await trio.to_thread.run_sync(_until_vite_down, server)
            answers: list[int] = []  # asked while Vite restarts: they wait for it, then go at once

            async def collect(stream: trio.SocketStream) -> None:
                answers.append(await ask(stream, "/src/b.js"))

            with trio.fail_after(30):
                async with trio.open_nursery() as nursery:
                    for stream in streams:
                        nursery.start_soon(collect, stream)
            assert answers == [200] * len(streams)
        finally:
            for stream in streams:
                await stream.aclose()
    assert "Traceback" not in server.log()


@pytest.mark.node
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["KILL", "TERM"])
def test_vite_children_do_not_outlive_the_dev_server(tmp_path: Path, sig: int) -> None:
    """PR_SET_PDEATHSIG reaches only Vite itself; the processes Vite starts must go too."""
    root = fake_vite_project(tmp_path / "game")
    with dev_server(root, wait_vite=True) as server:
        vite = hello(server)["vite"]["pid"]
        child = _vite_child(root)
        assert pid_alive(child)
        server.stop(sig)
        assert wait_gone(vite), f"vite pid {vite} survived"
        assert wait_gone(child), f"vite's child pid {child} survived {signal.Signals(sig).name} of the dev server"


@pytest.mark.node
def test_more_signals_while_stopping_still_remove_the_record(tmp_path: Path) -> None:
    """A second SIGTERM (and a SIGINT) while the server stops: it still stops Vite, removes
    `.pix3/dev.json` and exits 0, instead of dying by the signal's default action mid-shutdown."""
    root = fake_vite_project(tmp_path / "game")
    vite_js = root / "node_modules" / "vite" / "bin" / "vite.js"
    # This Vite shrugs off SIGTERM: the dev server then waits its grace before SIGKILL, a window
    # that opens at a moment the test can see (the marker file).
    vite_js.write_text(FAKE_VITE + 'process.on("SIGTERM", () => fs.writeFileSync("vite-got-term", "1"));\n')
    with dev_server(root, wait_vite=True) as server:
        vite = hello(server)["vite"]["pid"]
        server.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        while not (root / "vite-got-term").exists():
            assert time.monotonic() < deadline, f"the dev server never asked Vite to stop:\n{server.log()}"
            time.sleep(0.01)
        assert server.proc.poll() is None, "the dev server finished before the window the test needs"
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
            server.proc.send_signal(sig)
        assert server.proc.wait(timeout=20) == 0, server.log()
        assert not (root / ".pix3" / "dev.json").exists()
        assert wait_gone(vite), f"vite pid {vite} survived"
        assert "SIGTERM while stopping: already stopping" in server.log()
        assert "SIGINT while stopping: already stopping" in server.log()


# -- the disk ----------------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs, unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"the disk-full tests mount a small tmpfs, which needs root: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(root: Path, leave: int) -> Path:
    """A filler file that leaves about ``leave`` bytes free on the disk holding ``root``."""
    stat = os.statvfs(root)
    free = stat.f_bavail * stat.f_frsize
    filler = root / "filler.bin"
    with open(filler, "wb") as out:
        out.write(b"\0" * max(0, free - leave))
    return filler


def _leftovers(root: Path) -> list[str]:
    found = []
    for folder in ("tmp", "tx"):
        path = root / ".pix3" / folder
        if path.is_dir():
            found += [f"{folder}/{p.name}" for p in path.iterdir()]
    return found


def test_a_full_disk_is_507_no_space_and_leaves_nothing_behind(small_disk: Path) -> None:
    root = make_project(small_disk / "game", {"index.html": "<p>game</p>\n", "scenes/a.pix3scene": "A\n"})
    with dev_server(root) as server, httpx.Client(base_url=server.url, headers=X, timeout=30) as client:
        filler = _fill(root, 256 * 1024)
        put = client.put(API + "/file?path=big.bin", content=b"x" * (1024 * 1024))
        assert (put.status_code, put.json()["error"]) == (507, "no_space"), put.text
        assert "No space left" in put.json()["message"] and str(root) in put.json()["message"]
        assert not (root / "big.bin").exists()
        assert _leftovers(root) == []

        files = [{"path": f"scenes/s{n}.pix3scene", "text": "y" * (150 * 1024)} for n in range(3)]
        changeset = client.post(API + "/changeset", json={"files": files})
        assert (changeset.status_code, changeset.json()["error"]) == (507, "no_space"), changeset.text
        assert not any((root / f["path"]).exists() for f in files)
        assert _leftovers(root) == []

        assert client.put(API + "/file?path=small.txt", content=b"fits").status_code == 200
        filler.unlink()
        assert client.post(API + "/changeset", json={"files": files}).status_code == 200
        assert _leftovers(root) == []
        assert hello(server)["seq"] >= 2


def test_temp_files_of_a_killed_write_are_swept_at_start(tmp_path: Path) -> None:
    root = make_project(tmp_path / "game", {"index.html": "<p>game</p>\n"})
    with dev_server(root) as server:
        sock = socket.create_connection(("127.0.0.1", server.port))
        head = (
            f"PUT {API}/file?path=big.bin HTTP/1.1\r\nHost: localhost\r\nX-Pix3: 1\r\nContent-Length: 10000000\r\n\r\n"
        )
        sock.sendall(head.encode() + b"x" * 3_000_000)
        deadline = time.monotonic() + 10
        while not _leftovers(root):
            assert time.monotonic() < deadline, "the upload never reached .pix3/tmp"
            time.sleep(0.05)
        server.stop(signal.SIGKILL)
        sock.close()
    assert _leftovers(root), "the killed write left its temp file"
    with dev_server(root) as server:
        assert hello(server)["seq"] == 0
        assert _leftovers(root) == []
    assert not (root / "big.bin").exists()
