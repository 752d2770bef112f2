"""What the editor page's Agents panel costs Chrome (issue 32; docs/cdp-proxy.md, "The editor
page's Agents view"): the CPU of Chrome's whole process tree (from /proc, tests/bench/_cpu.py)
over a fixed window with three agents' tabs open, the panel open against the panel closed —
target ≤ 1.15×.

`pix3 editor --headless` on a bare project; three clients of the proxy (our own CDP client,
named with ``?client=``) each keep one tab: one moving (a CSS animation), two still. A session
on the editor tab opens and closes the panel with its header button, as a person would. The two
sides alternate in every round (closed, open, then open, closed: a drift of the machine's load
hits both alike); each window starts after the panel had time to settle. Medians over the rounds.
Everything started is stopped at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pix3net.clients import cdpsocket
from pix3net.commands.editor.proxycalls import page_id
from tests.bench._cpu import snapshot, ticks_per_second
from tests.bench._report import Result, editor_scratch, pix3_env
from tests.support.ports import free_port

AREA = "agents"
# Rounds of (closed, open) windows; the median of each side is the row. Many short windows rather
# than a few long ones: on the shared 2-core machine the load drifts within a minute, and the
# sides must take turns often to see the same load (about three minutes in all).
ROUNDS = 8
# One window: a still tab's slowest picture (every 8 s) falls in it about once.
WINDOW_SECONDS = 8.0
# After the panel opens or closes: its first pushes take every tab's picture at once (the
# opening's cost, part of what the windows measure from here on, not hidden by a long settle).
SETTLE_SECONDS = 3.0
# The bound: with the panel open on three tabs, Chrome's CPU grows by at most 15 %.
TARGET = 1.15

# A moving page (a box sliding, repainted every frame) and two still ones.
MOVING = (
    "data:text/html,<title>moving</title><style>@keyframes s{from{left:0}to{left:80%}}"
    "div{position:absolute;top:40%;width:20%;height:20%;background:%23c33;animation:s 2s linear infinite alternate}"
    "</style><div></div>"
)
STILL = "data:text/html,<title>{0}</title><body style='background:{0}'><h1>{0}</h1>"
# (name, url, a window of its own): the moving page is shown (a tab behind another in its window
# is hidden and paints nothing), the still ones are tabs of one window, as a library's new pages are.
# The moving one comes last: a new tab opens in the window last opened.
TABS = (
    ("bench-green", STILL.format("green"), False),
    ("bench-blue", STILL.format("blue"), False),
    ("bench-moving", MOVING, True),
)
TOGGLE = 'document.getElementById("pix3-agents-toggle").click(); document.getElementById("pix3-agents-panel").hidden'
# The pictures the open panel shows (drawn: decoded, non-empty).
PICTURES = "[...document.querySelectorAll('#pix3-agents-list img')].filter((i) => !i.hidden && i.naturalWidth).length"


def _pix3(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "pix3net", *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)


def _evaluate(page: cdpsocket.Session, expression: str) -> Any:
    answer = page.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    if "exceptionDetails" in answer:
        raise RuntimeError(f"the editor page threw: {answer['exceptionDetails']}")
    return answer["result"].get("value")


def _set_panel(page: cdpsocket.Session, open_: bool) -> None:
    hidden = _evaluate(page, 'document.getElementById("pix3-agents-panel").hidden')
    if hidden == open_:
        hidden = _evaluate(page, TOGGLE)
    if hidden == open_:
        raise RuntimeError(f"the Agents panel did not {'open' if open_ else 'close'}")


def _window(chrome: int) -> float:
    """Chrome's CPU over one window, in % of a core."""
    before, started = snapshot([chrome]), time.monotonic()
    time.sleep(WINDOW_SECONDS)
    used, wall = snapshot([chrome]) - before, time.monotonic() - started
    return 100.0 * used / ticks_per_second() / wall


