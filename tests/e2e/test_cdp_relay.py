"""A relay on the port a client dials never gets the token (docs/reliability.md, "A relay on the
dialled port"; docs/cdp-proxy.md, "Proof").

A process without the token holds a loopback port and passes every byte on to the real proxy (a
real owner over real Chromium), keeping a copy. The reference's local proof names no port, so it
came back through the relay intact and `pix3 editor` took the relay for its proxy and sent the
token through it. The port-scope proof is bound to the port the proxy's socket listens on: every
client — `pix3 editor`, `agent-setup`, `smoke` and `--status` — asks for it, finds the relay's
answer is for another port, says the port is held by another process (with its pid) and what to
do, and the relay sees no byte of the token.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pix3net.daemon.chromerecord import read_record, write_record
from tests.support.chrome import QUIET_CHROME_FLAGS, real_chrome_wrapper
from tests.support.chrome_owner import run_owner
from tests.support.devserver import dev_server
from tests.support.pix3 import run_pix3
from tests.support.relay import Relayed, tcp_relay
from tests.support.smoke import GAMES, make_game, smoke

pytestmark = [pytest.mark.chromium, pytest.mark.e2e]


@dataclass
class Live:
    root: Path
    home: Path
    port: int  # where the owner's proxy listens (it recorded it in chrome.json)
    token: str
    env: dict[str, str]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[Live]:
    base = tmp_path_factory.mktemp("relay")
    root = make_game(base / "game", GAMES)
    home = base / "home"
    home.mkdir(mode=0o700)
    wrapper = real_chrome_wrapper(base, chromium, *QUIET_CHROME_FLAGS)
    env = {"PIX3_HOME": str(home), "PIX3_CHROME": str(wrapper)}
    with dev_server(root, env=env) as server:
        editor = server.record()["url"] + "__pix3/"
        with run_owner(home, wrapper, url=editor) as owner:
            owner.wait_listening()
            yield Live(root, home, owner.port, owner.token, env)


@pytest.fixture
def relay(live: Live) -> Iterator[Relayed]:
    """The squatter: a free port of its own, relaying to the owner's proxy."""
    with tcp_relay(0, live.port) as relayed:
        yield relayed
    assert relayed.connections > 0, "the command never dialled the relay: the test proved nothing"
    assert not relayed.saw(live.token), "the token went through the relay"
    assert re.search(rb"(?i)\r\nauthorization:", bytes(relayed.seen)) is None, "a request with a token header"


def held(relay: Relayed) -> str:
    """How a command names the relay: held by another process, this test's (/proc shows it)."""
    return f"port {relay.port} is held by another process (pid {os.getpid()}, "


@pytest.fixture
def recorded_at_relay(live: Live, relay: Relayed) -> Iterator[None]:
    """chrome.json naming the relay's port (a record from an owner that was on that port, left
    behind): what `--status` and `smoke` dial."""
    record = read_record(live.home)
    assert record is not None
    write_record(live.home, record._replace(port=relay.port))
    try:
        yield
    finally:
        write_record(live.home, record)


def test_editor_uses_the_owner_s_port_and_names_the_relay(live: Live, relay: Relayed) -> None:
    done = run_pix3("editor", "--headless", "--cdp-port", str(relay.port), cwd=live.root, env=live.env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"already behind ws://127.0.0.1:{relay.port}/" not in done.stdout
    assert f"already behind ws://127.0.0.1:{live.port}/pix3" in done.stdout
    assert f"Port {relay.port}: {held(relay)}" in done.stdout
    assert f"passes requests on to our CDP proxy on port {live.port}; the token was not sent to it" in done.stdout
    assert f"Port {relay.port} was taken, using {live.port}" in done.stdout


def test_agent_setup_writes_no_endpoint_at_the_relay(live: Live, relay: Relayed) -> None:
    done = run_pix3("agent-setup", "claude", "--cdp-port", str(relay.port), cwd=live.root, env=live.env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"pix3 agent-setup: port {relay.port} is not our CDP proxy ({held(relay)}" in done.stderr
    assert "nothing written" in done.stderr and f"Stop what holds port {relay.port}" in done.stderr
    assert not (live.root / ".mcp.json").exists() and not (live.home / "cdp-mcp-claude-code.json").exists()
    # Without --cdp-port: the port the owner recorded, which proves itself there.
    done = run_pix3("agent-setup", "claude", cwd=live.root, env=live.env)
    assert done.returncode == 0, done.stdout + done.stderr
    config = json.loads((live.home / "cdp-mcp-claude-code.json").read_text())
    assert config["wsEndpoint"] == f"ws://127.0.0.1:{live.port}/pix3?client=claude-code"
    (live.root / ".mcp.json").unlink()
    (live.home / "cdp-mcp-claude-code.json").unlink()


def test_status_says_the_recorded_port_is_not_ours(live: Live, relay: Relayed, recorded_at_relay: None) -> None:
    done = run_pix3("editor", "--status", cwd=live.root, env=live.env)
    assert done.returncode != 0 and done.stdout == ""
    assert f"port {relay.port} (from chrome.json) is not our CDP proxy" in done.stderr
    assert f"(HTTP 401; pid {os.getpid()}, " in done.stderr  # who holds it
    assert f"Stop what holds port {relay.port} if it is not yours, then run `pix3 editor`" in done.stderr


def test_smoke_runs_a_private_chrome_and_says_why(live: Live, relay: Relayed, recorded_at_relay: None) -> None:
    code, report, err = smoke(live.root, "scenes/clean.pix3scene", "--frames", "5", env=live.env)
    assert report is not None, err
    assert code == 0, report
    note = report["notes"][0]
    assert "a private headless Chrome started for this run" in note
    assert "the Chrome owner recorded in chrome.json was not used" in note
    assert f"port {relay.port} is a Pix3 CDP proxy that does not know this token (HTTP 401; pid {os.getpid()}, " in note
    assert f"stop what holds port {relay.port}" in note
