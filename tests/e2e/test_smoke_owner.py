"""`pix3 smoke` on a running headless Chrome owner (real Chromium behind the token proxy), with the
project's editor tab open there and an agent connected next to it.

Smoke must reuse the owner in a fresh browser context, leave the editor tab and the agent alone,
and leave no browser context behind whatever happens: a clean run, a timeout, a crashed renderer,
Ctrl-C, SIGKILL.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from pix3net.clients.cdptrio import WsClient
from tests.support.chrome import QUIET_CHROME_FLAGS, real_chrome_wrapper
from tests.support.chrome_owner import run_owner
from tests.support.devserver import dev_server
from tests.support.pix3 import pix3_argv, pix3_env, run_pix3
from tests.support.smoke import GAMES, make_game, smoke

pytestmark = [pytest.mark.chromium, pytest.mark.e2e]


@dataclass
class Live:
    root: Path
    home: Path
    port: int
    token: str
    editor_url: str

    @property
    def env(self) -> dict[str, str]:
        return {"PIX3_HOME": str(self.home)}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[Live]:
    base = tmp_path_factory.mktemp("smoke-owner")
    root = make_game(base / "game", GAMES)
    home = base / "home"
    home.mkdir()
    with dev_server(root, env={"PIX3_HOME": str(home)}) as server:
        editor = server.record()["url"] + "__pix3/"
        wrapper = real_chrome_wrapper(base, chromium, *QUIET_CHROME_FLAGS)
        with run_owner(home, wrapper, url=editor) as owner:
            owner.wait_listening()
            yield Live(root, home, owner.port, owner.token, editor)


class Agent:
    """A second proxy client, as chrome-devtools-mcp would be: its own sessions, every message kept."""

    def __init__(self, ws: WsClient) -> None:
        self.ws = ws
        self.ids = iter(range(1, 1_000_000))
        self.received: list[dict[str, Any]] = []

    async def ask(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        """The whole reply (an ``error`` one too)."""
        ident = next(self.ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        await self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(await self.ws.receive())
            self.received.append(reply)
            if reply.get("id") == ident:
                return reply

    async def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        reply = await self.ask(method, params, session)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply["result"]

    async def wait_event(self, predicate: Any) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await self.ws.receive())
            self.received.append(message)
            if predicate(message):
                return message


async def connect(live: Live) -> Agent:
    ws = await WsClient.connect(live.port, "/pix3", [("Authorization", f"Bearer {live.token}")])
    return Agent(ws)


async def browser_contexts(live: Live) -> list[str]:
    agent = await connect(live)
    try:
        return list((await agent.call("Target.getBrowserContexts"))["browserContextIds"])
    finally:
        await agent.ws.aclose()


def start_smoke(live: Live, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        pix3_argv("smoke", *args, "--json"),
        cwd=live.root,
        env=pix3_env(live.env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group: a Ctrl-C can be sent to it as a terminal would
    )


async def wait_for_context(live: Live, seconds: float = 20) -> None:
    with trio.fail_after(seconds):
        while not await browser_contexts(live):  # noqa: ASYNC110 - polling Chrome, no event to wait on
            await trio.sleep(0.05)


def finish(process: subprocess.Popen[str], timeout: float = 60) -> tuple[int, Any]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, (json.loads(out) if out.strip() else err)


async def test_clean_run_reuses_the_owner_and_leaves_the_agent_and_editor_alone(live: Live) -> None:
    agent = await connect(live)
    # The owner's tab opens on about:blank, then navigates to the editor: under load the first
    # module's test can ask before it is listed at its URL (seen once in a full run).
    with trio.fail_after(30):
        while True:
            targets = (await agent.call("Target.getTargets"))["targetInfos"]
            editors = [t for t in targets if t["type"] == "page" and t["url"].startswith(live.editor_url)]
            if editors:
                break
            await trio.sleep(0.05)
    [editor] = editors
    session = (await agent.call("Target.attachToTarget", {"targetId": editor["targetId"], "flatten": True}))[
        "sessionId"
    ]
    await agent.call("Runtime.enable", {}, session)
    # The owner opened the tab a moment ago: let the editor page (not the tab's first about:blank)
    # finish loading first.
    probe = "location.href + ' ' + document.readyState"
    with trio.fail_after(30):
        while True:
            ready = await agent.ask("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session)
            if ready.get("result", {}).get("result", {}).get("value") == f"{live.editor_url} complete":
                break  # (while the tab navigates, an evaluate may find no context: asked again)
            await trio.sleep(0.05)
    await agent.call("Runtime.evaluate", {"expression": "window.__agentMarker = 42"}, session)
    smoke_run = start_smoke(live, "scenes/promises.pix3scene", "--frames", "60")
    answered = 0
    while smoke_run.poll() is None:
        result = await agent.call("Runtime.evaluate", {"expression": "1 + 1", "returnByValue": True}, session)
        assert result["result"]["value"] == 2
        answered += 1
        await trio.sleep(0.05)
    code, report = finish(smoke_run)
    assert code == 1, report
    assert [e["code"] for e in report["errors"]] == ["E_SMOKE_CONSOLE_ERROR", "E_SMOKE_UNHANDLED"]
    assert f"the running Chrome owner on port {live.port}, in a fresh browser context" in report["notes"][0]
    assert answered >= 5
    # The agent saw only its own sessions, and nothing of the game's page.
    assert {m.get("sessionId") for m in agent.received} <= {None, session}
    text = json.dumps(agent.received)
    assert "state is bad" not in text and "nobody waits" not in text and "__pix3Smoke" not in text
    # The editor tab is the same page, not reloaded.
    marker = await agent.call(
        "Runtime.evaluate", {"expression": "window.__agentMarker", "returnByValue": True}, session
    )
    assert marker["result"]["value"] == 42
    after = (await agent.call("Target.getTargets"))["targetInfos"]
    assert [t["targetId"] for t in after if t["type"] == "page"] == [editor["targetId"]]
    await agent.ws.aclose()
    assert await browser_contexts(live) == []


def one(live: Live, name: str, *args: str) -> tuple[int, Any]:
    code, report, err = smoke(live.root, f"scenes/{name}.pix3scene", *args, env=live.env)
    assert report is not None, err
    return code, report


def test_throw_on_frame_30_and_its_human_report(live: Live) -> None:
    code, report = one(live, "throws", "--frames", "35")
    assert code == 1 and [(e["code"], e["frame"]) for e in report["errors"]] == [("E_SMOKE_SCRIPT", 30)]
    assert report["errors"][0]["stack"] == "at loop (games/throws.js:5:25)"
    done = run_pix3("smoke", "scenes/throws.pix3scene", "--frames", "31", cwd=live.root, env=live.env)
    assert done.returncode == 1
    assert done.stdout.startswith(
        "pix3 smoke scenes/throws.pix3scene — 30/31 frames drawn, 1/1 entry script ran: 1 error, 0 warnings\n"
    )
    assert (
        "\n  frame 30  E_SMOKE_SCRIPT: Error: thrown on frame 30\n      at loop (games/throws.js:5:25)\n" in done.stdout
    )
    assert done.stderr == ""  # no progress line: stderr is not a terminal


def test_console_error_and_unhandled_rejection(live: Live) -> None:
    code, report = one(live, "promises", "--frames", "5")
    assert code == 1
    assert [[e["code"], e["message"]] for e in report["errors"]] == [
        ["E_SMOKE_CONSOLE_ERROR", "state is bad"],
        ["E_SMOKE_UNHANDLED", "Error: nobody waits for me"],
    ]
    # Chrome reports a rejection nobody handled from a task after the one that rejected it: the
    # page has loaded by then, and the first animation frame may have begun.
    assert report["errors"][1]["phase"] == "promise" and report["errors"][1]["frame"] in (0, 1)
    assert report["firstFrameOk"] is False


def test_missing_resource_is_a_warning(live: Live) -> None:
    code, report = one(live, "missing", "--frames", "10")
    assert code == 0, report
    assert report["ok"] is True and report["errors"] == []
    assert [w["code"] for w in report["warnings"]] == ["W_SMOKE_CONSOLE_WARN", "W_SMOKE_MISSING_RESOURCE"]
    assert "res://sprites/missing-coin.png" in report["warnings"][1]["message"]
    assert report["warnings"][1]["frame"] == 0


def test_snapshots_that_throw_are_long_or_absent(live: Live) -> None:
    code, report = one(live, "snapshot_throws", "--frames", "2")
    assert code == 0 and report["game"] == {"name": "grumpy", "snapshot": {"error": "no snapshot today"}}
    done = run_pix3("smoke", "scenes/big_snapshot.pix3scene", "--frames", "2", cwd=live.root, env=live.env)
    assert re.search(
        r'  game "big" snapshot: \n    \{\n      "blob": "x+\n    … \(\d+ more characters; pix3 smoke --json has it whole\)',
        done.stdout,
    )
    code, report = one(live, "forever", "--frames", "2")
    assert report["game"] is None


async def test_timeout_stops_the_script_and_chrome_lives_on(live: Live) -> None:
    code, report, _ = await trio.to_thread.run_sync(
        lambda: smoke(live.root, "scenes/loop.pix3scene", "--frames", "10", "--timeout", "2", env=live.env)
    )
    assert code == 2 and report["code"] == "E_SMOKE_TIMEOUT"
    assert await browser_contexts(live) == []
    agent = await connect(live)
    assert "product" in await agent.call("Browser.getVersion")
    await agent.ws.aclose()
    code, report, _ = await trio.to_thread.run_sync(
        lambda: smoke(live.root, "scenes/clean.pix3scene", "--frames", "3", env=live.env)
    )
    assert code == 0, report


async def test_a_crashed_renderer(live: Live) -> None:
    agent = await connect(live)
    await agent.call("Target.setDiscoverTargets", {"discover": True})
    smoke_run = start_smoke(live, "scenes/forever.pix3scene", "--frames", "100000", "--timeout", "60")
    info = await agent.wait_event(
        lambda m: (
            m.get("method") in ("Target.targetCreated", "Target.targetInfoChanged")
            and "scene=res%3A%2F%2Fscenes%2Fforever" in m["params"]["targetInfo"]["url"]
        )
    )
    target = info["params"]["targetInfo"]["targetId"]
    session = (await agent.call("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    await trio.sleep(0.5)
    ident = next(agent.ids)
    await agent.ws.send(json.dumps({"id": ident, "method": "Page.crash", "sessionId": session}))
    code, report = await trio.to_thread.run_sync(finish, smoke_run)
    assert code == 2, report
    assert report["code"] == "E_SMOKE_CRASH" and "renderer" in report["reason"]
    await agent.ws.aclose()
    assert await browser_contexts(live) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
async def test_no_context_left_after_ctrl_c_or_kill(live: Live, sig: signal.Signals) -> None:
    smoke_run = start_smoke(live, "scenes/forever.pix3scene", "--frames", "100000", "--timeout", "60")
    try:
        await wait_for_context(live)
        await trio.sleep(0.3)
        os.killpg(smoke_run.pid, sig)
        code = await trio.to_thread.run_sync(lambda: smoke_run.wait(timeout=20))
    finally:
        if smoke_run.poll() is None:
            smoke_run.kill()
        smoke_run.communicate()
    assert code == (130 if sig == signal.SIGINT else -signal.SIGKILL)
    deadline = time.monotonic() + 5  # after SIGKILL the proxy notices the socket close, then Chrome disposes
    while await browser_contexts(live):
        assert time.monotonic() < deadline, "a browser context of the run is still there"
        await trio.sleep(0.05)
