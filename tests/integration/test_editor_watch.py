"""`pix3 editor --watch --json` and `--kick` as real processes against an owner over the fake Chrome
(docs/editor.md, "Watching the agents"; docs/cdp-proxy.md, "Watching"): two named clients, their
tabs, last methods, errors and recent calls with secrets redacted; a kick by name ends one and
leaves the other working; ambiguous and unknown names; no owner."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx
import trio

from pix3net.clients.cdptrio import Closed, WsClient
from pix3net.daemon.chromerecord import read_record
from pix3net.owner.control import start_owner
from tests.support.cdp_proxy import rpc
from tests.support.chrome import fake_chrome_wrapper
from tests.support.pix3 import pix3_argv, pix3_env, run_pix3
from tests.support.ports import free_port

URL = "http://localhost:5173/__pix3/"
SECRET = "Bearer s3cr3t-of-the-agent"


def _frames(home: Path, cwd: Path, count: int) -> list[dict[str, Any]]:
    """The first ``count`` objects `--watch --json` streams (then it is stopped)."""
    child = subprocess.Popen(
        pix3_argv("editor", "--watch", "--json"),
        cwd=cwd,
        env=pix3_env({"PIX3_HOME": str(home)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        return [json.loads(child.stdout.readline()) for _ in range(count)]
    finally:
        child.send_signal(signal.SIGINT)
        child.communicate(timeout=10)


async def test_watch_names_the_clients_their_tabs_and_calls_and_kick_ends_one(pix3_home: Path, tmp_path: Path) -> None:
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
        auth = [("Authorization", f"Bearer {token}"), ("User-Agent", "Puppeteer 25.16.0")]
        async with (
            await WsClient.connect(record.port, "/pix3?client=alpha", auth) as alpha,
            await WsClient.connect(record.port, "/pix3?client=bravo", auth) as bravo,
            await WsClient.connect(record.port, "/pix3?client=bravo", auth),  # a second of that name
        ):
            tabs = {}
            for n, (ws, url) in enumerate(((alpha, "about:blank#alpha"), (bravo, "about:blank#bravo")), 1):
                reply = await rpc(ws, {"id": n, "method": "Target.createTarget", "params": {"url": url}})
                tabs[url] = reply["result"]["targetId"]
            env = {"PIX3_HOME": str(pix3_home)}
            first = (await trio.to_thread.run_sync(lambda: _frames(pix3_home, tmp_path, 1)))[0]
            # Watching now: the recent calls are kept, their secrets redacted as they are kept.
            headers = {"headers": {"Authorization": SECRET, "X-Trace": "t1"}}
            await rpc(alpha, {"id": 7, "method": "Network.setExtraHTTPHeaders", "params": headers})
            await rpc(alpha, {"id": 8, "method": "Browser.crash"})  # refused: an error
            frames = await trio.to_thread.run_sync(lambda: _frames(pix3_home, tmp_path, 2))

            assert list(first) == ["at", "chrome", "owner", "editorTab", "clients"]
            assert first["chrome"]["pid"] == record.chrome_pid and first["editorTab"]["url"] == URL
            assert first["editorTab"]["answering"] is True
            last = frames[-1]
            named = {c["name"]: c for c in reversed(last["clients"]) if c["name"] in ("alpha", "bravo")}
            assert [c["name"] for c in last["clients"]].count("bravo") == 2
            assert [t["url"] for t in named["alpha"]["tabs"]] == ["about:blank#alpha"]
            assert [t["url"] for t in named["bravo"]["tabs"]] == ["about:blank#bravo"]
            assert named["alpha"]["lastMethod"] == "Browser.crash"
            assert named["bravo"]["lastMethod"] == "Target.createTarget" and named["bravo"]["errors"] == 0
            assert named["alpha"]["calls"] == 3 and named["alpha"]["userAgent"] == "Puppeteer 25.16.0"
            assert isinstance(named["alpha"]["callsPerSecond"], float)
            recent = named["alpha"]["recent"]
            assert [r["method"] for r in recent] == ["Network.setExtraHTTPHeaders", "Browser.crash"]
            assert recent[0]["params"] == {"headers": {"Authorization": "<redacted>", "X-Trace": "<redacted>"}}
            assert recent[1]["error"].startswith("Browser.crash is refused")
            # The fake Chrome has no Network domain: its error counts too, as Chrome's would.
            assert named["alpha"]["errors"] == sum(1 for r in recent if r["error"]) >= 1
            assert all(isinstance(r["durationMs"], int) for r in recent)
            streamed = json.dumps(frames)
            assert SECRET not in streamed and token not in streamed

            # Without the token nothing is shown and nobody is ended (the proxy's one auth rule).
            async with httpx.AsyncClient(trust_env=False) as plain:
                base = f"http://127.0.0.1:{record.port}"
                alpha_number = named["alpha"]["client"]
                assert (await plain.get(f"{base}/json/pix3/watch")).status_code == 401
                assert (await plain.post(f"{base}/json/pix3/kick?client={alpha_number}")).status_code == 401
                wrong = {"Authorization": "Bearer " + "w" * 43}
                assert (
                    await plain.post(f"{base}/json/pix3/kick?client={alpha_number}", headers=wrong)
                ).status_code == 401
                right = {"Authorization": f"Bearer {token}"}
                assert (
                    await plain.get(f"{base}/json/pix3/kick?client={alpha_number}", headers=right)
                ).status_code == 405
                assert (await plain.post(f"{base}/json/pix3/kick?client=999", headers=right)).status_code == 404
            assert (await rpc(alpha, {"id": 9, "method": "Browser.getVersion"}))["result"]

            # Two clients share a name: the kick asks which.
            done = await trio.to_thread.run_sync(lambda: run_pix3("editor", "--kick", "bravo", cwd=tmp_path, env=env))
            assert done.returncode == 1 and '2 clients are named "bravo"' in done.stderr
            done = await trio.to_thread.run_sync(lambda: run_pix3("editor", "--kick", "zulu", cwd=tmp_path, env=env))
            assert done.returncode == 1 and 'no client named "zulu" is connected' in done.stderr

            done = await trio.to_thread.run_sync(lambda: run_pix3("editor", "--kick", "alpha", cwd=tmp_path, env=env))
            assert done.returncode == 0, done.stderr
            assert done.stdout.startswith(f"Ended client #{named['alpha']['client']} (alpha): ")
            with trio.fail_after(5):
                try:
                    while True:
                        await alpha.receive()
                except Closed as closed:
                    assert "pix3 editor --kick" in str(closed)
            # Its tab goes after the grace, as at its own disconnect; bravo still works.
            with trio.fail_after(5):
                while True:
                    listed = await rpc(bravo, {"id": 20, "method": "Target.getTargets"})
                    ids = {t["targetId"] for t in listed["result"]["targetInfos"]}
                    if tabs["about:blank#alpha"] not in ids:
                        break
                    await trio.sleep(0.2)
            assert tabs["about:blank#bravo"] in ids
            status = json.loads(
                (
                    await trio.to_thread.run_sync(
                        lambda: run_pix3("editor", "--status", "--json", cwd=tmp_path, env=env)
                    )
                ).stdout
            )
            assert "alpha" not in [c["name"] for c in status["clients"]]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(started.pid, signal.SIGKILL)


def test_watch_and_kick_without_an_owner(pix3_home: Path, tmp_path: Path) -> None:
    env = {"PIX3_HOME": str(pix3_home)}
    done = run_pix3("editor", "--watch", "--json", cwd=tmp_path, env=env)
    assert done.returncode == 1 and "no Chrome owner recorded" in done.stderr
    assert "no Chrome owner recorded" in json.loads(done.stdout)["error"]
    done = run_pix3("editor", "--kick", "alpha", cwd=tmp_path, env=env)
    assert done.returncode == 1 and "start one with `pix3 editor`" in done.stderr
    done = run_pix3("editor", "--watch", cwd=tmp_path, env=env)  # no terminal here: said so, not drawn
    assert done.returncode == 1 and ("--watch --json" in done.stderr or "no Chrome owner" in done.stderr)