def measure(rounds: int = ROUNDS, log: bool = False) -> tuple[list[float], list[float]]:
    """(closed, open): Chrome's CPU per window, in % of a core."""
    chromium = os.environ.get("PIX3_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    scratch, home, project, wrapper = editor_scratch("pix3-bench-agents-", chromium)
    env = {**pix3_env(), "PIX3_HOME": str(home), "PIX3_CHROME": str(wrapper)}
    sessions: list[cdpsocket.Session] = []
    closed: list[float] = []
    opened: list[float] = []
    try:
        done = _pix3(["editor", "--headless", "--cdp-port", str(free_port()), "--port", str(free_port())], project, env)
        if done.returncode != 0:
            raise RuntimeError(f"pix3 editor did not start:\n{done.stdout}{done.stderr}")
        record = json.loads((home / "chrome.json").read_text())
        port, chrome = record["port"], record["chromePid"]
        token = (home / "cdp-token").read_text().strip()
        for name, url, window in TABS:
            client = cdpsocket.open_session(port, token, f"/pix3?client={name}", timeout=15)
            sessions.append(client)
            client.call("Target.createTarget", {"url": url, "newWindow": window})
        editor_url = json.loads((project / ".pix3" / "dev.json").read_text())["editorUrl"]
        editor = page_id(port, token, editor_url)
        if editor is None:
            raise RuntimeError(f"no editor tab at {editor_url}")
        page = cdpsocket.open_session(port, token, f"/pix3/page/{editor}?client=bench-person", timeout=15)
        sessions.append(page)
        deadline = time.monotonic() + 30
        while _evaluate(page, 'typeof document.getElementById("pix3-agents-toggle")?.click') != "function":
            if time.monotonic() > deadline:
                raise RuntimeError("the editor page has no Agents button after 30 s")
            time.sleep(0.2)
        time.sleep(SETTLE_SECONDS)
        for i in range(rounds):
            order = (False, True) if i % 2 == 0 else (True, False)
            for open_ in order:
                _set_panel(page, open_)
                time.sleep(SETTLE_SECONDS)
                cpu = _window(chrome)
                if open_ and (shown := _evaluate(page, PICTURES)) < len(
                    TABS
                ):  # a view that shows nothing costs nothing
                    raise RuntimeError(f"the open Agents panel shows {shown} pictures of the {len(TABS)} tabs")
                (opened if open_ else closed).append(cpu)
                if log:
                    print(f"round {i} {'open  ' if open_ else 'closed'} {cpu:5.2f} %", file=sys.stderr, flush=True)
        _set_panel(page, False)
    finally:
        for session in sessions:
            with contextlib.suppress(OSError):
                session.close()
        with contextlib.suppress(Exception):
            for stop in (["editor", "--stop-chrome"], ["editor", "--stop"]):
                _pix3(stop, project, env)
        record_path = home / "chrome.json"
        if record_path.exists():
            with contextlib.suppress(Exception):
                os.kill(json.loads(record_path.read_text())["ownerPid"], signal.SIGTERM)
        shutil.rmtree(scratch, ignore_errors=True)
    return closed, opened


def run() -> list[Result]:
    closed, opened = measure()
    spread = (
        f"{ROUNDS} rounds of {WINDOW_SECONDS:.0f} s; closed {min(closed):.1f}–{max(closed):.1f} %,"
        f" open {min(opened):.1f}–{max(opened):.1f} % of a core"
    )
    return [
        Result(
            AREA,
            "Chrome's CPU, Agents panel open on 3 tabs vs closed",
            statistics.median(opened),
            statistics.median(closed),
            TARGET,
            unit="%",
            note=spread,
        )
    ]


if __name__ == "__main__":  # one run with each window's number: `python -m tests.bench.bench_agents [rounds]`
    closed, opened = measure(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS, log=True)
    print(f"closed median {statistics.median(closed):.2f} %, open median {statistics.median(opened):.2f} %,"
          f" ratio {statistics.median(opened) / statistics.median(closed):.3f}")  # fmt: skip
