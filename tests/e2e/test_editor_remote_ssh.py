"""Remote SSH with a real OpenSSH server on loopback and two homes (docs/editor.md, "Remote SSH";
docs/agent-setup.md, "Remote agents"; issues 4 and 12).

"Your machine" runs Chrome behind the proxy, its own ``~/.ssh/config`` and an ``ssh -N devbox``
session carrying the ``RemoteForward`` pix3 printed; the "remote host" is what sshd runs:
sessions with their own ``HOME``, the project, its dev server and the agent. Every command is
run as printed by the other side (plus ``--headless`` and a free ``--cdp-port`` for this
machine), chrome-devtools-mcp is started over SSH from the remote ``.mcp.json`` and reaches the
local editor tab through the forward. Then the faults: a squatter that relays to the moved
forward (keeping or rewriting ``Host``), the forward down, a squatter holding the port before
the session.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chrome import chrome_wrapper
from tests.support.editor import dev_pid
from tests.support.mcp import McpClient
from tests.support.pix3 import REPO
from tests.support.ports import free_port
from tests.support.processes import Cleanup, wait_gone
from tests.support.projects import make_project
from tests.support.relay import tcp_relay
from tests.support.sshd import HOST, NO_FORWARDS, Sshd, listening, shim_bin

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e, pytest.mark.slow]

HUMAN_COMMAND = re.compile(r"^ +(pix3 editor --chrome-only --url (\S+) --remote-port (\d+))$", re.MULTILINE)


@pytest.fixture
def sshd(tmp_path: Path, node_modules: Path) -> Iterator[Sshd]:
    bin_dir = shim_bin(tmp_path / "bin", node_modules)
    human, remote = tmp_path / "human-home", tmp_path / "remote-home"
    human.mkdir()
    remote.mkdir()
    server = Sshd(tmp_path / "ssh", remote, human, f"{bin_dir}{os.pathsep}{os.environ['PATH']}", str(REPO))
    yield server
    server.close()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _lines(text: str, start: str) -> list[str]:
    """The printed lines that start (after indentation) with ``start``."""
    return [line.strip() for line in text.splitlines() if line.strip().startswith(start)]


def test_remote_ssh_with_real_sshd(tmp_path: Path, chromium: str, sshd: Sshd, cleanup: Cleanup) -> None:
    wrapper, _ = chrome_wrapper(tmp_path, chromium)
    game = make_project(tmp_path / "game")
    human_env = sshd.human_env({**os.environ, "PIX3_CHROME": str(wrapper)})
    human_env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{human_env['PATH']}"  # `pix3` here too
    here = sshd.human_home / ".pix3"
    there = sshd.remote_home / ".pix3"
    cdp, forward, moved = free_port(), free_port(), free_port()

    # The remote host: dev server, no Chrome, what to do on your machine.
    done = sshd.remote(f"pix3 editor --port {free_port()} --cdp-port {forward}", human_env, game)
    if (game / ".pix3" / "dev.json").exists():
        cleanup.pids.append(dev_pid(game))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SSH session: Chrome is not launched here" in done.stdout
    assert f"RemoteForward 127.0.0.1:{forward} 127.0.0.1:9333" in done.stdout
    assert "CDP forward: no token here yet (~/.pix3/remote-cdp-token)." in done.stdout
    found = HUMAN_COMMAND.search(done.stdout)
    assert found is not None and found.group(3) == str(forward), done.stdout
    human_command, editor_url = found.group(1), found.group(2)
    assert _mode(there) == 0o700  # created by this run (it stored the forward port)

    # Your machine: the printed command, then its own printed lines into ~/.ssh/config.
    done = sshd.shell(f"{human_command} --ssh {HOST} --cdp-port {cdp} --headless", human_env)
    record = json.loads((here / "chrome.json").read_text()) if (here / "chrome.json").exists() else {}
    if record.get("ownerPid"):
        cleanup.pids.append(record["ownerPid"])
    assert done.returncode == 0, done.stdout + done.stderr
    token = (here / "cdp-token").read_text().strip()
    assert token not in done.stdout + done.stderr
    assert _mode(here) == 0o700
    assert json.loads((here / "cdp-forward-ports.json").read_text())["ports"] == [forward]
    assert "it works while your SSH session with the RemoteForward is up" in done.stdout
    copy_lines = _lines(done.stdout, f"ssh -o ClearAllForwardings=yes {HOST} ")
    forward_lines = [*_lines(done.stdout, "RemoteForward "), *_lines(done.stdout, "ExitOnForwardFailure")]
    assert len(copy_lines) == 1
    assert forward_lines == [f"RemoteForward 127.0.0.1:{forward} 127.0.0.1:{cdp}", "ExitOnForwardFailure yes"]
    sshd.write_config(forward_lines)

    mcp = game / ".mcp.json"
    with sshd.session(human_env, forward):
        # The copy line, with the session (and its forward) up.
        done = sshd.shell(copy_lines[0], human_env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert (there / "remote-cdp-token").read_bytes() == (here / "cdp-token").read_bytes()
        assert _mode(there / "remote-cdp-token") == 0o600 and _mode(there) == 0o700

        done = sshd.remote("pix3 editor", human_env, game)
        assert done.returncode == 0, done.stderr
        assert f"CDP forward: live on 127.0.0.1:{forward}" in done.stdout

        # Another token here: the forward cannot prove it, so it is named as held, never live.
        (there / "remote-cdp-token").write_text("z" * 43 + "\n")
        done = sshd.remote("pix3 editor", human_env, game)
        assert f"  Port {forward}: port {forward} is a Pix3 CDP proxy that does not know this token" in done.stdout
        assert "CDP forward: live" not in done.stdout and f"port {forward} here is held" in done.stdout
        done = sshd.shell(copy_lines[0], human_env)  # the copy line again puts it right
        assert done.returncode == 0, done.stdout + done.stderr

        done = sshd.remote("pix3 agent-setup --remote", human_env, game)
        assert done.returncode == 0, done.stdout + done.stderr
        config = there / "remote-cdp-claude-code.json"
        assert json.loads(config.read_text())["wsEndpoint"] == f"ws://127.0.0.1:{forward}/pix3?client=claude-code"
        assert _mode(config) == 0o600
        assert token not in mcp.read_text() + done.stdout + done.stderr

        # The agent's chrome-devtools-mcp, started on the remote host as .mcp.json says.
        entry = json.loads(mcp.read_text())["mcpServers"]["pix3-browser"]
        launch = shlex.join([entry["command"], *entry["args"]])
        client = McpClient("ssh", [*NO_FORWARDS.split(), HOST, f"cd {game} && {launch}"], human_env, tmp_path)
        try:
            client.initialize()
            assert editor_url in client.call_tool("list_pages", {})
        finally:
            client.close()

    # Something squats the forward port: the user moves the forward to another port, both sides.
    done = sshd.remote(f"pix3 editor --cdp-port {moved}", human_env, game)
    found = HUMAN_COMMAND.search(done.stdout)
    assert found is not None and found.group(3) == str(moved), done.stdout + done.stderr
    done = sshd.shell(f"{found.group(1)} --ssh {HOST} --cdp-port {cdp} --headless", human_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((here / "cdp-forward-ports.json").read_text())["ports"] == [moved]  # replaced, not added
    sshd.write_config([f"RemoteForward 127.0.0.1:{moved} 127.0.0.1:{cdp}", "ExitOnForwardFailure yes"])
    mcp.unlink()
    (there / "remote-cdp-claude-code.json").unlink()
    with sshd.session(human_env, moved):
        # The squatter on the old port relays to the moved forward: no proof for the port it holds,
        # whether it keeps the Host it was asked for or rewrites it to the real forward's.
        for rewrite in (False, True):
            with tcp_relay(forward, moved, rewrite_host=rewrite):
                done = sshd.remote(f"pix3 agent-setup claude --remote --cdp-port {forward}", human_env, game)
                assert done.returncode == 1, (rewrite, done.stdout, done.stderr)
                assert "nothing written" in done.stderr
                assert not mcp.exists() and not (there / "remote-cdp-claude-code.json").exists()
        done = sshd.remote(f"pix3 agent-setup claude --remote --cdp-port {moved}", human_env, game)
        assert done.returncode == 0, done.stdout + done.stderr
        endpoint = json.loads((there / "remote-cdp-claude-code.json").read_text())["wsEndpoint"]
        assert endpoint == f"ws://127.0.0.1:{moved}/pix3?client=claude-code"

    # The forward is down: the remote host says so.
    done = sshd.remote("pix3 editor", human_env, game)
    assert f"CDP forward: nothing answers with the token on 127.0.0.1:{moved} yet" in done.stdout, done.stdout

    # A squatter holds the port before the session: ExitOnForwardFailure ends the session visibly.
    with tcp_relay(moved, free_port()):
        session = subprocess.run(
            ["ssh", "-N", HOST], env=human_env, capture_output=True, text=True, timeout=30, check=False
        )
    assert session.returncode == 255 and "remote port forwarding failed" in session.stderr, session

    done = sshd.shell("pix3 editor --stop-chrome", human_env)
    assert done.returncode == 0 and "Stopped Chrome" in done.stdout
    assert wait_gone(record["ownerPid"])
    pid = dev_pid(game)
    assert sshd.remote("pix3 editor --stop", human_env, game).returncode == 0
    assert wait_gone(pid)
    assert not listening(cdp)
