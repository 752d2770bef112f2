"""The editor page's Agents view on real Chromium (docs/editor.md, "Watching the agents"; docs/
cdp-proxy.md, "The editor page's Agents view"): `pix3 editor --headless` on a project, puppeteer
(`?client=alpha`) keeping a red tab busy and playwright (`?client=bravo`) a blue one; `pix3_agents`
called in the editor page returns both, named, with their tabs and a JPEG thumbnail each (at most
320 px wide) whose colour is the tab's; the Agents panel shows them (its screenshot is kept); its
Kick button ends alpha — its tab gone within 2 s — and bravo keeps working."""

from __future__ import annotations

import base64
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from pix3net.clients import cdpsocket
from pix3net.commands.editor.proxycalls import page_id
from tests.support.chrome import chrome_wrapper
from tests.support.colour_agents import colour_agent, page_urls, stop_agent
from tests.support.editor import start_headless_editor, stop_headless_editor
from tests.support.editor_page import make_game_project
from tests.support.ports import free_port
from tests.support.processes import Cleanup

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e]

# Both agents with a thumbnail, from the first pix3_agents call: the owner pushes once a second and
# a fresh tab paints within a frame or two (generous for a loaded 2-core machine).
LISTED_SECONDS = 10.0
# The bound: a kicked client's tab gone within 2 s.
GONE_SECONDS = 2.0
# Set to a path to keep the panel's screenshot there (README's docs/agents-panel.png is one).
SHOT_ENV = "PIX3_AGENTS_PANEL_PNG"

# The colour at the centre of a thumbnail, drawn by the editor page itself (it decodes JPEG).
CENTRE = """async (url) => {
  const image = new Image();
  image.src = url;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.naturalWidth;
  canvas.height = image.naturalHeight;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const [r, g, b] = context.getImageData(canvas.width >> 1, canvas.height >> 1, 1, 1).data;
  return {width: image.naturalWidth, height: image.naturalHeight, rgb: [r, g, b]};
}"""


def _evaluate(page: cdpsocket.Session, expression: str) -> Any:
    answer = page.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True})
    assert "exceptionDetails" not in answer, answer
    return answer["result"].get("value")


def _agents(page: cdpsocket.Session) -> dict[str, Any]:
    value: dict[str, Any] = _evaluate(page, 'window.__PIX3_DEBUG__.call("pix3_agents", {})')
    return value


def _named(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in body.get("clients", []) if c["name"] in ("alpha", "bravo")}


