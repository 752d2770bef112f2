"""pi for real (docs/agent-setup.md, "pi and a trusted project"): pi 1.6.0 on its Node 22, a HOME that trusts the
project, `pix3 agent-setup pi`, then `pi mcp list --json` starts chrome-devtools-mcp as
`.pi/mcp.json` says: `pix3-browser` connected, with chrome-devtools-mcp's tools, set up to reach
Chromium through the CDP proxy of `pix3 editor --headless`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.chrome import chrome_wrapper
from tests.support.editor import start_headless_editor, stop_headless_editor
from tests.support.editor_page import make_game_project
from tests.support.mcp import npx_shim
from tests.support.pix3 import pix3_env, run_pix3
from tests.support.ports import free_port
from tests.support.processes import Cleanup

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e, pytest.mark.slow]


def test_pi_lists_pix3_browser_connected_through_the_proxy(
    tmp_path: Path, pix3_home: Path, chromium: str, node_modules: Path, pi_modules: Path, cleanup: Cleanup
) -> None:
    game = make_game_project(tmp_path / "game")
    wrapper, _ = chrome_wrapper(tmp_path, chromium)
    cdp = free_port()
    env = {"PIX3_CHROME": str(wrapper), "PIX3_HOME": str(pix3_home)}
    record = start_headless_editor(game, env, pix3_home, cleanup, cdp)
    done = run_pix3("agent-setup", "pi", "--cdp-port", str(cdp), cwd=game, env=env)
    assert done.returncode == 0 and "pi: wrote .pi/mcp.json" in done.stdout, done.stdout + done.stderr

    home = tmp_path / "home"
    (home / ".pi" / "agent").mkdir(parents=True)
    (home / ".pi" / "agent" / "trust.json").write_text(json.dumps({os.path.realpath(game): True}))
    shim = npx_shim(tmp_path / "shim", node_modules)
    path = os.pathsep.join((str(shim), str(pi_modules / ".bin"), os.environ["PATH"]))
    pi_env = pix3_env({"HOME": str(home), "PATH": path, "PIX3_HOME": str(pix3_home)})
    log = pix3_home / "chrome-owner.log"
    connected_before = log.read_text().count("client connected")

    listed = subprocess.run(
        [str(pi_modules / ".bin" / "pi"), "mcp", "list", "--json"],
        cwd=game,
        env=pi_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    report = json.loads(listed.stdout)
    assert report["errors"] == []
    [server] = [s for s in report["servers"] if s["name"] == "pix3-browser"]
    assert (server["scope"], server["source"], server["state"]) == (
        "project",
        str(Path(os.path.realpath(game)) / ".pi" / "mcp.json"),
        "connected",
    )
    assert {"list_pages", "list_3p_developer_tools", "execute_3p_developer_tool"} <= set(server["tools"])
    # the launch agent-setup wrote, whose --config file names this proxy and its token
    launch = json.loads((game / ".pi" / "mcp.json").read_text())["mcpServers"]["pix3-browser"]
    assert server["transport"] == " ".join([launch["command"], *launch["args"]])
    config = json.loads((pix3_home / "cdp-mcp-pi.json").read_text())
    assert config["wsEndpoint"] == f"ws://127.0.0.1:{cdp}/pix3?client=pi"
    # Listing starts the server but does not reach the browser: chrome-devtools-mcp connects at
    # its first tool call (docs/agent-setup.md, "pi and a trusted project").
    assert log.read_text().count("client connected") == connected_before

    # an untrusted project's file is ignored, and pi says why
    (home / ".pi" / "agent" / "trust.json").write_text("{}")
    untrusted = subprocess.run(
        [str(pi_modules / ".bin" / "pi"), "mcp", "list", "--json"],
        cwd=game,
        env=pi_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "not trusted" in untrusted.stdout + untrusted.stderr
    assert all(s["name"] != "pix3-browser" for s in json.loads(untrusted.stdout or '{"servers": []}')["servers"])

    stop_headless_editor(game, env, record)
