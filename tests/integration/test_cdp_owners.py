"""Ownership through the real transport over the in-memory fake Chrome (docs/cdp-proxy.md,
"Ownership and protection", "Status"): what a client opened ends with it after the grace, a keeper
keeps it, Browser.close ends one session, the editor tab comes back, and the status lists it all."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest
import trio

from pix3net.clients.cdptrio import Closed, WsClient
from pix3net.commands.editor import proxycalls
from tests.support.cdp_proxy import EDITOR_URL, TOKEN, connect, poll_until, rpc, running_proxy

BEARER = {"Authorization": f"Bearer {TOKEN}"}


async def create(ws: WsClient, message_id: int, **params: object) -> str:
    reply = await rpc(
        ws, {"id": message_id, "method": "Target.createTarget", "params": {"url": "about:blank", **params}}
    )
    return str(reply["result"]["targetId"])


async def test_what_a_client_opened_is_closed_within_the_grace_after_it_leaves(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy, connect(proxy.ws()) as other:
        editor = proxy.chrome.pages()[0].id
        async with connect(proxy.ws()) as ws:
            context = (await rpc(ws, {"id": 1, "method": "Target.createBrowserContext"}))["result"]["browserContextId"]
            page = await create(ws, 2)
            in_context = await create(ws, 3, browserContextId=context)
            popup, written = proxy.chrome.open_popup(page)  # window.open from its page
            for message in written:
                proxy.channel.inject(message)
            mine = await create(other, 4)
            await poll_until(lambda: len(proxy.chrome.pages()) == 5)
        left = time.monotonic()
        await poll_until(lambda: {p.id for p in proxy.chrome.pages()} == {editor, mine}, seconds=3)
        assert time.monotonic() - left < 2.0
        assert context not in proxy.chrome.contexts
        assert {page, in_context, popup.id}.isdisjoint(proxy.chrome.targets)
        assert "client 2 left: closed 3 targets and 1 browser contexts it opened" in proxy.logs
        assert (await rpc(other, {"id": 5, "method": "Browser.getVersion"}))["result"]["product"] == "FakeChrome/1.0"


async def test_a_client_that_connects_with_keep_leaves_its_tabs_open(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy:
        async with connect(proxy.ws("/pix3?keep=1")) as ws:
            page = await create(ws, 1)
        await trio.sleep(1.5)
        assert page in proxy.chrome.targets
        assert "client 1 left 1 targets and 0 contexts open (keep)" in proxy.logs


async def test_browser_close_ends_only_that_clients_session(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy, connect(proxy.ws()) as other:
        async with connect(proxy.ws()) as ws:
            page = await create(ws, 1)
            assert await rpc(ws, {"id": 2, "method": "Browser.close"}) == {"id": 2, "result": {}}
            with trio.fail_after(5), pytest.raises(Closed) as closed:
                while True:
                    await ws.receive()
            assert closed.value.code == 1000
        assert not proxy.chrome.closed and "Browser.close" not in proxy.channel.methods()
        await poll_until(lambda: page not in proxy.chrome.targets)
        assert (await rpc(other, {"id": 3, "method": "Browser.getVersion"}))["result"]["product"] == "FakeChrome/1.0"


async def test_refusals_reach_nothing_and_the_client_goes_on(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy, connect(proxy.ws()) as ws:
        editor = proxy.chrome.pages()[0].id
        crash = await rpc(ws, {"id": 1, "method": "Browser.crash"})
        assert crash["error"]["code"] == -32000 and "pix3 editor --stop-chrome" in crash["error"]["message"]
        closing = await rpc(ws, {"id": 2, "method": "Target.closeTarget", "params": {"targetId": editor}})
        assert closing["error"]["message"].startswith(f"Target.closeTarget is refused: {editor} is the pix3 editor tab")
        async with connect(proxy.ws(f"/pix3/page/{editor}")) as page_client:
            assert (await rpc(page_client, {"id": 1, "method": "Page.close"}))["error"]["code"] == -32000
        assert {"Browser.crash", "Target.closeTarget", "Page.close"}.isdisjoint(proxy.channel.methods())
        assert editor in proxy.chrome.targets
        assert (await rpc(ws, {"id": 3, "method": "Browser.getVersion"}))["result"]["product"] == "FakeChrome/1.0"


async def test_the_editor_tab_closed_anyway_is_opened_again_within_2_s(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,), editor_url=EDITOR_URL) as proxy:
        editor = proxy.chrome.pages()[0].id
        await poll_until(lambda: proxy.chrome.discovering)
        closed_at = time.monotonic()
        for message in proxy.chrome.close_page(editor):  # window.close(), or the user
            proxy.channel.inject(message)
        await poll_until(lambda: [p.url for p in proxy.chrome.pages()] == [EDITOR_URL], seconds=2)
        assert time.monotonic() - closed_at < 2.0
        assert f"editor tab {editor} was closed; opening it again ({EDITOR_URL})" in proxy.logs
        async with httpx.AsyncClient() as http:
            await poll_until(lambda: any(line.startswith("editor tab opened again") for line in proxy.logs))
            status = (await http.get(f"{proxy.base}/json/pix3/status", headers=BEARER)).json()
        assert status["editorTab"] == {
            "targetId": proxy.chrome.pages()[0].id,
            "url": EDITOR_URL,
            "answering": True,
            "silentSince": None,
        }


async def test_status_lists_each_client_with_what_it_owns(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy, httpx.AsyncClient() as http:
        refused = await http.get(f"{proxy.base}/json/pix3/status")
        assert refused.status_code == 401
        headers = [("Authorization", f"Bearer {TOKEN}"), ("User-Agent", "agent/1.0\x1b[31m")]
        async with connect(proxy.ws("/pix3?client=claude-code"), headers) as ws:
            page = await create(ws, 1)
            answer = await http.get(f"{proxy.base}/json/pix3/status", headers=BEARER)
        assert answer.status_code == 200
        body = answer.json()
        assert body["editorTab"] == {
            "targetId": proxy.chrome.pages()[0].id,
            "url": EDITOR_URL,
            "answering": True,
            "silentSince": None,
        }
        [client] = body["clients"]
        assert (client["client"], client["name"], client["userAgent"], client["page"]) == (
            1,
            "claude-code",
            "agent/1.0[31m",
            None,
        )
        assert client["peer"].startswith("127.0.0.1:") and client["since"].endswith("Z")
        assert (client["relayed"], client["keep"], client["targets"], client["contexts"]) == (2, False, [page], [])
        assert json.loads(answer.text) == body
        await poll_until(lambda: page not in proxy.chrome.targets)
        after = (await http.get(f"{proxy.base}/json/pix3/status", headers=BEARER)).json()
        assert after["clients"] == []


async def test_pix3_editors_own_new_tab_outlives_its_short_connection(tmp_path: Path) -> None:
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy:
        second = "http://localhost:5174/__pix3/"
        await trio.to_thread.run_sync(lambda: proxycalls.open_tab(proxy.port, TOKEN, second, new_window=False))
        await trio.sleep(1.5)  # past the grace
        assert second in [p.url for p in proxy.chrome.pages()]


async def test_three_keepers_with_32_tabs_each_leave_at_most_32_behind(tmp_path: Path) -> None:
    """Three `?keep=1` clients x 32 tabs left 96 tabs after they left (Chrome at 11.9 GB): what is
    kept past its clients is bounded for all of them together, the oldest closed (issue 31, item 7)."""
    async with running_proxy(tmp_path, (EDITOR_URL,)) as proxy:
        opened: list[str] = []
        for keeper in range(3):
            async with connect(proxy.ws(f"/pix3?keep=1&client=keeper{keeper}")) as ws:
                opened += [await create(ws, n) for n in range(32)]
            line = f"client {keeper + 1} left 32 targets and 0 contexts open (keep)"
            await poll_until(lambda line=line: line in proxy.logs)  # type: ignore[misc]
        await poll_until(lambda: len(proxy.chrome.pages()) == 1 + 32)
        assert {p.id for p in proxy.chrome.pages()} == {proxy.chrome.pages()[0].id, *opened[-32:]}
        async with httpx.AsyncClient(trust_env=False) as http:
            body = (await http.get(f"{proxy.base}/json/pix3/status", headers=BEARER)).json()
        assert [t["targetId"] for t in body["kept"]["targets"]] == opened[-32:]
        assert {t["client"] for t in body["kept"]["targets"]} == {3}  # the last keeper's 32: the newest
        assert any(line.startswith("kept past their clients: over 32 targets") for line in proxy.logs)
