"""The agents at work, seen on real Chromium (docs/editor.md, "Watching the agents"): puppeteer
(`?client=alpha`) and playwright (`?client=bravo`) each keep a tab of a colour busy; `pix3 editor
--watch --json` names both with their tab URLs and last methods within 3 s; the recent calls show
the `Authorization` header they set as redacted; `pix3 editor --kick alpha` ends alpha (its tab
gone within 2 s) and bravo goes on working."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from pix3net.daemon.chromerecord import read_record
from pix3net.owner.control import start_owner
from tests.support.chrome import QUIET_CHROME_FLAGS, real_chrome_wrapper
from tests.support.colour_agents import colour_agent, page_urls, stop_agent
from tests.support.pix3 import pix3_argv, pix3_env, run_pix3
from tests.support.ports import free_port
from tests.support.processes import kill_owner

pytestmark = [pytest.mark.chromium, pytest.mark.node, pytest.mark.e2e]

EDITOR_URL = "data:text/html,<title>pix3 editor stand-in</title>"
# The bounds: both clients listed within 3 s of the view starting; a kicked client's tab
# gone within 2 s.
LISTED_SECONDS = 3.0
GONE_SECONDS = 2.0


@pytest.fixture
def owner(tmp_path: Path, chromium: str) -> Iterator[tuple[Path, int, str]]:
    home = tmp_path / "pix3-home"
    port = free_port()
    wrapper = real_chrome_wrapper(tmp_path, chromium, *QUIET_CHROME_FLAGS)
    started = trio.run(
        lambda: start_owner(
            home, chrome=str(wrapper), port=port, profile=str(home / "chrome"), url=EDITOR_URL, headless=True
        )
    )
    try:
        assert read_record(home) is not None
        yield home, port, (home / "cdp-token").read_text().strip()
    finally:
        kill_owner(home, started.pid)


def test_watch_names_puppeteer_and_playwright_and_kick_ends_one(
    owner: tuple[Path, int, str], node_modules: Path, tmp_path: Path
) -> None:
    home, port, token = owner
    alpha = colour_agent("puppeteer", port, token, "alpha", "red", node_modules)
    bravo = colour_agent("playwright", port, token, "bravo", "blue", node_modules)
    watch = subprocess.Popen(
        pix3_argv("editor", "--watch", "--json"),
        cwd=tmp_path,
        env=pix3_env({"PIX3_HOME": str(home)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert watch.stdout is not None
        started = time.monotonic()
        named: dict[str, dict[str, Any]] = {}
        titled = {"alpha": "red", "bravo": "blue"}
        while set(named) != set(titled) or not all(
            c["tabs"] and c["tabs"][0]["title"] == titled[n] and c["lastMethod"] for n, c in named.items()
        ):
            assert time.monotonic() - started < LISTED_SECONDS, json.dumps(named, indent=1)[:3000]
            frame = json.loads(watch.stdout.readline())
            named = {c["name"]: c for c in frame["clients"] if c["name"] in ("alpha", "bravo")}
        assert frame["editorTab"]["url"] == EDITOR_URL and frame["editorTab"]["answering"] is True
        assert named["alpha"]["tabs"][0]["url"].startswith("data:text/html,<title>red</title>")
        assert named["bravo"]["tabs"][0]["url"].startswith("data:text/html,<title>blue</title>")
        # The user agents say Puppeteer / Playwright-ish things; the names are the agents'.
        assert named["alpha"]["userAgent"] != "alpha"

        # The recent calls: each sets an Authorization header on its tab; the view shows it redacted.
        while not all(any(r["method"] == "Network.setExtraHTTPHeaders" for r in c["recent"]) for c in named.values()):
            assert time.monotonic() - started < LISTED_SECONDS + 5, named
            frame = json.loads(watch.stdout.readline())
            named = {c["name"]: c for c in frame["clients"] if c["name"] in ("alpha", "bravo")}
        for client in named.values():
            [headers, *_] = [r for r in client["recent"] if r["method"] == "Network.setExtraHTTPHeaders"]
            # puppeteer writes the header's name in lower case, playwright as given
            assert {k.lower(): v for k, v in headers["params"]["headers"].items()} == {"authorization": "<redacted>"}
            assert headers["target"] == client["tabs"][0]["targetId"]
        seen = json.dumps(frame)
        assert "secret" not in seen and token not in seen

        # Kick alpha: it is told, its tab goes within 2 s, bravo keeps working.
        pages = page_urls(port, token)
        alpha_tab = named["alpha"]["tabs"][0]["targetId"]
        assert alpha_tab in pages.values()
        bravo_calls = named["bravo"]["calls"]
        done = run_pix3("editor", "--kick", "alpha", cwd=tmp_path, env={"PIX3_HOME": str(home)})
        kicked = time.monotonic()
        assert done.returncode == 0, done.stderr
        assert "Ended client #" in done.stdout and "(alpha)" in done.stdout
        while alpha_tab in page_urls(port, token).values():
            assert time.monotonic() - kicked < GONE_SECONDS
            time.sleep(0.1)
        out, _ = alpha.communicate(timeout=10)
        assert json.loads(out.strip().splitlines()[-1])["ended"]
        time.sleep(1.5)
        frame = json.loads(watch.stdout.readline())
        names = [c["name"] for c in frame["clients"]]
        assert "alpha" not in names
        [bravo_now] = [c for c in frame["clients"] if c["name"] == "bravo"]
        assert bravo_now["calls"] > bravo_calls and bravo.poll() is None
        assert named["bravo"]["tabs"][0]["targetId"] in page_urls(port, token).values()
    finally:
        watch.send_signal(signal.SIGINT)
        watch.communicate(timeout=10)
        for child in (alpha, bravo):
            stop_agent(child)
