"""The game runs apart from the workbench (docs/game-page.md, section 4), in real Chromium: what a
game can do wrong, row by row, and for each the run answers within its maxWallMs + 5 s with a
verdict that names what happened (for a loop, where it spun), the editor tab answers `1+1` within
3 s while it happens and afterwards, chrome-devtools-mcp 1.11.0 lists the pages within 20 s while a
game spins, and nothing of the editor page changed.

The table runs in the Chrome owner's own editor tab (`pix3 __chrome-owner`, as `pix3 editor`
starts it), so its watchdog (docs/chrome-owner.md) is the one that ends a loop, says where it spun
and reports a dead renderer through `window.__PIX3_OWNER_REPORT__`. The other tests here drive a
plain Chromium, where `Report` plays the owner's part to test the page's side of that channel."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from pix3net.owner.control import start_owner
from tests.support.chrome import QUIET_CHROME_FLAGS, real_chrome_wrapper
from tests.support.devserver import DevServer, dev_server
from tests.support.devtools import chromium_with_port, owned_tab
from tests.support.editor_page import LEVEL_SCENE, EditorPage, editor_page, make_game_project, owned_editor_page
from tests.support.mcp import list_pages
from tests.support.ports import free_port
from tests.support.processes import kill_owner

pytestmark = [pytest.mark.chromium, pytest.mark.e2e, pytest.mark.slow]

ANSWER_S = 3.0  # the editor tab answers `1+1` within this, whatever the game does
GRACE_S = 5.0  # a run answers within its maxWallMs and this
WALL_MS = 4000  # the rows' budget
LOOP_AT = 30  # the game frame a loop or a memory blow-up begins at
# The game's renderer gets a small heap so that a memory blow-up ends in seconds (V8's own limit
# is gigabytes); the editor page needs a few megabytes of it.
HEAP_MB = 96

# One game for every row: the scene's name says what it does.
GAME_JS = """const scene = new URLSearchParams(location.search).get("scene") || "";
const row = scene.replace(/^.*\\//, "").replace(/\\.pix3scene$/, "");
let n = 0;
const reach = {};
globalThis.__PIX3_GAME_DEBUG__ = { name: "apart", snapshot: () => ({ row, n, reach }) };
function attempt(name, reaching) {
  try { reach[name] = String(reaching()); } catch (error) { reach[name] = error.name; }
}
function reachOut() {
  attempt("topDocument", () => typeof top.document);
  attempt("topDebug", () => typeof top.__PIX3_DEBUG__);
  attempt("topOwnerReport", () => top.__PIX3_OWNER_REPORT__({ kind: "crashed", target: "game", reason: "lies" }));
  attempt("parentDebug", () => typeof parent.__PIX3_DEBUG__);
  attempt("parentParentTitle", () => parent.parent.document.title);
  attempt("forged", () => {
    const forged = { channel: "pix3-game", type: "facts", dropped: 0, facts: [{ kind: "error", message: "forged", text: "forged" }] };
    top.postMessage(forged, "*");
    parent.parent.postMessage(forged, "*");
    return "sent";
  });
  attempt("topNavigate", () => { top.location.href = "/elsewhere"; return "asked"; });
}
// the editor's API from the game's own origin, as the editor page calls it: `hello` names the
// writer, a PUT as that writer writes a project file, the socket joins as a tab (all refused)
async function callTheApi() {
  const socket = new WebSocket("/__pix3/ws");
  socket.onopen = () => { reach.socket = "open"; socket.send(JSON.stringify({ type: "hello", tabId: "the-game" })); };
  socket.onclose = () => { reach.socket ||= "refused"; };
  const said = async (answer) => { const body = await answer.json(); return [`${answer.status} ${body.error || "answered"}`, body]; };
  try {
    const [hello, { writerId }] = await said(await fetch("/__pix3/api/hello"));
    reach.hello = hello;
    const headers = { "X-Pix3": "1", ...(writerId ? { "X-Pix3-Writer": writerId } : {}) };
    const at = `/__pix3/api/file?path=${encodeURIComponent(WRITTEN)}`;
    [reach.put] = await said(await fetch(at, { method: "PUT", headers, body: "the game wrote this" }));
  } catch (error) { reach.error = String(error); }
}
if (row === "api") callTheApi();
if (row === "entry-loop") { for (;;) {} }
function frame() {
  n += 1;
  requestAnimationFrame(frame);
  if (row === "loop" && n === LOOP_AT) { for (;;) {} }
  if (row === "memory" && n === LOOP_AT) { const hog = []; for (;;) hog.push(new Array(4096).fill(n)); }
  if (row === "flood") {
    for (let i = 0; i < 2000; i += 1) console.error(`flood ${n}.${i}`);
    alert(`storm ${n}`);
    parent.alert(`storm ${n} through parent`);
  }
  if (row === "parent" && n === 5) reachOut();
}
requestAnimationFrame(frame);
""".replace("LOOP_AT", str(LOOP_AT)).replace("WRITTEN", '"written-by-the-game.txt"')

# What of the editor page a game must never change.
FINGERPRINT = """(() => ({
  title: document.title, href: location.href, globals: Object.keys(window).sort(),
  debug: typeof window.__PIX3_DEBUG__, report: typeof window.__PIX3_OWNER_REPORT__,
  connection: document.getElementById('pix3-connection').textContent,
}))()"""

LOOP_SAYS = "while the main thread was busy: a script stuck in a loop"


def _line(marker: str) -> int:
    """The line of game.js holding ``marker`` (1-based, as the watchdog names it)."""
    [line] = [n for n, text in enumerate(GAME_JS.splitlines(), 1) if marker in text]
    return line


LOOP_LINE = _line('row === "loop" && n ===')
ENTRY_LOOP_LINE = _line('if (row === "entry-loop")')


@dataclass(frozen=True)
class Row:
    name: str
    verdict: str  # how the run's verdict begins
    codes: tuple[str, ...] = ()  # codes the run's `judged` errors hold
    says: tuple[str, ...] = ()  # words in the verdict
    until: dict[str, Any] = field(default_factory=lambda: {"kind": "frames", "n": 300})
    spins: bool = False  # the game holds its main thread: chrome-devtools-mcp connects meanwhile
    crash: bool = False  # the test crashes the game's renderer (Page.crash on its target)
    client_loop: bool = False  # a client runs `for(;;){}` in the editor tab while the game runs
    # another ending the row may have, with its codes: the race between two guards, both of which stop the game
    or_else: tuple[str, tuple[str, ...]] | None = None


HELD = "the game held its main thread for"
ROWS = [
    Row("loop", f"ERROR: busy in frame() at game.js:{LOOP_LINE}:", ("E_SMOKE_TIMEOUT",), (HELD,), spins=True),
    # the watchdog ends it while pix3_play waits for the page's load, before the run: the run says so
    Row(
        "entry-loop",
        f"ERROR: before this run, busy in (anonymous)() at game.js:{ENTRY_LOOP_LINE}:",
        ("E_SMOKE_TIMEOUT",),
        (HELD, "start the game again (pix3_play start)"),
        spins=True,
    ),
    # V8's heap limit crashes the renderer; when the machine is loaded the blow-up's last collections
    # can hold the main thread past the watchdog's 2 s first, and the watchdog stops it: both stop the game
    Row(
        "memory",
        "ERROR: the renderer running the game page crashed",
        ("E_SMOKE_CRASH",),
        or_else=("ERROR: busy in", ("E_SMOKE_TIMEOUT",)),
    ),
    Row("crash", "ERROR: the renderer running the game page crashed", ("E_SMOKE_CRASH",), crash=True),
    Row("parent", "PASS until[0] frames 30", until={"kind": "frames", "n": 30}),
    Row("flood", "FAIL fail[0] newErrors", ("E_SMOKE_CONSOLE_ERROR",)),
    # a client's loop held the editor page (the run's judge) for 2 s: the run cannot say what the game did meanwhile
    Row(
        "editor-loop",
        "ERROR: busy in (anonymous)() of an evaluated script (no source file: a CDP client's Runtime.evaluate",
        ("E_SMOKE_TIMEOUT",),
        ("a script in the editor page held its main thread for",),
        until={"kind": "frames", "n": 120},
        client_loop=True,
    ),
]


@dataclass(frozen=True)
class Owned:
    """The Chrome owner of the table, its editor tab at the game project's editor page."""

    home: Path
    port: int
    token: str
    url: str  # the editor page's


@pytest.fixture(scope="module")
def devtools(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[int]:
    flags = (f"--js-flags=--max-old-space-size={HEAP_MB}",)
    with chromium_with_port(chromium, tmp_path_factory.mktemp("profile"), flags) as port:
        yield port


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    root = make_game_project(tmp_path_factory.mktemp("apart") / "game")
    (root / "game.js").write_text(GAME_JS)
    for row in [*ROWS, Row("clean", ""), Row("api", "")]:
        (root / "scenes" / f"{row.name}.pix3scene").write_text(LEVEL_SCENE)
    with dev_server(root) as server:
        yield server


@pytest.fixture(scope="module")
def owned(tmp_path_factory: pytest.TempPathFactory, chromium: str, game: DevServer) -> Iterator[Owned]:
    """`pix3 __chrome-owner` as `pix3 editor` starts it, its editor tab at the game's editor page,
    its Chrome with a small heap for the game's renderer (a memory blow-up ends in seconds)."""
    home = tmp_path_factory.mktemp("owned") / "pix3-home"
    port = free_port()
    wrapper = real_chrome_wrapper(
        home.parent, chromium, *QUIET_CHROME_FLAGS, f"--js-flags=--max-old-space-size={HEAP_MB}"
    )
    url = game.record()["editorUrl"]
    started = trio.run(
        lambda: start_owner(home, chrome=str(wrapper), port=port, profile=str(home / "chrome"), url=url, headless=True)
    )
    try:
        yield Owned(home, port, (home / "cdp-token").read_text().strip(), url)
    finally:
        kill_owner(home, started.pid)


class Report:
    """Plays the Chrome owner's watchdog on a plain Chromium: its report, told the way it tells it."""

    def __init__(self, page: EditorPage) -> None:
        self.page = page

    async def report(self, report: Any) -> bool:
        return bool(await self.page.evaluate(f"window.__PIX3_OWNER_REPORT__({json.dumps(report)})"))


async def crash(page: EditorPage, session: str) -> None:
    with trio.move_on_after(5):
        await page.page.call("Page.crash", {}, session)


async def answers(page: EditorPage) -> float:
    """Seconds the editor tab takes to answer `1+1` (at most ANSWER_S)."""
    with trio.fail_after(ANSWER_S):
        started = trio.current_time()
        assert await page.evaluate("1+1") == 2
        return trio.current_time() - started


async def with_page(devtools: int, server: DevServer, body: Any) -> None:
    async with trio.open_nursery() as nursery:
        async with editor_page(devtools, server.record()["editorUrl"], nursery) as page:
            await body(page)
        nursery.cancel_scope.cancel()


def seconds_to_list_pages(owned: Owned, node_modules: Path, folder: Path) -> float:
    """Seconds chrome-devtools-mcp 1.11.0, started now on the owner's proxy, takes to list the pages
    (it fails when the editor tab is not among them)."""
    started = time.monotonic()
    listing = list_pages(owned.port, owned.token, node_modules, folder)
    assert "/__pix3/" in listing, listing
    return time.monotonic() - started


async def client_loop(owned: Owned, seconds: float) -> None:
    """A client of the proxy runs `for(;;){}` in the editor tab and waits for its answer."""
    async with trio.open_nursery() as nursery:
        async with owned_tab(owned.port, owned.token, owned.url, nursery) as tab:
            # answered with an error once the watchdog terminates it
            with trio.move_on_after(seconds), contextlib.suppress(AssertionError):
                await tab.call("Runtime.evaluate", {"expression": "for(;;){}"})
        nursery.cancel_scope.cancel()


@pytest.mark.node
@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
async def test_a_game_gone_wrong_never_stops_the_workbench(
    row: Row, game: DevServer, owned: Owned, node_modules: Path, tmp_path: Path
) -> None:
    async def body(page: EditorPage) -> None:
        before = await page.evaluate(FINGERPRINT)
        started = await page.call("pix3_play", {"action": "start", "scenePath": f"res://scenes/{row.name}.pix3scene"})
        assert started["ok"] is True, started
        session = await page.game_session()  # the game's frame is a target of its own: another process
        # the game goes on after the outcome: a flood floods on while the editor page is asked `1+1`
        spec = {"until": [row.until], "fail": [{"kind": "newErrors"}], "maxWallMs": WALL_MS, "pauseOnOutcome": False}
        result: dict[str, Any] = {}
        answered = trio.Event()
        async with trio.open_nursery() as nursery:

            async def go() -> None:
                begun = trio.current_time()
                result["run"] = await page.call("pix3_game_run", spec)
                result["took"] = trio.current_time() - begun
                answered.set()

            listed = trio.Event()

            async def connect() -> None:
                result["listed"] = await trio.to_thread.run_sync(seconds_to_list_pages, owned, node_modules, tmp_path)
                listed.set()

            nursery.start_soon(go)
            if row.spins:  # a new agent connects while the game spins
                nursery.start_soon(connect)
            await trio.sleep(1.5)  # the game is in its loop, its flood, its blow-up by now
            if row.crash:  # Chrome answers nothing: the renderer that would is gone
                nursery.start_soon(crash, page, session)
            if row.client_loop:  # the watchdog ends it after 2 s; meanwhile the page cannot answer
                await client_loop(owned, 10)
                result["during"] = await answers(page)
            else:
                result["during"] = await answers(page)  # meanwhile the editor page answers
            with trio.move_on_after(WALL_MS / 1000 + GRACE_S + 1):
                await answered.wait()
            if row.spins:
                with trio.fail_after(25):
                    await listed.wait()
            nursery.cancel_scope.cancel()
        assert "run" in result, f"pix3_game_run did not answer within {WALL_MS} ms + {GRACE_S} s"
        run = result["run"]
        assert result["took"] < WALL_MS / 1000 + GRACE_S, (result["took"], run["verdict"])
        verdict, expected = row.verdict, row.codes
        if row.or_else is not None and not run["verdict"].startswith(verdict):
            verdict, expected = row.or_else
        assert run["verdict"].startswith(verdict), run["verdict"]
        for words in row.says:
            assert words in run["verdict"], (words, run["verdict"])
        codes = {e["code"] for e in run["judged"]["errors"]}
        assert set(expected) <= codes, (expected, run["judged"])
        if row.spins:
            assert result["listed"] < 20, result["listed"]
        print(f"{row.name}: answered in {result['took']:.1f} s, 1+1 in {result['during'] * 1000:.0f} ms meanwhile")
        print(f"  {run['verdict'][:200]}")
        if "listed" in result:
            print(f"  chrome-devtools-mcp 1.11.0 listed the pages in {result['listed']:.1f} s")

        errors = await page.call("pix3_errors", {})
        assert errors["count"] <= 200 and not any("forged" in e["message"] for e in errors["errors"]), errors
        if row.name == "parent":
            assert run["game"]["snapshot"]["reach"] == {
                "topDocument": "SecurityError",  # the editor page is another origin
                "topDebug": "SecurityError",
                "topOwnerReport": "SecurityError",
                "parentDebug": "undefined",  # the game's parent is the frame of ours on its own origin
                "parentParentTitle": "SecurityError",
                "forged": "sent",  # and dropped: the editor page hears only the game frame's own window
                "topNavigate": "SecurityError",  # the sandbox has no top navigation
            }, run["game"]
            assert errors["count"] == 0, errors
        if row.name == "flood":
            assert errors["count"] == 200, errors["count"]  # the ring holds the last 200
        if row.client_loop:  # the watchdog ended the client's loop and told the page where
            [entry] = [e for e in errors["errors"] if e["source"] == "watchdog"]
            assert (entry["origin"], entry["code"]) == ("page", "E_SMOKE_TIMEOUT"), entry
            assert entry["message"].startswith("busy in "), entry
        assert await page.call("pix3_play", {"action": "stop"}) | {"ok": True} == await page.call(
            "pix3_play", {"action": "status"}
        ) | {"ok": True}
        await answers(page)  # afterwards too
        assert await page.evaluate(FINGERPRINT) == before
        await page.call("pix3_errors", {"clear": True})

    async with trio.open_nursery() as nursery:
        async with owned_editor_page(owned.port, owned.token, owned.url, nursery) as page:
            await body(page)
        nursery.cancel_scope.cancel()


async def test_the_game_s_script_cannot_use_the_editor_s_api(game: DevServer, owned: Owned) -> None:
    """The game's script is same-origin with the dev server under its own name: from inside the game
    frame of the owner's editor tab it PUTs a project file through the file API (with `X-Pix3`),
    reads `hello` and opens the editor socket, as the editor page does. Each is refused, nothing is
    written, the socket never opens, and the game runs on (its frames arrive)."""
    written = game.root / "written-by-the-game.txt"

    async def body(page: EditorPage) -> None:
        started = await page.call("pix3_play", {"action": "start", "scenePath": "res://scenes/api.pix3scene"})
        assert (started["ok"], started["loaded"]) == (True, True), started
        with trio.fail_after(15):
            while True:  # the game's requests are answered while it draws
                run = await page.call("pix3_game_run", {"until": [{"kind": "frames", "n": 10}]})
                assert run["verdict"].startswith("PASS until[0] frames 10"), run["verdict"]
                reach = run["game"]["snapshot"]["reach"]
                if {"put", "hello", "socket"} <= set(reach):
                    break
                await trio.sleep(0.2)
        print(f"the game's calls: {reach}")
        assert reach == {"hello": "403 forbidden_game_origin", "put": "403 forbidden_game_origin", "socket": "refused"}
        assert not written.exists()
        async with httpx.AsyncClient() as client:  # pix3's own clients are no browser: answered
            hello = (await client.get(f"http://localhost:{game.port}/__pix3/api/hello")).json()
        assert "the-game" not in hello["tabs"] and hello["writerId"] in hello["tabs"], hello
        await page.call("pix3_play", {"action": "stop"})

    try:
        async with trio.open_nursery() as nursery:
            async with owned_editor_page(owned.port, owned.token, owned.url, nursery) as page:
                await body(page)
            nursery.cancel_scope.cancel()
    finally:
        written.unlink(missing_ok=True)


async def test_the_owner_s_report_ends_a_run_and_says_where(game: DevServer, devtools: int) -> None:
    """The watchdog's side is the owner's: here its report, as it sends it, while the game spins —
    the run ends with E_SMOKE_TIMEOUT naming where; a report on the editor page is listed as the
    page's; any other shape is dropped."""

    async def body(page: EditorPage) -> None:
        owner = Report(page)
        assert (await page.call("pix3_play", {"action": "start", "scenePath": "res://scenes/loop.pix3scene"}))["ok"]
        where = "frame() at src/game.js:132:31"
        hung = {
            "kind": "hung",
            "target": "game",
            "where": where,
            "frames": [{"functionName": "frame", "url": "http://127.0.0.1/src/game.js", "line": 132, "column": 31}],
            "heldMs": 2104,
        }
        result: dict[str, Any] = {}
        async with trio.open_nursery() as nursery:

            async def go() -> None:
                result["run"] = await page.call(
                    "pix3_game_run", {"until": [{"kind": "frames", "n": 300}], "maxWallMs": 15000}
                )

            nursery.start_soon(go)
            await trio.sleep(2.5)  # the loop begins at frame 30
            assert await owner.report(hung) is True
        run = result["run"]
        assert run["verdict"].startswith(f"ERROR: busy in {where}: the game held its main thread for 2.1 s"), run
        [found] = [e for e in run["judged"]["errors"] if e["code"] == "E_SMOKE_TIMEOUT"]
        assert (found["where"], found["reason"]) == (where, "busy"), found
        listed = (await page.call("pix3_errors", {}))["errors"]
        assert [(e["source"], e["origin"], e["code"]) for e in listed][-1:] == [("watchdog", "game", "E_SMOKE_TIMEOUT")]
        assert "at frame (http://127.0.0.1/src/game.js:132:31)" in listed[-1]["stack"]
        assert await page.call("pix3_play", {"action": "stop"})
        await page.call("pix3_errors", {"clear": True})

        # a client's own loop in the editor tab: the owner ended it (here: this test's session) and says so
        assert await owner.report({**hung, "target": "editor", "where": "anonymous() at <evaluate>:1:6"}) is True
        [entry] = (await page.call("pix3_errors", {}))["errors"]
        assert (entry["origin"], entry["code"]) == ("page", "E_SMOKE_TIMEOUT")
        assert entry["message"].startswith("busy in anonymous() at <evaluate>:1:6: a script in the editor page held")
        # anything else is dropped, and nothing is listed
        bad: Any
        for bad in [
            None,
            "hung",
            [],
            {"kind": "hung"},
            {**hung, "target": "tab"},
            {**hung, "heldMs": "long"},
            {**hung, "where": 7},
            {**hung, "frames": [{"functionName": 1}]},
            {"kind": "crashed", "target": "editor", "reason": "x"},
            {"kind": "crashed", "target": "game"},
            {"kind": "gone", "target": "game", "reason": "x"},
        ]:
            assert await owner.report(bad) is False, bad
        assert (await page.call("pix3_errors", {"clear": True}))["count"] == 1
        described = await page.evaluate(
            "JSON.stringify([Object.keys(window).includes('__PIX3_OWNER_REPORT__'),"
            " Object.getOwnPropertyDescriptor(window, '__PIX3_OWNER_REPORT__').writable])"
        )
        assert described == "[false,false]"  # not among the page's names, not replaceable

    await with_page(devtools, game, body)


async def test_the_game_frame_is_its_own_process_and_only_the_editor_may_frame_it(
    game: DevServer, devtools: int
) -> None:
    async def body(page: EditorPage) -> None:
        assert (await page.call("pix3_play", {"action": "start", "scenePath": "res://scenes/clean.pix3scene"}))["ok"]
        session = await page.game_session()
        targets = (await page.page.call("Target.getTargets"))["targetInfos"]
        [frame] = [t for t in targets if t["type"] == "iframe"]
        port = game.record()["port"]
        assert frame["url"] == f"http://127.0.0.1:{port}/__pix3/game/?scene=res%3A%2F%2Fscenes%2Fclean.pix3scene"
        assert await page.evaluate("location.origin") == f"http://localhost:{port}"
        # the game's own window is the frame's one iframe, the game page on the game's origin
        assert await page.game_evaluate("document.querySelector('iframe').contentWindow.location.href") == (
            f"http://127.0.0.1:{port}/?scene=res%3A%2F%2Fscenes%2Fclean.pix3scene"
        )
        assert session
        await page.call("pix3_play", {"action": "stop"})
        # only the editor page, under `localhost`, may frame it under the game's name (and a page on
        # its own origin); under any other name only a page on its own origin
        for name, ancestors in (("127.0.0.1", f"'self' http://localhost:{port}"), ("localhost", "'self'")):
            async with httpx.AsyncClient() as client:
                answer = await client.get(f"http://{name}:{port}/__pix3/game/", headers={"Host": f"{name}:{port}"})
            assert answer.status_code == 200 and "gameframe.js" in answer.text
            policy = answer.headers["content-security-policy"]
            assert policy == f"frame-ancestors {ancestors}", policy

    await with_page(devtools, game, body)


async def test_an_editor_page_opened_at_127_0_0_1_is_sent_to_localhost(game: DevServer, devtools: int) -> None:
    """The pair is fixed: the editor page under `localhost`, the game under `127.0.0.1` (where the
    dev server refuses a browser's API calls); a browser asking for the editor page under
    `127.0.0.1` is sent to `localhost`, and the game runs under `127.0.0.1` all the same."""
    port = game.record()["port"]
    async with trio.open_nursery() as nursery:
        async with editor_page(devtools, f"http://127.0.0.1:{port}/__pix3/", nursery) as page:
            assert await page.evaluate("location.href") == f"http://localhost:{port}/__pix3/"
            started = await page.call("pix3_play", {"action": "start", "scenePath": "res://scenes/clean.pix3scene"})
            assert (started["ok"], started["loaded"]) == (True, True), started
            await page.game_session()
            targets = (await page.page.call("Target.getTargets"))["targetInfos"]
            [frame] = [t for t in targets if t["type"] == "iframe"]
            assert frame["url"].startswith(f"http://127.0.0.1:{port}/__pix3/game/"), frame
            run = await page.call("pix3_game_run", {"until": [{"kind": "frames", "n": 10}]})
            assert run["verdict"].startswith("PASS until[0] frames 10"), run["verdict"]
            assert run["game"]["snapshot"]["row"] == "clean"
            await page.call("pix3_play", {"action": "stop"})
        nursery.cancel_scope.cancel()


# A page of the project that, loaded on the editor page's origin, writes into the editor page: what
# the game's code would do if it ever ran there (the editor page's origin serves the project too).
ESCAPE_HTML = """<!doctype html><script>
const how = new URLSearchParams(location.search).get("how");
const editor = how === "popup" ? opener && opener.top : top;
try { (editor.__PIX3_ESCAPED__ ||= []).push(how); } catch (error) { /* another origin: held */ }
</script>
"""
# The game puts that page on the editor page's origin (`ancestorOrigins`' last) three ways: framed
# inside the game, in a popup (whose opener's top is the editor page; opened on a click, here
# `openPopup` with a user gesture), and in place of the frame of ours holding the game (same origin
# as the game, so the game runs its code).
ESCAPE_GAME_JS = """const editor = location.ancestorOrigins[location.ancestorOrigins.length - 1];
globalThis.__PIX3_GAME_DEBUG__ = { name: "escape", snapshot: () => ({ editor }) };
const frame = document.createElement("iframe");
frame.src = `${editor}/escape.html?how=frame`;
document.body.append(frame);
const viaApi = document.createElement("iframe");  // the file API answers a project file as it is
viaApi.src = `${editor}/__pix3/api/file?path=escape.html&how=file-api`;
document.body.append(viaApi);
const editorPage = document.createElement("iframe");  // a second editor page: it would claim the writer
editorPage.src = `${editor}/__pix3/`;
document.body.append(editorPage);
globalThis.openPopup = () => window.open(`${editor}/escape.html?how=popup`);
setTimeout(() => parent.eval(`location.href = ${JSON.stringify(editor + "/escape.html?how=parent")}`), 1500);
"""


async def test_the_game_never_runs_a_page_on_the_editor_page_s_origin(
    tmp_path_factory: pytest.TempPathFactory, devtools: int
) -> None:
    """Both loopback names serve the project: a game that loads one of its pages under the editor
    page's name (framed, in a popup, or in place of our frame) would be the editor page's origin and
    reach everything in it. The front door refuses a project document asked for by a page of
    another site, so each stays an error page."""
    root = make_game_project(tmp_path_factory.mktemp("escape") / "game")
    (root / "game.js").write_text(ESCAPE_GAME_JS)
    (root / "escape.html").write_text(ESCAPE_HTML)
    with dev_server(root) as server:

        async def body(page: EditorPage) -> None:
            started = await page.call("pix3_play", {"action": "start", "scenePath": "res://scenes/level.pix3scene"})
            assert started["ok"] is True, started
            opened = await page.page.call(
                "Runtime.evaluate",
                {
                    "expression": "String(!!document.querySelector('iframe').contentWindow.openPopup())",
                    "userGesture": True,
                },
                await page.game_session(),
            )
            assert opened["result"]["value"] == "true", opened
            await trio.sleep(4)  # the frame, the popup and the navigation have all loaded by now
            assert await page.evaluate("JSON.stringify(window.__PIX3_ESCAPED__ || [])") == "[]"
            # the editor page framed inside the game loads nothing: the editor page is still the writer
            async with httpx.AsyncClient() as client:
                hello = (await client.get(f"http://127.0.0.1:{server.port}/__pix3/api/hello")).json()
            assert [hello["writerId"]] == hello["tabs"], hello
            # the game itself still runs (its own documents are same-origin requests)
            assert await page.evaluate("location.origin") == f"http://localhost:{server.port}"
            await page.call("pix3_play", {"action": "stop"})

        await with_page(devtools, server, body)
