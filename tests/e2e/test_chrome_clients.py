"""Real Chromium behind the owner's proxy, driven by the real npm clients an agent uses.

One owner + Chromium (started with `start_owner`, as `pix3 editor` will) is shared by the module
to keep the suite fast; the last tests start their own to stop or kill them.
"""

from __future__ import annotations

import base64
import json
import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from pix3net.clients.cdptrio import WsClient
from pix3net.daemon.chromerecord import read_record
from pix3net.owner.control import start_owner, stop_owner
from tests.support.cdp_proxy import rpc
from tests.support.chrome import QUIET_CHROME_FLAGS, real_chrome_wrapper
from tests.support.editor import pages_of
from tests.support.ports import free_port
from tests.support.processes import kill_owner, pid_alive, processes_with, wait_until

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e]

JS = Path(__file__).with_name("chrome_js")
EDITOR_URL = "data:text/html,<title>pix3 editor stand-in</title>"
PNG = b"\x89PNG\r\n\x1a\n"


@dataclass
class Live:
    home: Path
    port: int
    token: str
    owner_pid: int
    node_modules: Path

    @property
    def endpoint(self) -> str:
        return f"ws://127.0.0.1:{self.port}/pix3"


def _start(home: Path, chromium: str, port: int) -> int:
    wrapper = real_chrome_wrapper(home.parent, chromium, *QUIET_CHROME_FLAGS)
    started = trio.run(
        lambda: start_owner(
            home, chrome=str(wrapper), port=port, profile=str(home / "chrome"), url=EDITOR_URL, headless=True
        )
    )
    return started.pid


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, chromium: str, node_modules: Path) -> Iterator[Live]:
    home = tmp_path_factory.mktemp("live") / "pix3-home"
    port = free_port()
    pid = _start(home, chromium, port)
    try:
        token = (home / "cdp-token").read_text().strip()
        yield Live(home, port, token, pid, node_modules)
    finally:
        kill_owner(home, pid)


def _node(live: Live, script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["node", str(JS / script), *args],
        env={**os.environ, "NODE_PATH": str(live.node_modules)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen[str], timeout: float = 60) -> Any:
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"node client timed out:\n{err}") from None
    assert process.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _await_files(clients: dict[str, subprocess.Popen[str]], folder: Path, suffix: str, timeout: float = 60) -> None:
    """Wait until every client wrote ``<name><suffix>`` in ``folder``; fail at once if one exited."""
    deadline = time.monotonic() + timeout
    while not all((folder / f"{name}{suffix}").exists() for name in clients):
        for name, process in clients.items():
            if process.poll() is not None and not (folder / f"{name}{suffix}").exists():
                _, err = process.communicate()
                raise AssertionError(f"node client {name} exited {process.returncode} before {name}{suffix}:\n{err}")
        if time.monotonic() > deadline:
            for process in clients.values():
                process.kill()
            raise AssertionError(f"timed out after {timeout} s waiting for every client's {suffix} in {folder}")
        time.sleep(0.02)


