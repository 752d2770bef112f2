"""`pix3 editor` reusing a Chrome that runs headless (docs/editor.md, "The flow", step 9): the
`Chrome:` line says `(headless)`, and someone who did not ask for --headless learns there is no
window and how to get one. The fake Chrome says `HeadlessChrome` in its user agent when started
with --headless, as Chrome does; both reuse paths are taken (the tab open, and a tab to open)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.chrome import fake_chrome_wrapper
from tests.support.editor import hello_server, write_dev_json
from tests.support.pix3 import run_pix3
from tests.support.ports import free_port
from tests.support.processes import Cleanup, wait_gone
from tests.support.projects import make_project

NOTE = (
    "            That Chrome runs headless, so it has no window: for one, stop it with `pix3 editor --stop-chrome`"
    " (the editor tabs of every project in it close), then run `pix3 editor` without --headless.\n"
)


def test_a_reused_headless_chrome_says_so_and_how_to_get_a_window(
    tmp_path: Path, pix3_home: Path, cleanup: Cleanup
) -> None:
    game, other = make_project(tmp_path / "game"), make_project(tmp_path / "other")
    env = {"PIX3_CHROME": str(fake_chrome_wrapper(tmp_path))}
    cdp = ("--cdp-port", str(free_port()))
    with hello_server() as port, hello_server() as other_port:
        write_dev_json(game, port)
        write_dev_json(other, other_port)
        started = run_pix3("editor", "--headless", *cdp, cwd=game, env=env)
        record = json.loads((pix3_home / "chrome.json").read_text())
        cleanup.pids.append(record["ownerPid"])
        assert started.returncode == 0, started.stdout + started.stderr
        assert "Chrome:     launched behind the CDP proxy" in started.stdout

        # A window wanted, the tab open already (reuse.py: one probe).
        windowed = run_pix3("editor", *cdp, cwd=game, env=env)
        assert windowed.returncode == 0, windowed.stderr
        chrome = [line for line in windowed.stdout.splitlines(keepends=True) if line.startswith(("Chrome:", "   "))]
        assert chrome[0].startswith("Chrome:     FakeChrome/1.0 (headless) already behind ws://127.0.0.1:")
        assert chrome[0].endswith("; the editor tab is open there.\n") and chrome[1] == NOTE

        # --headless asked for: the line says it, and nothing more is needed.
        asked = run_pix3("editor", "--headless", *cdp, cwd=game, env=env)
        assert asked.returncode == 0 and "FakeChrome/1.0 (headless) already behind" in asked.stdout
        assert "--stop-chrome" not in asked.stdout

        # Another project: its tab is opened in that Chrome (chromestep.py's reuse), and said the same way.
        opened = run_pix3("editor", *cdp, cwd=other, env=env)
        assert opened.returncode == 0, opened.stdout + opened.stderr
        assert "(headless) already behind" in opened.stdout and "; opened the editor in a new tab.\n" in opened.stdout
        assert NOTE in opened.stdout

    stopped = run_pix3("editor", "--stop-chrome", cwd=tmp_path)
    assert stopped.returncode == 0 and wait_gone(record["ownerPid"])
