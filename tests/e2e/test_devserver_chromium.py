"""End to end: the real dev server, the real Vite, the editor host page in a real Chromium.

The page loads at /__pix3/, claims the writer, gets an unsaved document through its test hooks,
and a flush (the `pix3 check` client, then a plain POST) makes it write the file; a second tab
takes over writing; a module edit reaches an open game page through our port (HMR).
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio

from pix3net.clients.flush import flush_editor
from tests.support.devserver import DevServer, dev_server, hello
from tests.support.devtools import chromium_with_port, open_page
from tests.support.projects import make_project

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e, pytest.mark.slow]

# Runs before the page's own scripts: marks when Vite's client opens its HMR socket ("vite-hmr").
HMR_PROBE = """
window.__pix3HmrOpen = false;
window.WebSocket = class extends window.WebSocket {
  constructor(url, protocols) {
    super(url, protocols);
    if (String(protocols).includes("vite-hmr")) this.addEventListener("open", () => { window.__pix3HmrOpen = true; });
  }
};
"""

MAIN_JS = """export const msg = "v1";
document.getElementById("out").textContent = msg;
if (import.meta.hot) import.meta.hot.accept((next) => { document.getElementById("out").textContent = next.msg; });
"""
INDEX = (
    '<!doctype html><html><body><div id="out"></div><script type="module" src="/src/main.js"></script></body></html>\n'
)
SCENE = "root:\n  name: Level\n"


async def test_editor_page_flush_handover_and_hmr(tmp_path: Path, chromium: str, node_modules: Path) -> None:
    root = make_project(tmp_path / "game", {"index.html": INDEX, "src/main.js": MAIN_JS, "scenes/a.pix3scene": "old\n"})
    (root / "node_modules").symlink_to(node_modules)
    with dev_server(root, wait_vite=True) as server, chromium_with_port(chromium, tmp_path / "profile") as devtools:
        editor_url = server.record()["editorUrl"] + "?test"  # with the page's test hooks
        async with trio.open_nursery() as nursery:
            async with open_page(devtools, editor_url, nursery) as first:
                first_id = await first.wait_for(
                    "(() => { const s = window.__PIX3_DEBUG__?.call && window.__PIX3_DEBUG__;"
                    " return s && document.getElementById('pix3-writer').textContent === 'this tab'"
                    " && document.getElementById('pix3-tab').textContent; })()"
                )
                status = await first.debug("pix3_status")
                assert (status["connection"], status["writerId"], status["writer"]) == ("open", first_id, "self")
                assert status["project"] == "game"
                assert await first.evaluate("document.getElementById('pix3-project').textContent") == "game"

                # the flush client of `pix3 check` makes the page write its unsaved document
                await first.evaluate(f"window.__PIX3_TEST__.addUnsaved('scenes/a.pix3scene', {json.dumps(SCENE)})")
                outcome = await trio.to_thread.run_sync(flush_editor, root)
                assert (outcome.status, outcome.note) == (
                    "flushed",
                    f"editor at http://localhost:{server.port}/ flushed its unsaved scenes",
                )
                assert (root / "scenes" / "a.pix3scene").read_bytes() == SCENE.encode()
                assert (await first.debug("pix3_status"))["dirty"] == []

                # a plain POST does the same
                await first.evaluate("window.__PIX3_TEST__.addUnsaved('scenes/b.pix3scene', 'b: 1\\n')")
                async with httpx.AsyncClient(timeout=30) as client:
                    reply = await client.post(f"{server.url}/__pix3/api/flush", headers={"X-Pix3": "1"})
                assert reply.json() == {"ok": True, "saved": ["scenes/b.pix3scene"], "editor": True, "flushed": True}
                assert (root / "scenes" / "b.pix3scene").read_text() == "b: 1\n"

                # the page's own sync barrier
                synced = await first.debug("pix3_sync")
                assert (synced["ok"], synced["editor"], synced["tabId"]) == (True, True, first_id)

                # a second tab claims the writer: the first becomes read-only
                async with open_page(devtools, editor_url, nursery) as second:
                    second_id = await second.wait_for(
                        "document.getElementById('pix3-writer').textContent === 'this tab'"
                        " && document.getElementById('pix3-tab').textContent"
                    )
                    assert second_id != first_id
                    await first.wait_for(
                        f"window.__PIX3_DEBUG__.call('pix3_status').then(s => s.writerId === {second_id!r}"
                        " && s.writer === 'other')"
                    )
                    await first.evaluate("window.__PIX3_TEST__.addUnsaved('scenes/a.pix3scene', 'stale\\n')")
                    refused = await first.evaluate("window.__PIX3_TEST__.flush()")
                    assert refused == {
                        "ok": False,
                        "reason": "write_failed",
                        "saved": [],
                        "failed": ["scenes/a.pix3scene"],
                    }
                    assert (root / "scenes" / "a.pix3scene").read_bytes() == SCENE.encode()
                    assert "read-only" in await first.evaluate("document.getElementById('pix3-writer').textContent")
                    async with httpx.AsyncClient() as client:
                        hello = (await client.get(f"{server.url}/__pix3/api/hello")).json()
                    assert hello["writerId"] == second_id and set(hello["tabs"]) == {first_id, second_id}

            # HMR through our port: a module edit reaches the open game page without a reload
            async with open_page(devtools, f"http://localhost:{server.port}/", nursery) as game:
                # An edit made before the client's HMR socket is open is never announced to it: the
                # page is reloaded with a probe that says when that socket opens, and the test waits.
                await game.call("Page.enable")
                await game.call("Page.addScriptToEvaluateOnNewDocument", {"source": HMR_PROBE})
                await game.call("Page.reload")
                await game.wait_for("document.getElementById('out').textContent === 'v1'")
                await game.wait_for("window.__pix3HmrOpen === true")
                await game.evaluate("window.__marker = 'same page'")
                (root / "src" / "main.js").write_text(MAIN_JS.replace('"v1"', '"v2"'))
                await game.wait_for("document.getElementById('out').textContent === 'v2'", within=30)
                assert await game.evaluate("window.__marker") == "same page"
            nursery.cancel_scope.cancel()


# A page on another loopback origin (another local server: an npm package's, a tool's) imports
# modules from the dev server: Chromium sends `Sec-Fetch-Dest: script` and an Origin that Vite
# 6.2.0's default CORS admits, so what Vite answers the page can read (issue 31, items 2 and 4).
IMPORT_AND_READ = """(async () => {
  try {
    const value = String((await import(%s)).default);
    return value.includes("base64,") ? atob(value.split("base64,")[1]) : decodeURIComponent(value);
  } catch (error) { return "refused: " + error; }
})()"""


@contextlib.contextmanager
def _blank_site() -> Iterator[int]:
    """An HTTP server on its own loopback port answering every GET with an empty page."""

    class Blank(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>elsewhere</title>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Blank)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _vite_port(server: DevServer) -> int:
    """Vite's own port, from its command line (the dev server gives it `--port`)."""
    argv = Path(f"/proc/{hello(server)['vite']['pid']}/cmdline").read_bytes().split(b"\0")
    return int(argv[argv.index(b"--port") + 1])