def test_two_puppeteer_clients_at_once_each_see_only_their_own(live: Live, tmp_path: Path) -> None:
    clients = {}
    for name in ("alpha", "beta"):
        env = {"PIX3_PROTOCOL_LOG": str(tmp_path / f"{name}.frames")}
        clients[name] = subprocess.Popen(
            [
                "node",
                "-r",
                str(JS / "protocol_log.cjs"),
                str(JS / "puppeteer_client.cjs"),
                live.endpoint,
                live.token,
                name,
                str(tmp_path),
            ],
            env={**os.environ, "NODE_PATH": str(live.node_modules), **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    _await_files(clients, tmp_path, ".ready")  # both are connected (each auto-attached to every target)
    (tmp_path / "go").touch()
    _await_files(clients, tmp_path, ".done")  # both closed their page; each stayed connected meanwhile
    (tmp_path / "finish").touch()
    summaries = {name: _finish(process) for name, process in clients.items()}
    a, b = summaries["alpha"], summaries["beta"]
    assert a["started"] < b["ended"] and b["started"] < a["ended"], "the two clients overlapped in time"
    for name, summary in summaries.items():
        assert summary["results"] == [f"{name}:{k}:{name}" for k in range(25)]
        assert summary["consoleSeen"] == [f"{name}:{k}" for k in range(25)]
        assert summary["text"] == name and summary["stillOpen"] == []
    assert not [url for url in pages_of(live.port, live.token) if "<title>alpha<" in url or "<title>beta<" in url]
    # Raw frames: every frame a client received belongs to it — a reply to an id it sent, or a
    # message on a session announced to it — and none mentions the other client's page.
    for name, other in (("alpha", "beta"), ("beta", "alpha")):
        sent_ids: set[int] = set()
        sessions: set[str] = set()
        received = 0
        for line in (tmp_path / f"{name}.frames").read_text().splitlines():
            direction, text = json.loads(line)
            frame = json.loads(text)
            if direction == "SEND":
                sent_ids.add(frame["id"])
                continue
            received += 1
            assert f"{other}:" not in text, text[:300]
            if "id" in frame:
                assert frame["id"] in sent_ids, text[:300]
            if "sessionId" in frame:
                assert frame["sessionId"] in sessions, text[:300]
            if frame.get("method") == "Target.attachedToTarget":
                sessions.add(frame["params"]["sessionId"])
        assert received > 50


def test_playwright_connect_over_cdp_takes_a_screenshot(live: Live, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    summary = _finish(_node(live, "playwright_client.cjs", live.endpoint, live.token, str(shot)))
    assert summary == {"evaluated": 42}
    data = shot.read_bytes()
    assert data.startswith(PNG) and len(data) > 100


class Mcp:
    """A chrome-devtools-mcp server over stdio JSON-RPC (one JSON message per line)."""

    def __init__(self, live: Live, config: Path) -> None:
        binary = live.node_modules / "chrome-devtools-mcp" / "build" / "src" / "bin" / "chrome-devtools-mcp.js"
        # agent-setup's launch (docs/agent-setup.md, "What is written") minus `npx -y`: the package is installed here.
        self.process = subprocess.Popen(
            [
                "node",
                str(binary),
                "--categoryExperimentalThirdParty=true",
                "--experimentalVision=true",
                f"--config={config}",
            ],
            env={**os.environ, "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS": "1", "CI": "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._buffer = b""
        self._next = 1

    def request(self, method: str, params: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
        ident = self._next
        self._next += 1
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            message = self._read(deadline - time.monotonic())
            if message.get("id") == ident:
                return message

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        reply = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in reply, reply
        result: dict[str, Any] = reply["result"]
        return result

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def _read(self, timeout: float) -> dict[str, Any]:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if timeout <= 0 or not selector.select(timeout):
                    raise AssertionError(f"chrome-devtools-mcp did not answer; stderr:\n{self.stderr()}")
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise AssertionError(f"chrome-devtools-mcp exited; stderr:\n{self.stderr()}")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def stderr(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")[-3000:]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def _mcp_config(path: Path, live: Live, token: str) -> Path:
    # The --config file: wsEndpoint, then wsHeaders as a *string* of compact JSON; 0600.
    headers = json.dumps({"Authorization": f"Bearer {token}"}, separators=(",", ":"))
    path.write_text(json.dumps({"wsEndpoint": live.endpoint, "wsHeaders": headers}, indent=2) + "\n")
    path.chmod(0o600)
    return path


def _start_mcp(live: Live, config: Path) -> Mcp:
    mcp = Mcp(live, config)
    init = mcp.request(
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pix3net-test", "version": "0"}},
    )
    assert "result" in init, init
    mcp.notify("notifications/initialized")
    return mcp


def _text(result: dict[str, Any]) -> str:
    return "\n".join(part.get("text", "") for part in result.get("content", []) if part.get("type") == "text")


def test_chrome_devtools_mcp_through_its_config_file(live: Live, tmp_path: Path) -> None:
    mcp = _start_mcp(live, _mcp_config(tmp_path / "cdp-mcp.json", live, live.token))
    try:
        pages = mcp.call("list_pages", {})
        assert not pages.get("isError"), pages
        listing = _text(pages)
        found = re.search(r"^\s*(?:Page )?(\d+)\b.*data:text/html", listing, re.MULTILINE)
        assert found is not None, listing
        page_id = int(found.group(1))
        evaluated = mcp.call("evaluate_script", {"function": "() => 6 * 7", "pageId": page_id})
        assert not evaluated.get("isError"), evaluated
        assert "42" in _text(evaluated)
        shot = mcp.call("take_screenshot", {"pageId": page_id})
        assert not shot.get("isError"), shot
        images = [part for part in shot["content"] if part.get("type") == "image"]
        assert images and base64.b64decode(images[0]["data"])[:4] in (PNG[:4], b"\xff\xd8\xff\xe0", b"RIFF")
        # While everything runs, no process's command line holds the token.
        assert processes_with(live.token) == []
    finally:
        mcp.close()


def test_chrome_devtools_mcp_with_a_wrong_token_fails_with_401(live: Live, tmp_path: Path) -> None:
    mcp = _start_mcp(live, _mcp_config(tmp_path / "cdp-mcp.json", live, "w" * 43))
    try:
        reply = mcp.request("tools/call", {"name": "list_pages", "arguments": {}})
        text = json.dumps(reply)
        assert reply.get("error") or reply["result"].get("isError"), reply
        assert "401" in text, text[:2000]
    finally:
        mcp.close()


def test_start_then_stop_owner(tmp_path: Path, chromium: str) -> None:
    home = tmp_path / "pix3-home"
    port = free_port()
    pid = _start(home, chromium, port)
    try:
        record = read_record(home)
        assert record is not None and record.owner_pid == pid and record.port == port
        chrome_pid = record.chrome_pid
        assert chrome_pid is not None
        assert stop_owner(home) == f"Stopped Chrome and its CDP proxy on port {port} (owner pid {pid})."
        assert read_record(home) is None
        wait_until(lambda: not pid_alive(chrome_pid), 5, "Chromium's exit")
        assert stop_owner(home) == "No Chrome owner recorded in ~/.pix3/chrome.json."
        log = (home / "chrome-owner.log").read_text()
        assert "SIGTERM: closing Chrome" in log and "Chrome is gone (code 0, signal -)" in log
    finally:
        kill_owner(home, pid)


def test_owner_killed_real_chromium_exits_within_2_s(tmp_path: Path, chromium: str) -> None:
    home = tmp_path / "pix3-home"
    pid = _start(home, chromium, free_port())
    try:
        record = read_record(home)
        assert record is not None and record.chrome_pid is not None
        chrome_pid = record.chrome_pid
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not pid_alive(pid), 5, "the owner's death")
        wait_until(lambda: not pid_alive(chrome_pid), 2, "Chromium's exit after its owner died")
        assert stop_owner(home) == f"The Chrome owner recorded (pid {pid}) is not running or did not stop."
    finally:
        kill_owner(home, pid)


def test_a_clients_dispose_on_detach_context_goes_with_it(live: Live) -> None:
    """Chrome disposes such a context when the session that made it detaches, and the proxy
    detaches a leaving client's root session: the context and its pages go with the client, at
    once (pix3 smoke relies on it to leave nothing behind in a reused owner). The client connects
    with ``keep`` so that the other context stays: without it the proxy would close it a second
    later (docs/cdp-proxy.md, "Ownership and protection")."""
    headers = [("Authorization", f"Bearer {live.token}")]

    async def listed() -> set[str]:
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {live.token}"}) as client:
            answer = await client.get(f"http://127.0.0.1:{live.port}/json/list")
        return {entry["id"] for entry in answer.json()}

    async def scenario() -> tuple[bool, bool, bool]:
        targets: dict[str, str] = {}
        async with await WsClient.connect(live.port, "/pix3?keep=1", headers) as ws:
            for n, dispose in enumerate((True, False)):
                params = {"disposeOnDetach": True} if dispose else {}
                created = await rpc(ws, {"id": 10 + n, "method": "Target.createBrowserContext", "params": params})
                context = created["result"]["browserContextId"]
                url = f"about:blank#{'gone' if dispose else 'kept'}"
                opened = await rpc(
                    ws,
                    {
                        "id": 20 + n,
                        "method": "Target.createTarget",
                        "params": {"url": url, "browserContextId": context},
                    },
                )
                targets["gone" if dispose else "kept"] = opened["result"]["targetId"]
            both_listed = {targets["gone"], targets["kept"]} <= await listed()
        with trio.move_on_after(10):
            while targets["gone"] in await listed():  # noqa: ASYNC110 - /json/list has no event
                await trio.sleep(0.1)
        now = await listed()
        return both_listed, targets["gone"] not in now, targets["kept"] in now

    assert trio.run(scenario) == (True, True, True)
