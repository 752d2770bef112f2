"""The owner's watchdog with real Chromium (docs/chrome-owner.md, "The watchdog"; docs/reliability.md,
"A game or a client that holds a main thread").

One owner for the module, as `pix3 editor` starts it, whose editor tab is a stand-in served by a
small HTTP server of the test on ``localhost:P``; it embeds a game frame from ``127.0.0.1:P`` —
another site, so Chrome runs it in a renderer of its own (an out-of-process iframe), as the
workbench runs its game. The stand-in hears the watchdog through ``window.__PIX3_OWNER_REPORT__``
and, like the workbench, stops a hung game by removing its frame.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from pix3net.clients.cdptrio import WsClient
from pix3net.clients.ownerstatus import gather, text
from pix3net.commands.editor.chromestep import editor_tab_answers
from pix3net.commands.editor.proxycalls import close_target, open_tab, page_id
from pix3net.owner.control import start_owner
from tests.support.cdp_proxy import rpc
from tests.support.chrome import QUIET_CHROME_FLAGS, real_chrome_wrapper
from tests.support.mcp import list_pages
from tests.support.ports import free_port
from tests.support.processes import kill_owner, processes_with
from tests.support.sourcemaps import inline_map

pytestmark = [pytest.mark.chromium, pytest.mark.e2e]

EDITOR_PAGE = """<!doctype html><title>pix3 editor stand-in</title>
<script>
window.reports = [];
window.gameReady = false;
addEventListener("message", (e) => { if (e.data === "ready") window.gameReady = true; });
window.__PIX3_OWNER_REPORT__ = (report) => {
  window.reports.push(report);
  if (report.target === "game") document.querySelector("iframe")?.remove();
};
</script>
<iframe src="{src}"></iframe>
"""
HANG_SECONDS = 15.0
GAME_PAGE = '<!doctype html><script src="/src/{game}.js"></script>'
# The loop is in frame(), on line 5 of the served file, column 3 (`while`).
GAME_JS = """let spin = false;
addEventListener("message", (e) => { if (e.data === "spin") spin = true; });
parent.postMessage("ready", "*");
function frame() {
  while (spin) {}
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
"""


def _mapped_js() -> str:
    """The same game as compiled from ``src/mapped.ts``, where frame() is 10 lines lower and its
    loop indented by 4 more: the inline map says so for each line."""
    lines = GAME_JS.rstrip("\n").split("\n")
    mapping = [(row, 0, row + 10, 4) for row in range(len(lines))]
    return GAME_JS + "//# sourceMappingURL=" + inline_map("mapped.ts", mapping) + "\n"


class _Site(http.server.BaseHTTPRequestHandler):
    port = 0

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if path == "/":
            # ?<game>: the game from another site (its own renderer, as the workbench runs it);
            # ?same-<game>: from the editor's own origin, in the editor's renderer (as it ran before)
            game = query or "game"
            src = f"http://127.0.0.1:{self.port}/game.html?{game}"
            if game.startswith("same-"):
                src = f"/game.html?{game.removeprefix('same-')}"
            body, kind = EDITOR_PAGE.replace("{src}", src), "text/html"
        elif path == "/game.html":
            body, kind = GAME_PAGE.replace("{game}", query or "game"), "text/html"
        elif path == "/src/game.js":
            body, kind = GAME_JS, "text/javascript"
        elif path == "/src/mapped.js":
            body, kind = _mapped_js(), "text/javascript"
        elif path == "/hang":  # a synchronous request to it holds a main thread outside JavaScript
            time.sleep(HANG_SECONDS)
            body, kind = "late", "text/plain"
        else:
            self.send_error(404)
            return
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@dataclass
class Live:
    home: Path
    port: int
    token: str
    site: int

    @property
    def editor_url(self) -> str:
        return f"http://localhost:{self.site}/"

    @property
    def headers(self) -> list[tuple[str, str]]:
        return [("Authorization", f"Bearer {self.token}")]

    def log(self) -> str:
        return (self.home / "chrome-owner.log").read_text()

    async def editor(self) -> str:
        """The editor tab's target (waiting a little for one at its address: Chrome's first page
        shows it once its navigation commits)."""
        with trio.fail_after(5):
            while True:
                async with await WsClient.connect(self.port, "/pix3", self.headers) as browser:
                    reply = await rpc(browser, {"id": 1, "method": "Target.getTargets"})
                infos = reply["result"]["targetInfos"]
                pages = [t for t in infos if t["type"] == "page" and t["url"].startswith(self.editor_url)]
                if len(pages) == 1:
                    return str(pages[0]["targetId"])
                await trio.sleep(0.1)

    async def evaluate(self, expression: str, seconds: float = 10) -> Any:
        editor = await self.editor()
        async with await WsClient.connect(self.port, f"/pix3/page/{editor}", self.headers) as page:
            params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
            reply = await rpc(page, {"id": 1, "method": "Runtime.evaluate", "params": params}, seconds)
        return reply["result"]["result"].get("value")

    async def load_game(self, game: str) -> None:
        await self.evaluate(f"location.href = {json.dumps(self.editor_url + '?' + game)}")
        with trio.fail_after(10):
            while True:
                with contextlib.suppress(KeyError, trio.TooSlowError):
                    if await self.evaluate("window.gameReady === true", 2):
                        return
                await trio.sleep(0.1)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[Live]:
    home = tmp_path_factory.mktemp("watchdog") / "pix3-home"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    _Site.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = free_port()
    wrapper = real_chrome_wrapper(home.parent, chromium, *QUIET_CHROME_FLAGS)
    url = f"http://localhost:{_Site.port}/"
    started = trio.run(
        lambda: start_owner(home, chrome=str(wrapper), port=port, profile=str(home / "chrome"), url=url, headless=True)
    )
    try:
        token = (home / "cdp-token").read_text().strip()
        yield Live(home, port, token, _Site.port)
    finally:
        kill_owner(home, started.pid)
        server.shutdown()
        server.server_close()


async def _reports(live: Live, seconds: float) -> list[dict[str, Any]]:
    with trio.fail_after(seconds):
        while True:
            reports = await live.evaluate("window.reports", 3)
            if reports:
                return list(reports)
            await trio.sleep(0.1)


def test_the_editor_tab_answers_within_3_s_after_a_clients_endless_loop(live: Live) -> None:
    async def scenario() -> tuple[float, dict[str, Any], list[dict[str, Any]]]:
        await live.load_game("game")
        editor = await live.editor()
        async with await WsClient.connect(live.port, f"/pix3/page/{editor}", live.headers) as spinner:
            loop = {"expression": "for(;;){}"}
            await spinner.send(json.dumps({"id": 7, "method": "Runtime.evaluate", "params": loop}))
            started = time.monotonic()
            await trio.sleep(0.2)
            # A client that comes after the freeze: its session waits for the main thread.
            answer = await live.evaluate("1+1", 10)
            took = time.monotonic() - started
            assert answer == 2
            ended = await rpc(spinner, {"id": 8, "method": "Runtime.evaluate", "params": {"expression": "3"}})
            assert ended["result"]["result"]["value"] == 3
        return took, ended, await _reports(live, 5)

    took, _, reports = trio.run(scenario)
    assert took < 3.0, took
    assert reports[0]["kind"] == "hung" and reports[0]["target"] == "editor", reports
    assert 1900 <= reports[0]["heldMs"] <= 3000, reports
    assert f"watchdog: editor {trio.run(live.editor)} held its main thread" in live.log()


@pytest.mark.node
@pytest.mark.parametrize(
    ("game", "where"),
    [
        ("game", "frame() at src/game.js:5:3"),
        ("mapped", "frame() at src/mapped.ts:15:5"),
        ("same-game", "frame() at src/game.js:5:3"),
    ],
)
def test_a_spinning_game_is_ended_named_and_chrome_devtools_mcp_lists_the_pages_meanwhile(
    live: Live, node_modules: Path, tmp_path: Path, game: str, where: str
) -> None:
    trio.run(live.load_game, game)
    trio.run(live.evaluate, 'document.querySelector("iframe").contentWindow.postMessage("spin", "*")')
    started = time.monotonic()
    listing = list_pages(live.port, live.token, node_modules, tmp_path)
    took = time.monotonic() - started
    assert live.editor_url in listing, listing
    assert took < 20, took
    [report] = trio.run(_reports, live, 5)
    assert report["kind"] == "hung" and report["target"] == "game", report
    assert report["where"] == where, report
    assert report["frames"][0]["functionName"] == "frame", report
    assert f"busy in {where}" in live.log()


async def _replaced(live: Live, before: str, seconds: float) -> str:
    """The new editor tab, once it is there and answers."""
    with trio.fail_after(seconds):
        while True:
            with contextlib.suppress(trio.TooSlowError, KeyError):
                after = await live.editor()
                if after != before and await live.evaluate("1+1", 3) == 2:
                    return after
            await trio.sleep(0.2)


async def _start(live: Live, expression: str) -> str:
    """Have the editor tab run ``expression`` (not waiting for it); its target."""
    await live.load_game("game")
    before = await live.editor()
    async with await WsClient.connect(live.port, f"/pix3/page/{before}", live.headers) as page:
        await page.send(json.dumps({"id": 1, "method": "Runtime.evaluate", "params": {"expression": expression}}))
        await trio.sleep(0.2)
    return before


def test_an_editor_tab_whose_loop_comes_back_again_and_again_is_replaced(live: Live) -> None:
    # (Before the next test: it leaves a fresh editor tab, whose scripts were never ended.)
    async def scenario() -> tuple[str, str]:
        # Each interval spins again after the watchdog ended the one before.
        before = await _start(live, "setInterval(() => { for(;;){} }, 0); 1")
        return before, await _replaced(live, before, 12)

    before, _ = trio.run(scenario)
    assert f"editor tab {before} had its scripts ended 3 times" in live.log()


def test_an_editor_tab_that_does_not_come_back_says_so_and_is_replaced(live: Live) -> None:
    async def scenario() -> tuple[str, dict[str, Any], str]:
        # A synchronous request holds the main thread outside JavaScript: nothing can end it.
        hold = 'const x = new XMLHttpRequest(); x.open("GET", "/hang", false); x.send(); 1'
        before = await _start(live, hold)
        with trio.fail_after(5):
            while True:
                silent = await trio.to_thread.run_sync(gather, live.home)
                if silent["editorTab"] and not silent["editorTab"]["answering"]:
                    break
                await trio.sleep(0.2)
        return before, silent, await _replaced(live, before, 8)

    before, silent, after = trio.run(scenario)
    assert after != before
    assert silent["editorTab"]["targetId"] == before
    assert f"not answering since {silent['editorTab']['silentSince']}" in text(silent)
    assert f"editor tab {before} still did not answer" in live.log()
    assert gather(live.home)["editorTab"]["answering"] is True


def test_the_status_says_an_answering_editor_tab_answers(live: Live) -> None:
    status = gather(live.home)
    assert status["editorTab"]["answering"] is True and status["editorTab"]["silentSince"] is None
    assert "not answering" not in text(status)


@pytest.mark.parametrize("whose", ["the owner's", "another project's"])
def test_pix3_editor_repairs_an_editor_tab_that_does_not_answer(live: Live, whose: str) -> None:
    hold = 'const x = new XMLHttpRequest(); x.open("GET", "/hang", false); x.send(); 1'
    url = live.editor_url if whose == "the owner's" else f"http://localhost:{live.site}/?other"

    async def held() -> str:
        if whose == "the owner's":
            return await _start(live, hold)
        # A tab `pix3 editor` opened for another project: the watchdog does not watch it.
        open_tab(live.port, live.token, url, new_window=False)
        target = page_id(live.port, live.token, url)
        assert target is not None
        async with await WsClient.connect(live.port, f"/pix3/page/{target}", live.headers) as page:
            loaded = {"expression": "location.href", "returnByValue": True}
            with trio.fail_after(10):  # its document, not the first empty one (no "/hang" there)
                for ask in range(1, 1000):
                    reply = await rpc(page, {"id": ask, "method": "Runtime.evaluate", "params": loaded})
                    if reply["result"]["result"].get("value") == url:
                        break
                    await trio.sleep(0.05)
            await page.send(json.dumps({"id": 0, "method": "Runtime.evaluate", "params": {"expression": hold}}))
            await trio.sleep(0.2)
        return target

    try:
        before = trio.run(held)
        started = time.monotonic()
        how = editor_tab_answers(live.port, live.token, url, headless=True)
        assert how == "the editor tab did not answer within 3 s, so it was opened again", how
        assert time.monotonic() - started < 12
        after = page_id(live.port, live.token, url)
        assert after is not None and after != before
        assert editor_tab_answers(live.port, live.token, url, headless=True) == "the editor tab is open there"
    finally:
        while whose != "the owner's" and (other := page_id(live.port, live.token, url)) is not None:
            close_target(live.port, live.token, other)  # one editor tab at the stand-in's address after


def test_a_crashed_game_frame_is_told_to_the_editor_page(live: Live) -> None:
    async def scenario() -> list[dict[str, Any]]:
        await live.load_game("game")
        async with await WsClient.connect(live.port, "/pix3", live.headers) as browser:
            reply = await rpc(browser, {"id": 1, "method": "Target.getTargets"})
            [game] = [t["targetId"] for t in reply["result"]["targetInfos"] if t["type"] == "iframe"]
            attach = {"targetId": game, "flatten": True}
            session = (await rpc(browser, {"id": 2, "method": "Target.attachToTarget", "params": attach}))["result"]
            crash = {"id": 3, "method": "Page.crash", "sessionId": session["sessionId"]}
            await browser.send(json.dumps(crash))
        return await _reports(live, 5)

    [report] = trio.run(scenario)
    assert report == {"kind": "crashed", "target": "game", "reason": "the game frame's renderer crashed"}


def test_a_pause_a_client_left_behind_ends_with_it(live: Live) -> None:
    # Chrome resumes a pause when the last session with the debugger enabled leaves; the
    # watchdog's own session must not keep the editor tab paused after its client is gone.
    async def scenario() -> tuple[int, int, int]:
        await live.load_game("game")
        await live.evaluate("window.n = 0; setInterval(() => { window.n += 1; }, 20); 1")
        editor = await live.editor()
        async with await WsClient.connect(live.port, f"/pix3/page/{editor}", live.headers) as client:
            await rpc(client, {"id": 1, "method": "Debugger.enable"})
            await rpc(client, {"id": 2, "method": "Debugger.pause"})
            await trio.sleep(0.5)
            read = {"expression": "window.n", "returnByValue": True}  # answered while paused
            held = (await rpc(client, {"id": 3, "method": "Runtime.evaluate", "params": read}))["result"]
            await trio.sleep(0.5)
            again = (await rpc(client, {"id": 4, "method": "Runtime.evaluate", "params": read}))["result"]
            assert again == held  # paused, and not the watchdog's to end while its client is there
            held = held["result"]["value"]
        await trio.sleep(1.0)
        first = await live.evaluate("window.n")
        await trio.sleep(0.5)
        return held, first, await live.evaluate("window.n")

    held, first, later = trio.run(scenario)
    assert later > first >= held, (held, first, later)
    assert "resumed a pause its client left" in live.log()


def _renderers_rss_mib(live: Live) -> int:
    """Resident memory of the owner's Chrome's renderer processes, in MiB."""
    total = 0
    for pid in processes_with(str(live.home / "chrome")):
        with contextlib.suppress(OSError):
            if b"--type=renderer" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total // 1024


def test_scripts_evaluated_in_the_editor_tab_do_not_pile_up(live: Live) -> None:
    # With the debugger on, Chrome keeps the source of every collected script for that session
    # unless told a bound: agents evaluating in the editor tab for hours grew its renderer without
    # end. The first rounds warm the renderer up (its heaps grow either way); after that, each
    # round of 3 000 scripts of 8 KB added about 40 MiB before the bound and nothing after.
    async def scenario() -> list[int]:
        editor = await live.editor()
        pad = "x" * 8000
        seen = []
        async with await WsClient.connect(live.port, f"/pix3/page/{editor}", live.headers) as page:
            for round_ in range(4):
                for i in range(3000):
                    expression = f"(function(){{ return '{pad}'.length + {round_ * 3000 + i}; }})()"
                    await rpc(page, {"id": 10 + i, "method": "Runtime.evaluate", "params": {"expression": expression}})
                await rpc(page, {"id": 2, "method": "HeapProfiler.collectGarbage"})
                seen.append(_renderers_rss_mib(live))
        return seen

    seen = trio.run(scenario)
    print(f"renderers after each round: {seen} MiB")
    assert seen[3] - seen[1] < 30, seen
