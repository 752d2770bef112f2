"""Helpers for the dev-server tests: a real `pix3 __dev-server` process and fake editor tabs."""

from __future__ import annotations

import contextlib
import json
import resource
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
import trio_websocket

from tests.support.pix3 import pix3_argv, pix3_env
from tests.support.ports import free_port

START_TIMEOUT_S = 30.0


@dataclass
class DevServer:
    proc: subprocess.Popen[bytes]
    root: Path
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/__pix3/ws"

    def record(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.root / ".pix3" / "dev.json").read_bytes())
        return data

    def log(self) -> str:
        return (self.root / ".pix3" / "dev.log").read_text(errors="replace")

    def log_saying(self, words: str, within: float = 10) -> str:
        """dev.log once it holds ``words``: a line logged after the record was written (the
        start-up's "listening on") may not be there yet when the server is found ready."""
        deadline = time.monotonic() + within
        while words not in (log := self.log()):
            assert time.monotonic() < deadline, f"dev.log never said {words!r}:\n{log}"
            time.sleep(0.05)
        return log

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


def wait_for_record(root: Path, pid: int, proc: subprocess.Popen[bytes], timeout: float = START_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    path = root / ".pix3" / "dev.json"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log = (
                (root / ".pix3" / "dev.log").read_text(errors="replace")
                if (root / ".pix3" / "dev.log").exists()
                else ""
            )
            raise AssertionError(f"dev server exited with {proc.returncode}\n{log}")
        with contextlib.suppress(OSError, ValueError):
            if json.loads(path.read_bytes()).get("pid") == pid:
                return
        time.sleep(0.05)
    raise AssertionError(f"no dev.json from pid {pid} within {timeout} s")


@contextlib.contextmanager
def dev_server(
    root: Path,
    *,
    port: int | None = None,
    env: Mapping[str, str] | None = None,
    wait_vite: bool = False,
    nofile: int | None = None,
) -> Iterator[DevServer]:
    """A real `pix3 __dev-server` on ``root``; ``nofile`` sets its file-descriptor limit (soft and
    hard, as `ulimit -n` does)."""
    port = port or free_port()

    def limit_fds() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    errors = open(root.parent / f"{root.name}-stderr.txt", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        pix3_argv("__dev-server", "--project", str(root), "--port", str(port)),
        env=pix3_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=errors,
        preexec_fn=limit_fds if nofile is not None else None,
    )
    try:
        wait_for_record(root, proc.pid, proc)
        server = DevServer(proc, root, port)
        if wait_vite:
            wait_vite_ready(server)
        yield server
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        errors.close()


def hello(server: DevServer) -> dict[str, Any]:
    import httpx

    body: dict[str, Any] = httpx.get(server.url + "/__pix3/api/hello", timeout=10).json()
    return body


def wait_vite_ready(server: DevServer, timeout: float = START_TIMEOUT_S, restarts: int = 0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        vite = hello(server).get("vite") or {}
        if vite.get("running") and vite.get("restarts", 0) >= restarts:
            return dict(vite)
        time.sleep(0.1)
    raise AssertionError(f"vite not running within {timeout} s:\n{server.log()}")


class FakeTab:
    """A Python editor tab on `/__pix3/ws`: says hello, records frames, answers requests."""

    def __init__(self, ws: trio_websocket.WebSocketConnection, tab_id: str) -> None:
        self.ws = ws
        self.tab_id = tab_id
        self.frames: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.answers: dict[str, Any] = {"flush": {"ok": True, "written": []}, "sync": None}
        self._new = trio.Condition()

    async def next_frame(self, kind: str, within: float = 10, after: int = 0) -> dict[str, Any]:
        with trio.fail_after(within):
            while True:
                for frame in self.frames[after:]:
                    if frame.get("type") == kind:
                        return frame
                async with self._new:
                    await self._new.wait()

    async def run(self) -> None:
        with contextlib.suppress(trio_websocket.ConnectionClosed):
            while True:
                frame = json.loads(await self.ws.get_message())
                self.frames.append(frame)
                async with self._new:
                    self._new.notify_all()
                if frame.get("type") == "request":
                    self.requests.append(frame)
                    answer = self.answers.get(frame["kind"])
                    if answer == "never":
                        continue
                    if answer == "close":
                        await self.ws.aclose()
                        return
                    if answer is None:  # the default sync answer: applied up to the asked rev
                        answer = {"ok": True, "rev": frame.get("rev"), "executed": {}}
                    await self.ws.send_message(json.dumps({**answer, "type": "reply", "id": frame["id"]}))


@contextlib.asynccontextmanager
async def fake_tab(
    server: DevServer, tab_id: str, nursery: trio.Nursery, *, origin: str | None = None, host: str | None = None
) -> Any:
    headers: list[tuple[bytes, bytes]] = []
    if origin is not None:
        headers.append((b"Origin", origin.encode()))
    stream = await trio.open_tcp_stream("127.0.0.1", server.port)
    ws = await trio_websocket.wrap_client_stream(
        nursery, stream, host or f"127.0.0.1:{server.port}", "/__pix3/ws", extra_headers=headers
    )
    try:
        tab = FakeTab(ws, tab_id)
        nursery.start_soon(tab.run)
        await ws.send_message(json.dumps({"type": "hello", "tabId": tab_id}))
        await tab.next_frame("welcome")
        yield tab
    finally:
        await ws.aclose()