async def test_a_page_elsewhere_imports_nothing_outside_the_project_through_us(
    tmp_path: Path, chromium: str, node_modules: Path
) -> None:
    """The pinned vulnerable Vite 6.2.0 behind the door; each import leaks from Vite's own port
    (the control) and is refused through ours."""
    root = make_project(tmp_path / "game", {"index.html": INDEX, "src/main.js": MAIN_JS})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>pix3-leak-out</text></svg>\n')
    (outside / "secret.txt").write_text("pix3-leak-out\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "vite").symlink_to(node_modules / "vite-6.2.0")
    probes = [
        f"{outside}/secret.svg",  # no query: Chromium's own `Sec-Fetch-Dest: script`
        f"{outside}/secret.svg?import",
        f"/@fs{root}/?/../../outside/secret.txt?import&?raw",
    ]
    with (
        dev_server(root, wait_vite=True) as server,
        _blank_site() as elsewhere,
        chromium_with_port(chromium, tmp_path / "profile") as devtools,
    ):
        vite_port = await trio.to_thread.run_sync(_vite_port, server)
        async with (
            trio.open_nursery() as nursery,
            open_page(devtools, f"http://127.0.0.1:{elsewhere}/", nursery) as page,
        ):
            await page.wait_for("document.title === 'elsewhere'")
            for probe in probes:
                control = await page.evaluate(IMPORT_AND_READ % json.dumps(f"http://127.0.0.1:{vite_port}{probe}"))
                assert "pix3-leak-out" in control, (probe, control)
                ours = await page.evaluate(IMPORT_AND_READ % json.dumps(f"http://127.0.0.1:{server.port}{probe}"))
                assert ours.startswith("refused: ") and "pix3-leak-out" not in ours, (probe, ours)
            nursery.cancel_scope.cancel()
