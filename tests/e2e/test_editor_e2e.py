"""End to end with real Chromium, the real dev server and the pinned chrome-devtools-mcp: from a
project to an agent driving its editor tab (docs/editor.md, "The flow").

A headless first run starts the dev server and the owner (Chrome on a pipe, the token on no
command line and in no output); a second run reuses both, names a stale agent entry and, after
`agent-setup --repair`, reaches the tab through chrome-devtools-mcp; a second project gets its
tab in the same Chrome; `--stop-chrome` leaves nothing behind. A taken port moves to the next.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
from pathlib import Path

import pytest

from tests.support.chrome import chrome_wrapper
from tests.support.editor import dev_pid, get, http_server, pages_of
from tests.support.mcp import McpClient, npx_shim
from tests.support.pix3 import pix3_env, run_pix3
from tests.support.ports import free_port, free_port_run, held_here
from tests.support.processes import Cleanup, wait_gone
from tests.support.projects import make_project

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e, pytest.mark.slow]


def test_editor_headless_to_agent(
    tmp_path: Path, pix3_home: Path, chromium: str, node_modules: Path, cleanup: Cleanup
) -> None:
    game = tmp_path / "game"  # the README's demo project: a 2D starter from `pix3 new`
    created = run_pix3("new", "2d", str(game), cwd=tmp_path, env={"PIX3_HOME": str(pix3_home)})
    assert created.returncode == 0, created.stderr
    wrapper, argv_file = chrome_wrapper(tmp_path, chromium)
    cdp = free_port()
    env = {"PIX3_CHROME": str(wrapper), "PIX3_HOME": str(pix3_home)}
    editor = ("editor", "--headless", "--cdp-port", str(cdp))

    done = run_pix3(*editor, "--port", str(free_port()), cwd=game, env=env, timeout=90)
    record = json.loads((pix3_home / "chrome.json").read_text()) if (pix3_home / "chrome.json").exists() else {}
    if record.get("ownerPid"):
        cleanup.pids.append(record["ownerPid"])
    if (game / ".pix3" / "dev.json").exists():
        cleanup.pids.append(dev_pid(game))
    assert done.returncode == 0, done.stderr + done.stdout
    dev = json.loads((game / ".pix3" / "dev.json").read_text())
    editor_url = dev["editorUrl"]
    assert f"Dev server: {dev['url']} (pid {dev['pid']}, started; log in .pix3/dev.log)" in done.stdout
    assert f"Editor:     {editor_url}\n" in done.stdout
    assert f"Chrome:     launched behind the CDP proxy ws://127.0.0.1:{cdp}/pix3 (token in " in done.stdout
    assert f"Agents:     ws://127.0.0.1:{cdp}/pix3 with the token of " in done.stdout
    token = (pix3_home / "cdp-token").read_text().strip()
    assert token not in done.stdout + done.stderr

    argv = argv_file.read_text().splitlines()
    assert "--remote-debugging-pipe" in argv
    assert not any(a.startswith("--remote-debugging-port") for a in argv)
    assert f"--user-data-dir={pix3_home / 'chrome'}" in argv
    # Chrome started while the dev server did, on the address the server was told (--port).
    assert argv[-1] == editor_url
    assert {k: record[k] for k in ("port", "editorUrl", "proxy")} == {"port": cdp, "editorUrl": editor_url, "proxy": 1}
    assert record["ownerPid"] > 0
    assert get(f"http://127.0.0.1:{cdp}/json/version")[0] == 401
    assert [url for url in pages_of(cdp, token) if url.startswith(editor_url)] == pages_of(cdp, token)

    # An older launch in the project: named, and the token is still never printed.
    p2 = ["-y", "chrome-devtools-mcp@1.10.1", f"--wsEndpoint=ws://127.0.0.1:{cdp}/pix3"]
    p2.append('--wsHeaders={"Authorization":"Bearer ' + token + '"}')
    (game / ".mcp.json").write_text(json.dumps({"mcpServers": {"pix3-browser": {"command": "npx", "args": p2}}}))
    done = run_pix3(*editor, cwd=game, env=env)
    assert done.returncode == 0, done.stderr
    assert f"Dev server: {dev['url']} (pid {dev['pid']}, reused)" in done.stdout
    assert "already behind" in done.stdout and "the editor tab is open there" in done.stdout
    assert ".mcp.json has a pix3-browser entry that does not reach" in done.stdout
    assert token not in done.stdout + done.stderr

    done = run_pix3("agent-setup", "claude", "--repair", cwd=game, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "repaired .mcp.json" in done.stdout and f"ws://127.0.0.1:{cdp}/pix3" in done.stdout
    done = run_pix3(*editor, cwd=game, env=env)
    assert done.returncode == 0, done.stderr
    assert "does not reach" not in done.stdout
    assert ".mcp.json reach it through chrome-devtools-mcp" in done.stdout
    assert len(pages_of(cdp, token)) == 1  # a second run opened nothing

    # chrome-devtools-mcp started exactly as .mcp.json says.
    entry = json.loads((game / ".mcp.json").read_text())["mcpServers"]["pix3-browser"]
    assert token not in json.dumps(entry)
    shim = npx_shim(tmp_path / "shim", node_modules)
    mcp_env = pix3_env({"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", "PIX3_HOME": str(pix3_home)})
    client = McpClient(entry["command"], entry["args"], mcp_env, game)
    try:
        client.initialize()
        listing = client.call_tool("list_pages", {})
        assert editor_url in listing
        match = re.search(r"^(\d+): .*" + re.escape(editor_url), listing, re.MULTILINE)
        assert match is not None, listing
        page_id = int(match.group(1))
        client.call_tool("select_page", {"pageId": page_id})
        status = client.call_tool(
            "evaluate_script",
            {"pageId": page_id, "function": "async () => await window.__PIX3_DEBUG__.call('pix3_status', {})"},
        )
        assert '"tabId"' in status and '"connection":"open"' in status, status
        # Every user of a machine can read every command line: the token is on none of them.
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            with contextlib.suppress(OSError):
                assert token.encode() not in cmdline.read_bytes(), cmdline
    finally:
        client.close()

    # A second project: its own dev server, its tab in the same Chrome.
    other = make_project(tmp_path / "other")
    done = run_pix3(*editor, "--port", str(free_port()), cwd=other, env=env, timeout=90)
    if (other / ".pix3" / "dev.json").exists():
        cleanup.pids.append(dev_pid(other))
    assert done.returncode == 0, done.stderr
    assert "opened the editor in a new tab." in done.stdout  # a headless Chrome has tabs, not windows
    other_url = json.loads((other / ".pix3" / "dev.json").read_text())["editorUrl"]
    pages = pages_of(cdp, token)
    assert any(u.startswith(editor_url) for u in pages) and any(u.startswith(other_url) for u in pages), (
        pages,
        other_url,
        done.stdout,
    )

    # Stop everything: nothing is left behind.
    chrome_pid = record["chromePid"]
    done = run_pix3("editor", "--stop-chrome", cwd=tmp_path, env=env)
    assert done.returncode == 0 and "Stopped Chrome and its CDP proxy" in done.stdout
    assert wait_gone(record["ownerPid"]) and wait_gone(chrome_pid)
    assert not (pix3_home / "chrome.json").exists()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", cdp)) != 0  # the proxy's port is free again
    for root in (game, other):
        pid = dev_pid(root)
        done = run_pix3("editor", "--stop", cwd=root, env=env)
        assert (done.returncode, done.stdout) == (0, f"Stopped the dev server (pid {pid}).\n")
        assert wait_gone(pid)
        assert not (root / ".pix3" / "dev.json").exists()


def test_taken_port_moves_to_the_next(tmp_path: Path, pix3_home: Path, chromium: str, cleanup: Cleanup) -> None:
    game = make_project(tmp_path / "game")
    wrapper, _ = chrome_wrapper(tmp_path, chromium)
    taken = free_port_run(2)
    env = {"PIX3_CHROME": str(wrapper), "PIX3_HOME": str(pix3_home)}
    with http_server({}, taken):  # answers 404 to everything: not Chrome, not a proxy
        done = run_pix3("editor", "--headless", "--cdp-port", str(taken), "--port", str(free_port()), cwd=game, env=env)
        record = json.loads((pix3_home / "chrome.json").read_text()) if (pix3_home / "chrome.json").exists() else {}
        cleanup.pids += [pid for pid in (record.get("ownerPid"), dev_pid(game)) if pid]
        assert done.returncode == 0, done.stderr
        moved = taken + 1
        assert f"Port {taken}: port {taken} is in use by something that is not Chrome ({held_here()})\n" in done.stdout
        assert f"Chrome:     launched behind the CDP proxy ws://127.0.0.1:{moved}/pix3" in done.stdout
        assert (
            f"Port {taken} was taken, using {moved}: run `pix3 agent-setup --repair` so chrome-devtools-mcp points"
            " at it." in done.stdout
        )
        assert record["port"] == moved
    assert run_pix3("editor", "--stop-chrome", cwd=game, env=env).returncode == 0
    assert wait_gone(record["ownerPid"])
    pid = dev_pid(game)
    assert run_pix3("editor", "--stop", cwd=game, env=env).returncode == 0
    assert wait_gone(pid)
