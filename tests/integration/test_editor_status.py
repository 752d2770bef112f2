"""`pix3 editor --status [--json]` as a real process against an owner over the fake Chrome
(docs/editor.md, "Status"): Chrome, the editor tab, each client with what it owns; no owner, a
port that is not ours, and `--json` alone. The editor page's agent count (`GET
/__pix3/api/agents` of the real dev server) comes from the same status."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path
from typing import Any

import httpx
import trio

from pix3net.clients.cdptrio import WsClient
from pix3net.daemon.chromerecord import ChromeRecord, read_record, write_record
from pix3net.owner.control import start_owner
from tests.support.cdp_proxy import rpc
from tests.support.chrome import fake_chrome_wrapper
from tests.support.devserver import dev_server
from tests.support.pix3 import run_pix3
from tests.support.ports import free_port
from tests.support.processes import processes_with

URL = "http://localhost:5173/__pix3/"


async def test_status_lists_chrome_the_editor_tab_and_the_clients(pix3_home: Path, tmp_path: Path) -> None:
    started = await start_owner(
        pix3_home,
        chrome=str(fake_chrome_wrapper(tmp_path)),
        port=free_port(),
        profile=str(pix3_home / "chrome"),
        url=URL,
        headless=True,
    )
    try:
        record = read_record(pix3_home)
        assert record is not None
        token = (pix3_home / "cdp-token").read_text().strip()
        headers = [("Authorization", f"Bearer {token}"), ("User-Agent", "test-agent/2")]
        env = {"PIX3_HOME": str(pix3_home)}
        async with await WsClient.connect(record.port, "/pix3?client=claude-code", headers) as ws:
            target = (await rpc(ws, {"id": 1, "method": "Target.createTarget", "params": {"url": "about:blank"}}))[
                "result"
            ]["targetId"]
            done = await trio.to_thread.run_sync(
                lambda: run_pix3("editor", "--status", "--json", cwd=tmp_path, env=env)
            )
            human = await trio.to_thread.run_sync(lambda: run_pix3("editor", "--status", cwd=tmp_path, env=env))
        assert done.returncode == 0, done.stderr
        status = json.loads(done.stdout)
        assert list(status) == ["chrome", "owner", "editorTab", "clients", "kept"]
        assert status["kept"] == {"targets": [], "contexts": []}
        assert status["chrome"]["pid"] == record.chrome_pid and status["chrome"]["version"] == "FakeChrome/1.0"
        assert status["chrome"]["residentBytes"] > 1024 * 1024 and status["chrome"]["processes"] >= 1
        assert status["owner"] == {"pid": started.pid, "port": record.port, "startedAt": record.started_at}
        assert status["editorTab"]["url"] == URL
        [client] = [c for c in status["clients"] if c["name"] == "claude-code"]
        assert (client["userAgent"], client["targets"], client["contexts"], client["keep"]) == (
            "test-agent/2",
            [target],
            [],
            False,
        )
        assert client["relayed"] == 2 and client["peer"].startswith("127.0.0.1:")
        assert token not in done.stdout + human.stdout
        assert human.returncode == 0, human.stderr
        lines = human.stdout.splitlines()
        assert (
            lines[0].startswith(f"Chrome:     FakeChrome/1.0 (pid {record.chrome_pid}), ")
            and "MiB resident" in lines[0]
        )
        assert lines[2] == f"Editor tab: {status['editorTab']['targetId']} {URL}"
        assert any(" claude-code (test-agent/2): browser, since " in line for line in lines)
        assert any(line.strip() == f"owns 1 targets {target}; 0 contexts" for line in lines)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(started.pid, signal.SIGKILL)
        for pid in processes_with(str(pix3_home / "chrome")):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def test_status_lists_what_clients_that_left_kept_open(pix3_home: Path, tmp_path: Path) -> None:
    """Targets kept past their clients (`?keep=1`) are Chrome's memory nobody answers for: the
    status names each, with the client that opened it (issue 31, item 7)."""
    started = await start_owner(
        pix3_home,
        chrome=str(fake_chrome_wrapper(tmp_path)),
        port=free_port(),
        profile=str(pix3_home / "chrome"),
        url=URL,
        headless=True,
    )
    try:
        record = read_record(pix3_home)
        assert record is not None
        token = (pix3_home / "cdp-token").read_text().strip()
        headers = [("Authorization", f"Bearer {token}")]
        env = {"PIX3_HOME": str(pix3_home)}
        async with await WsClient.connect(record.port, "/pix3?keep=1&client=keeper", headers) as ws:
            params = {"url": "about:blank#kept"}
            reply = await rpc(ws, {"id": 1, "method": "Target.createTarget", "params": params})
            target = reply["result"]["targetId"]
        status: dict[str, Any] = {}
        with trio.fail_after(5):
            while not status.get("kept", {}).get("targets"):
                done = await trio.to_thread.run_sync(
                    lambda: run_pix3("editor", "--status", "--json", cwd=tmp_path, env=env)
                )
                assert done.returncode == 0, done.stderr
                status = json.loads(done.stdout)
        assert status["clients"] == []
        assert status["kept"] == {
            "targets": [{"targetId": target, "client": 1, "url": "about:blank#kept"}],
            "contexts": [],
        }
        human = await trio.to_thread.run_sync(lambda: run_pix3("editor", "--status", cwd=tmp_path, env=env))
        lines = human.stdout.splitlines()
        assert any(line.startswith("Kept:       1 targets, 0 browser contexts left open") for line in lines), lines
        assert f"  {target} about:blank#kept (client #1)" in lines
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(started.pid, signal.SIGKILL)
        for pid in processes_with(str(pix3_home / "chrome")):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_status_without_an_owner_or_with_a_port_that_is_not_ours(pix3_home: Path, tmp_path: Path) -> None:
    env = {"PIX3_HOME": str(pix3_home)}
    done = run_pix3("editor", "--status", cwd=tmp_path, env=env)
    assert done.returncode == 1
    assert (
        done.stderr
        == f"pix3 editor: no Chrome owner recorded in {pix3_home / 'chrome.json'}: start one with `pix3 editor`.\n"
    )
    done = run_pix3("editor", "--status", "--json", cwd=tmp_path, env=env)
    assert done.returncode == 1 and json.loads(done.stdout)["chrome"] is None
    (pix3_home / "cdp-token").write_text("t" * 43 + "\n")
    port = free_port()
    write_record(pix3_home, ChromeRecord(port=port, profile="p", owner_pid=os.getpid(), chrome_pid=os.getpid()))
    done = run_pix3("editor", "--status", cwd=tmp_path, env=env)
    assert (
        done.returncode == 1
        and f"the CDP proxy on 127.0.0.1:{port}" in done.stderr
        and "does not answer" in done.stderr
    )
    done = run_pix3("editor", "--json", cwd=tmp_path, env=env)
    assert (
        done.returncode == 2
        and done.stderr == "pix3 editor: --json goes with --status or --watch (pix3 editor --status --json)\n"
    )


def _agents_of_a_dev_server(tmp_path: Path, env: dict[str, str]) -> object:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "pix3project.yaml").write_text("version: 1.0.0\n")
    with dev_server(project, env=env) as server:
        return httpx.get(f"{server.url}/__pix3/api/agents", headers={"X-Pix3": "1"}).json()


def test_the_page_count_says_why_without_a_proxy(pix3_home: Path, tmp_path: Path) -> None:
    answer = _agents_of_a_dev_server(tmp_path, {"PIX3_HOME": str(pix3_home)})
    assert answer == {
        "agents": None,
        "detail": f"no Chrome owner recorded in {pix3_home / 'chrome.json'}: start one with `pix3 editor`.",
    }
