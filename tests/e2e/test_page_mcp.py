"""End to end, real processes: `pix3 editor --headless` on a fixture game, `pix3 agent-setup
claude`, then chrome-devtools-mcp started exactly as the `.mcp.json` says — the version it pins
(1.11.0) and the one before (1.10.1). The agent lists the `pix3` tools (third-party developer tools)
with their schemas, runs each, and a bad call comes back as the client's own validation error.

What docs/bridge.md tells agents is checked here for both versions: the tools are found only
after `list_3p_developer_tools` (or `navigate_page`) on the page — `list_pages` and `select_page`
are not enough — and both 3p tools need `pageId`. With 1.11.0's WebMCP category on, the page's
`document.modelContext` tools are listed by `list_webmcp_tools` and run through the proxy, while
`list_3p_developer_tools` still names each tool once (docs/bridge.md, "WebMCP")."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from pix3net.commands.agentsetup.mcplaunch import CHROME_DEVTOOLS_MCP_VERSION
from tests.support.chrome import chrome_wrapper
from tests.support.editor import dev_pid, start_headless_editor, stop_headless_editor
from tests.support.editor_page import SCHEMAS, TOOLS, make_game_project
from tests.support.mcp import CHROME_DEVTOOLS_MCP, McpClient, execute, npx_shim
from tests.support.pix3 import pix3_env, run_pix3
from tests.support.ports import free_port
from tests.support.processes import Cleanup, wait_gone

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e, pytest.mark.slow]

TOOL_LINE = re.compile(r'^name="(pix3_\w+)", description="(.*)", inputSchema=(\{.*\})$', re.MULTILINE)


def tool_error(client: McpClient, page: int, arguments: dict[str, Any]) -> str:
    with pytest.raises(RuntimeError) as refused:
        client.call_tool("execute_3p_developer_tool", {"pageId": page, **arguments})
    return str(refused.value)


@pytest.mark.parametrize("version", sorted(CHROME_DEVTOOLS_MCP))
def test_an_agent_drives_the_page_through_chrome_devtools_mcp(
    version: str, tmp_path: Path, pix3_home: Path, chromium: str, node_modules: Path, cleanup: Cleanup
) -> None:
    game = make_game_project(tmp_path / "game", throw_every=30)
    wrapper, _ = chrome_wrapper(tmp_path, chromium)
    cdp = free_port()
    env = {"PIX3_CHROME": str(wrapper), "PIX3_HOME": str(pix3_home)}
    record = start_headless_editor(game, env, pix3_home, cleanup, cdp)
    editor_url = json.loads((game / ".pix3" / "dev.json").read_text())["editorUrl"]
    done = run_pix3("agent-setup", "claude", "--cdp-port", str(cdp), cwd=game, env=env)
    assert done.returncode == 0, done.stdout + done.stderr

    entry = json.loads((game / ".mcp.json").read_text())["mcpServers"]["pix3-browser"]
    assert "--categoryExperimentalThirdParty=true" in entry["args"]
    assert entry["args"][1] == f"chrome-devtools-mcp@{CHROME_DEVTOOLS_MCP_VERSION}"
    entry["args"][1] = f"chrome-devtools-mcp@{version}"
    shim = npx_shim(tmp_path / "shim", node_modules)
    mcp_env = pix3_env({"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", "PIX3_HOME": str(pix3_home)})
    # chrome-devtools-mcp turns its statistics off by itself where CI or its own variable is set:
    # without them, only the flag agent-setup writes can keep its notice away
    for name in ("CI", "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS"):
        mcp_env.pop(name, None)
    client = McpClient(entry["command"], entry["args"], mcp_env, game)
    try:
        client.initialize()
        pages = client.call_tool("list_pages", {})
        match = re.search(r"^(\d+): .*" + re.escape(editor_url), pages, re.MULTILINE)
        assert match is not None, pages
        page = int(match.group(1))
        client.call_tool("select_page", {"pageId": page})
        # listing and selecting the page does not discover its tools; both 3p tools need pageId
        assert "Tool pix3_status not found" in tool_error(client, page, {"toolName": "pix3_status"})
        with pytest.raises(RuntimeError, match="pageId"):
            client.call_tool("list_3p_developer_tools", {})
        with pytest.raises(RuntimeError, match="pageId"):
            client.call_tool("execute_3p_developer_tool", {"toolName": "pix3_status"})

        listing = client.call_tool("list_3p_developer_tools", {"pageId": page})
        assert "pix3: Pix3 editor page: " in listing and "Available tools:" in listing
        found = TOOL_LINE.findall(listing)
        assert [name for name, _, _ in found] == TOOLS
        assert {name: json.loads(schema) for name, _, schema in found} == SCHEMAS

        status = execute(client, page, "pix3_status")
        assert (status["ok"], status["activeScene"], status["writer"], status["connection"]) == (
            True,
            "res://scenes/main.pix3scene",
            "self",
            "open",
        )
        assert execute(client, page, "pix3_sync", {"timeoutMs": 5000})["ok"] is True
        scene = execute(client, page, "pix3_scene", {"maxDepth": 1})
        assert [c["nodeId"] for c in scene["scene"]["children"]] == ["game-root"]
        assert scene["scene"]["children"][0]["childCount"] == 3
        started = execute(client, page, "pix3_play", {"action": "start"})
        assert (started["ok"], started["playOwner"], started["loaded"]) == (True, "agent", True)
        execute(client, page, "pix3_errors", {"clear": True})
        run = execute(
            client,
            page,
            "pix3_game_run",
            {
                "until": [{"kind": "gameState", "path": "frame", "op": ">=", "value": 100}],
                "fail": [{"kind": "newErrors"}],
            },
        )
        assert run["outcome"]["kind"] == "fail" and run["outcome"]["frame"] <= 30, run["verdict"]
        assert run["verdict"].startswith("FAIL fail[0] newErrors") and "boom at frame" in run["verdict"]
        shot = execute(client, page, "pix3_screenshot", {"target": "game"})
        assert (shot["ok"], shot["next"]) == (True, "take_screenshot")
        picture = client.request("tools/call", {"name": "take_screenshot", "arguments": {"pageId": page}})
        assert any(part.get("type") == "image" for part in picture["result"]["content"]), picture
        errors = execute(client, page, "pix3_errors", {"clear": True})
        assert errors["count"] >= 1 and errors["errors"][0]["message"].startswith("Uncaught Error: boom at frame ")
        assert execute(client, page, "pix3_errors")["count"] == 0
        refused = execute(client, page, "pix3_game_run", {"until": [{"kind": "nodeGone", "name": "Enemy"}]})
        assert refused["reason"] == "refused" and "live node graph" in refused["detail"]
        assert execute(client, page, "pix3_play", {"action": "stop"})["ok"] is True

        # bad params: the client's own validation (the ajv 6 it bundles) answers before the page sees the call
        assert "Invalid parameters for tool pix3_play: data should have required property 'action'" in tool_error(
            client, page, {"toolName": "pix3_play", "params": "{}"}
        )
        assert "Invalid parameters for tool pix3_scene: data.maxDepth should be integer" in tool_error(
            client, page, {"toolName": "pix3_scene", "params": '{"maxDepth": 1.5}'}
        )
        assert "Invalid parameters for tool pix3_status: data should NOT have additional properties" in tool_error(
            client, page, {"toolName": "pix3_status", "params": '{"extra": 1}'}
        )
        assert "Failed to parse params as JSON" in tool_error(client, page, {"toolName": "pix3_status", "params": "{"})
        assert "Tool pix3_nope not found" in tool_error(client, page, {"toolName": "pix3_nope"})
        # usage statistics are off in the launch agent-setup writes: no opt-out notice at start
        started = client.stderr.decode(errors="replace").lower()
        assert "collects usage statistics" not in started and "turning off usage statistics" not in started
    finally:
        client.close()

    stop_headless_editor(game, env, record)


def test_webmcp_lists_the_page_tools_once_through_the_proxy(
    tmp_path: Path, pix3_home: Path, chromium: str, node_modules: Path, cleanup: Cleanup
) -> None:
    game = make_game_project(tmp_path / "game")
    wrapper, argv_file = chrome_wrapper(tmp_path, chromium)
    cdp = free_port()
    env = {"PIX3_CHROME": str(wrapper), "PIX3_HOME": str(pix3_home)}
    record = start_headless_editor(game, env, pix3_home, cleanup, cdp)
    assert "--enable-features=WebMCP" in argv_file.read_text().splitlines()
    assert run_pix3("agent-setup", "claude", "--cdp-port", str(cdp), cwd=game, env=env).returncode == 0
    entry = json.loads((game / ".mcp.json").read_text())["mcpServers"]["pix3-browser"]
    shim = npx_shim(tmp_path / "shim", node_modules)
    mcp_env = pix3_env({"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", "PIX3_HOME": str(pix3_home)})
    client = McpClient(entry["command"], [*entry["args"], "--categoryExperimentalWebmcp=true"], mcp_env, game)
    try:
        client.initialize()
        client.call_tool("list_pages", {})
        registered = client.call_tool(
            "evaluate_script", {"pageId": 1, "function": "async () => (await window.__pix3WebMcp).join(' ')"}
        )
        assert " ".join(TOOLS) in registered
        webmcp = client.call_tool("list_webmcp_tools", {"pageId": 1})
        assert sorted(re.findall(r'^name="(pix3_\w+)"', webmcp, re.MULTILINE)) == sorted(TOOLS)
        listing = client.call_tool("list_3p_developer_tools", {"pageId": 1})
        assert [name for name, _, _ in TOOL_LINE.findall(listing)] == TOOLS  # once, as the pix3 group
        assert "WebMCP Tools" not in listing
        ran = client.call_tool("execute_webmcp_tool", {"pageId": 1, "toolName": "pix3_status"})
        answer = json.loads(ran[ran.index("{") : ran.rindex("}") + 1])
        assert answer["status"] == "Completed" and answer["output"]["activeScene"] == "res://scenes/main.pix3scene"
        # the header counts the agents connected: this chrome-devtools-mcp at least (polled every 3 s)
        deadline = time.monotonic() + 10
        shown = ""
        while time.monotonic() < deadline:
            text = client.call_tool(
                "evaluate_script", {"pageId": 1, "function": "() => document.getElementById('pix3-agents').textContent"}
            )
            found = re.search(r'"(\d+)"', text)
            shown = found.group(1) if found else text
            if found and int(shown) >= 1:
                break
            time.sleep(0.5)
        assert shown.isdigit() and int(shown) >= 1, shown
    finally:
        client.close()
    assert run_pix3("editor", "--stop-chrome", cwd=game, env=env).returncode == 0
    assert wait_gone(record["ownerPid"])
    pid = dev_pid(game)
    assert run_pix3("editor", "--stop", cwd=game, env=env).returncode == 0
    assert wait_gone(pid)
