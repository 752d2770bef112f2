"""A minimal MCP stdio client for the editor end-to-end tests, and the `npx` shim that runs the
pinned chrome-devtools-mcp from tests/node/node_modules (the network is closed here)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# The pinned chrome-devtools-mcp versions the tests run, and the folder each is installed in
# (tests/node/package.json: 1.11.0 under an npm alias beside 1.10.1).
CHROME_DEVTOOLS_MCP = {"1.10.1": "chrome-devtools-mcp", "1.11.0": "chrome-devtools-mcp-1.11.0"}


def npx_shim(folder: Path, node_modules: Path) -> Path:
    """A folder holding an ``npx`` that execs the local package named ``<pkg>@<version>``."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "npx"
    cases = "".join(
        f'  chrome-devtools-mcp@{version}) exec node "{node_modules / name / "build" / "src" / "bin" / "chrome-devtools-mcp.js"}" "$@" ;;\n'
        for version, name in CHROME_DEVTOOLS_MCP.items()
    )
    script.write_text(
        "#!/bin/sh\n"
        '[ "$1" = "-y" ] && shift\n'
        'pkg="$1"; shift\n'
        'case "$pkg" in\n'
        f"{cases}"
        "esac\n"
        'echo "npx shim: no local package for $pkg" >&2\n'
        "exit 127\n"
    )
    script.chmod(0o755)
    return folder


class McpClient:
    """JSON-RPC over the server's stdin/stdout, one message per line."""

    def __init__(self, command: str, args: list[str], env: Mapping[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            [command, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._next_id = 0
        self.stderr = b""
        self._threads = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._drain, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr += line

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
        self._next_id += 1
        ident = self._next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"{method}: no answer; stderr: {self.stderr.decode(errors='replace')}") from None
            if not line:
                raise EOFError(f"{method}: the server exited; stderr: {self.stderr.decode(errors='replace')}")
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == ident:
                return message

    def initialize(self) -> None:
        self.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pix3-tests", "version": "0"}},
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """The tool's text content (joined), raising when the call failed."""
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        if "error" in answer:
            raise RuntimeError(f"{name}: {answer['error']}")
        result = answer["result"]
        text = "\n".join(part.get("text", "") for part in result.get("content", []))
        if result.get("isError"):
            raise RuntimeError(f"{name}: {text}")
        return text

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for thread in self._threads:
            thread.join(5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def list_pages(port: int, token: str, node_modules: Path, folder: Path, version: str = "1.11.0") -> str:
    """chrome-devtools-mcp started now on the proxy at ``port`` (a ``--config`` file in ``folder``,
    as `pix3 agent-setup` writes it), asked ``list_pages`` once: its answer's text."""
    config = folder / "cdp-mcp.json"
    headers = json.dumps({"Authorization": f"Bearer {token}"}, separators=(",", ":"))
    config.write_text(json.dumps({"wsEndpoint": f"ws://127.0.0.1:{port}/pix3", "wsHeaders": headers}))
    binary = node_modules / CHROME_DEVTOOLS_MCP[version] / "build" / "src" / "bin" / "chrome-devtools-mcp.js"
    client = McpClient("node", [str(binary), "--no-usage-statistics", f"--config={config}"], os.environ, folder)
    try:
        client.initialize()
        return client.call_tool("list_pages", {})
    finally:
        client.close()


def new_page_session(node_modules: Path, config: Path, isolated: bool, index: int, version: str = "1.11.0") -> None:
    """One agent's short life: chrome-devtools-mcp started on ``config``, one ``new_page`` (in an
    ``isolatedContext`` when asked), then its stdin closes and it exits (docs/cdp-proxy.md,
    "Ownership and protection": what it opened is the proxy's to close)."""
    binary = node_modules / CHROME_DEVTOOLS_MCP[version] / "build" / "src" / "bin" / "chrome-devtools-mcp.js"
    arguments: dict[str, Any] = {"url": f"data:text/html,<title>session {index}</title>"}
    if isolated:
        arguments["isolatedContext"] = f"iso{index}"
    client = McpClient("node", [str(binary), "--no-usage-statistics", f"--config={config}"], os.environ, config.parent)
    try:
        client.initialize()
        client.call_tool("new_page", arguments)
    finally:
        client.close()


def execute(client: McpClient, page: int, tool: str, params: dict[str, Any] | None = None) -> Any:
    """One of the editor page's tools through chrome-devtools-mcp's `execute_3p_developer_tool`,
    its JSON answer read from the text around it."""
    arguments: dict[str, Any] = {"pageId": page, "toolName": tool}
    if params is not None:
        arguments["params"] = json.dumps(params)
    text = client.call_tool("execute_3p_developer_tool", arguments)
    return json.loads(text[text.index("{") : text.rindex("}") + 1])
