"""A plain Chromium on --remote-debugging-port and a tiny CDP client for the dev-server e2e tests."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import trio
import trio_websocket

from tests.support.chrome import QUIET_CHROME_FLAGS


@contextlib.contextmanager
def chromium_with_port(chromium: str, profile: Path, flags: tuple[str, ...] = ()) -> Iterator[int]:
    """Headless Chromium with a DevTools port chosen by itself (read from DevToolsActivePort),
    and ``flags`` added."""
    argv = [
        chromium,
        "--headless=new",
        *QUIET_CHROME_FLAGS,
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "--no-first-run",
        "--no-default-browser-check",
        *flags,
        "about:blank",
    ]
    if os.geteuid() == 0:
        argv.insert(1, "--no-sandbox")
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        marker = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not marker.exists() or not marker.read_text().strip():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"Chromium did not open its DevTools port (exit {proc.poll()})")
            time.sleep(0.05)
        yield int(marker.read_text().split()[0])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Page:
    """One page target over its own DevTools socket."""

    def __init__(self, ws: trio_websocket.WebSocketConnection) -> None:
        self.ws = ws
        self._next = 0
        self._waiting: dict[int, trio.MemorySendChannel[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []  # every event the page sent (only once a domain is enabled)

    async def reader(self) -> None:
        with contextlib.suppress(trio_websocket.ConnectionClosed):
            while True:
                message = json.loads(await self.ws.get_message())
                if "id" not in message:
                    self.events.append(message)
                    continue
                channel = self._waiting.pop(message["id"], None)
                if channel is not None:
                    channel.send_nowait(message)

    async def call(
        self, method: str, params: dict[str, Any] | None = None, session_id: str | None = None
    ) -> dict[str, Any]:
        """``method`` on this page, or on the target attached as ``session_id`` (flat sessions)."""
        self._next += 1
        send, receive = trio.open_memory_channel[dict[str, Any]](1)
        self._waiting[self._next] = send
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        await self.ws.send_message(json.dumps(message))
        with trio.fail_after(30):
            reply = await receive.receive()
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply["result"]
        return result

    async def evaluate(self, expression: str, session_id: str | None = None) -> Any:
        result = await self.call(
            "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session_id
        )
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def debug(self, name: str, params: dict[str, Any] | None = None) -> Any:
        return await self.evaluate(f"window.__PIX3_DEBUG__.call({json.dumps(name)}, {json.dumps(params or {})})")

    async def wait_for(self, expression: str, within: float = 20, session_id: str | None = None) -> Any:
        with trio.fail_after(within):
            while True:
                with contextlib.suppress(AssertionError):
                    value = await self.evaluate(expression, session_id)
                    if value:
                        return value
                await trio.sleep(0.05)


@contextlib.asynccontextmanager
async def open_page(devtools_port: int, url: str, nursery: trio.Nursery) -> Any:
    async with httpx.AsyncClient() as client:
        target = (await client.put(f"http://127.0.0.1:{devtools_port}/json/new?{url}")).json()
    async with trio_websocket.open_websocket_url(target["webSocketDebuggerUrl"], max_message_size=64 << 20) as ws:
        page = Page(ws)
        nursery.start_soon(page.reader)
        yield page


@contextlib.asynccontextmanager
async def owned_tab(proxy_port: int, token: str, url: str, nursery: trio.Nursery) -> Any:
    """The Chrome owner's tab showing ``url`` (its editor tab), through its proxy with the token."""
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(headers=headers) as client:
        with trio.fail_after(20):
            while True:
                listed = (await client.get(f"http://127.0.0.1:{proxy_port}/json/list")).json()
                tabs = [t for t in listed if t["type"] == "page" and t["url"].startswith(url)]
                if tabs:
                    break
                await trio.sleep(0.1)
    ws_url = tabs[0]["webSocketDebuggerUrl"]
    async with trio_websocket.open_websocket_url(
        ws_url, extra_headers=[(b"Authorization", f"Bearer {token}".encode())], max_message_size=64 << 20
    ) as ws:
        page = Page(ws)
        nursery.start_soon(page.reader)
        yield page