def test_pix3_agents_and_the_panel_show_both_agents_with_their_pictures_and_kick_ends_one(
    tmp_path: Path, pix3_home: Path, chromium: str, node_modules: Path, cleanup: Cleanup
) -> None:
    game = make_game_project(tmp_path / "game")
    wrapper, _ = chrome_wrapper(tmp_path, chromium)
    env = {"PIX3_CHROME": str(wrapper), "PIX3_HOME": str(pix3_home)}
    record = start_headless_editor(game, env, pix3_home, cleanup, free_port())
    port, token = record["port"], (pix3_home / "cdp-token").read_text().strip()
    editor_url = json.loads((game / ".pix3" / "dev.json").read_text())["editorUrl"]
    editor = page_id(port, token, editor_url)
    assert editor is not None
    alpha = colour_agent("puppeteer", port, token, "alpha", "red", node_modules)
    bravo = colour_agent("playwright", port, token, "bravo", "blue", node_modules)
    page = cdpsocket.open_session(port, token, f"/pix3/page/{editor}?client=tester", timeout=15)
    try:
        deadline = time.monotonic() + 30
        while _evaluate(page, "typeof window.__PIX3_DEBUG__?.call") != "function":
            assert time.monotonic() < deadline, "the editor page did not start"
            time.sleep(0.2)

        # pix3_agents: both, named, with their tabs and a thumbnail each.
        started = time.monotonic()
        body = _agents(page)
        named = _named(body)
        while set(named) != {"alpha", "bravo"} or not all(
            c["tabs"] and c["tabs"][0]["thumbnail"] and c["lastMethod"] for c in named.values()
        ):
            binding = _evaluate(page, "typeof window.__PIX3_AGENTS_ASK__")
            assert time.monotonic() - started < LISTED_SECONDS, (binding, json.dumps(body)[:3000])
            time.sleep(0.3)
            body = _agents(page)
            named = _named(body)
        assert body["ok"] is True and body["editorTab"] == {"answering": True}
        for name, colour in (("alpha", "red"), ("bravo", "blue")):
            client = named[name]
            [tab] = client["tabs"]
            assert tab["title"] == colour and tab["url"].startswith(f"data:text/html,<title>{colour}</title>")
            assert tab["editor"] is False
            assert client["calls"] > 0 and client["errors"] == 0 and client["since"]
            assert "." in client["lastMethod"]  # whichever the library sent last (a domain's method)
            assert "recent" not in client  # the calls themselves stay with `pix3 editor --watch`
            assert tab["thumbnail"].startswith("data:image/jpeg;base64,")
            jpeg = base64.b64decode(tab["thumbnail"].split(",", 1)[1])
            assert jpeg[:3] == b"\xff\xd8\xff"
            seen = _evaluate(page, f"({CENTRE})({json.dumps(tab['thumbnail'])})")
            assert 0 < seen["width"] <= 320, seen
            red, green, blue = seen["rgb"]
            if colour == "red":
                assert red > 200 and green < 60 and blue < 60, seen
            else:
                assert blue > 200 and red < 60 and green < 60, seen
        assert token not in json.dumps(body)

        # The panel: open it, see both cards with their pictures, keep a screenshot.
        page.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
        )
        _evaluate(page, 'document.getElementById("pix3-agents-toggle").click()')
        deadline = time.monotonic() + LISTED_SECONDS
        shown = (
            "[...document.querySelectorAll('#pix3-agents-list img')].filter((i) => i.complete && i.naturalWidth).length"
        )
        while _evaluate(page, shown) < 2:
            assert time.monotonic() < deadline, _evaluate(page, "document.getElementById('pix3-agents-list').innerText")
            time.sleep(0.2)
        text = _evaluate(page, "document.getElementById('pix3-agents-list').innerText")
        assert "alpha" in text and "bravo" in text and "red" in text and "blue" in text
        time.sleep(0.5)  # the images drawn
        shot = base64.b64decode(page.call("Page.captureScreenshot", {"format": "png"})["data"])
        (tmp_path / "agents-panel.png").write_bytes(shot)
        if os.environ.get(SHOT_ENV):
            shutil.copyfile(tmp_path / "agents-panel.png", os.environ[SHOT_ENV])
        page.call("Emulation.clearDeviceMetricsOverride")

        # Kick alpha from the panel: its tab goes within 2 s, bravo keeps working.
        alpha_tab = named["alpha"]["tabs"][0]
        alpha_tabs = [t for u, t in page_urls(port, token).items() if u.startswith("data:text/html,<title>red</title>")]
        assert len(alpha_tabs) == 1
        bravo_calls = named["bravo"]["calls"]
        button = f'#pix3-agents-list button[data-kick="{named["alpha"]["client"]}"]'
        _evaluate(page, f"document.querySelector({json.dumps(button)}).click()")
        kicked = time.monotonic()
        while alpha_tabs[0] in page_urls(port, token).values():
            assert time.monotonic() - kicked < GONE_SECONDS, alpha_tab
            time.sleep(0.1)
        out, _ = alpha.communicate(timeout=10)
        assert json.loads(out.strip().splitlines()[-1])["ended"]
        time.sleep(1.5)
        body = _agents(page)
        assert "alpha" not in [c["name"] for c in body["clients"]]
        [bravo_now] = [c for c in body["clients"] if c["name"] == "bravo"]
        assert bravo_now["calls"] > bravo_calls and bravo.poll() is None
        assert any(u.startswith("data:text/html,<title>blue</title>") for u in page_urls(port, token))
        log = (pix3_home / "chrome-owner.log").read_text()
        assert f"client {named['alpha']['client']} (alpha): ended from the editor page's Agents panel" in log
    finally:
        page.close()
        for child in (alpha, bravo):
            stop_agent(child)
        stop_headless_editor(game, env, record)
