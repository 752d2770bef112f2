"""Remote SSH on one machine (docs/editor.md, "Remote SSH"; docs/agent-setup.md, "Remote agents").

Two homes: the human's (Chrome behind the proxy) and the remote host's (project, dev server,
agent). The SSH RemoteForward is a loopback TCP relay on another port. The remote side writes its
agent config only when the forward proves, for the port it dialled, that it knows the token;
relays that reach the same proxy through another port are refused, Host rewritten or not.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chrome import chrome_wrapper
from tests.support.editor import dev_pid
from tests.support.mcp import McpClient, npx_shim
from tests.support.pix3 import pix3_env, run_pix3
from tests.support.ports import free_port
from tests.support.processes import Cleanup, wait_gone
from tests.support.projects import make_project
from tests.support.relay import tcp_relay

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e, pytest.mark.slow]

SSH = "10.0.0.1 50000 10.0.0.2 22"


@pytest.fixture
def cleanup() -> Iterator[Cleanup]:
    procs = Cleanup()
    yield procs
    procs.kill_all()


def test_remote_ssh_forward_proof(tmp_path: Path, chromium: str, node_modules: Path, cleanup: Cleanup) -> None:
    human, remote = tmp_path / "human-home", tmp_path / "remote-home"
    human.mkdir(mode=0o700)
    remote.mkdir(mode=0o700)
    wrapper, _ = chrome_wrapper(tmp_path, chromium)
    game = make_project(tmp_path / "game")
    remote_env = {"PIX3_HOME": str(remote), "SSH_CONNECTION": SSH}
    human_env = {"PIX3_HOME": str(human), "PIX3_CHROME": str(wrapper)}
    cdp, forward, squat = free_port(), free_port(), free_port()

    # Remote host: dev server, no Chrome, the instructions, no token yet.
    done = run_pix3("editor", "--port", str(free_port()), "--cdp-port", str(forward), cwd=game, env=remote_env)
    if (game / ".pix3" / "dev.json").exists():
        cleanup.pids.append(dev_pid(game))
    assert done.returncode == 0, done.stderr
    assert "SSH session: Chrome is not launched here" in done.stdout
    assert f"RemoteForward 127.0.0.1:{forward} 127.0.0.1:9333" in done.stdout
    assert "CDP forward: no token here yet (~/.pix3/remote-cdp-token)." in done.stdout
    url = re.search(r"pix3 editor --chrome-only --url (\S+) --remote-port (\d+)", done.stdout)
    assert url is not None and url.group(2) == str(forward)
    editor_url = url.group(1)
    assert not (remote / "chrome.json").exists() and not (remote / "cdp-token").exists()

    # Human machine: Chrome behind the proxy, the forwarded port recorded, the copy line.
    done = run_pix3(
        "editor", "--url", editor_url, "--ssh", "devbox", "--cdp-port", str(cdp),
        "--remote-port", str(forward), "--headless", cwd=tmp_path, env=human_env, timeout=90,
    )  # fmt: skip
    record = json.loads((human / "chrome.json").read_text()) if (human / "chrome.json").exists() else {}
    if record.get("ownerPid"):
        cleanup.pids.append(record["ownerPid"])
    assert done.returncode == 0, done.stderr + done.stdout
    token = (human / "cdp-token").read_text().strip()
    assert f"Editor:     {editor_url} (a dev server reached through a port forward)" in done.stdout
    copy = f"ssh devbox 'umask 077 && mkdir -p ~/.pix3 && cat > ~/.pix3/remote-cdp-token' < {human / 'cdp-token'}"
    assert copy in done.stdout
    assert f"RemoteForward 127.0.0.1:{forward} 127.0.0.1:{cdp}" in done.stdout
    assert token not in done.stdout + done.stderr
    assert json.loads((human / "cdp-forward-ports.json").read_text()) == {"ports": [forward]}

    # The copy line, played locally: the token file's bytes into a 0600 file on the remote side.
    shutil.copyfile(human / "cdp-token", remote / "remote-cdp-token")
    os.chmod(remote / "remote-cdp-token", 0o600)

    mcp = game / ".mcp.json"
    with tcp_relay(forward, cdp):
        done = run_pix3("editor", cwd=game, env=remote_env)
        assert done.returncode == 0, done.stderr
        assert f"CDP forward: live on 127.0.0.1:{forward}" in done.stdout

        # Another token here: the forward cannot prove it, so it is named as held, never live.
        (remote / "remote-cdp-token").write_text("z" * 43 + "\n")
        done = run_pix3("editor", cwd=game, env=remote_env)
        assert f"  Port {forward}: port {forward} is a Pix3 CDP proxy that does not know this token" in done.stdout
        assert "CDP forward: live" not in done.stdout and f"port {forward} here is held" in done.stdout
        shutil.copyfile(human / "cdp-token", remote / "remote-cdp-token")

        # Squatters on another port, relaying to the real forward: no proof for the port dialled.
        for rewrite in (False, True):
            with tcp_relay(squat, forward, rewrite_host=rewrite):
                done = run_pix3("agent-setup", "claude", "--remote", "--cdp-port", str(squat), cwd=game, env=remote_env)
                assert done.returncode == 1, (rewrite, done.stdout, done.stderr)
                assert "nothing written" in done.stderr
                assert not mcp.exists() and not (remote / "remote-cdp.json").exists()

        done = run_pix3("agent-setup", "claude", "--remote", cwd=game, env=remote_env)
        assert done.returncode == 0, done.stdout + done.stderr
        config = remote / "remote-cdp.json"
        assert json.loads(config.read_text())["wsEndpoint"] == f"ws://127.0.0.1:{forward}/pix3"
        assert stat.S_IMODE(config.stat().st_mode) == 0o600
        entry = json.loads(mcp.read_text())["mcpServers"]["pix3-browser"]
        assert entry["args"][-1] == f"--config={config}"
        assert token not in mcp.read_text() and token not in done.stdout + done.stderr

        shim = npx_shim(tmp_path / "shim", node_modules)
        env = pix3_env({"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", **remote_env})
        client = McpClient(entry["command"], entry["args"], env, game)
        try:
            client.initialize()
            assert editor_url in client.call_tool("list_pages", {})
        finally:
            client.close()

    # The forward is down: the remote side says so.
    done = run_pix3("editor", cwd=game, env=remote_env)
    assert "CDP forward: nothing answers with the token" in done.stdout

    done = run_pix3("editor", "--stop-chrome", cwd=tmp_path, env=human_env)
    assert done.returncode == 0 and "Stopped Chrome" in done.stdout
    assert wait_gone(record["ownerPid"])
    pid = dev_pid(game)
    assert run_pix3("editor", "--stop", cwd=game, env=remote_env).returncode == 0
    assert wait_gone(pid)
