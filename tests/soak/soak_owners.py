"""50 agents come and go on one shared Chrome (docs/reliability.md, "One shared Chrome stays
clean"): chrome-devtools-mcp 1.11.0 started 50 times on one owner, each session one `new_page`
(every other one in an `isolatedContext`) and then its exit. Chrome must be back to the editor
tab alone, no browser context left, and its resident memory within 15 % of the start.

Each session starts Node, so this is `just soak owners`; `just test` runs 6 in
tests/e2e/test_chrome_owners.py.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import trio

from pix3net.clients import cdpsocket
from pix3net.daemon.memory import chrome_memory
from tests.soak._report import Figure
from tests.soak.soak_proxy import start, stop
from tests.support.mcp import new_page_session
from tests.support.node import node_modules_dir

AREA = "owners"
SESSIONS = 50
MEMORY_MARGIN = 0.15  # the bound
CLEAN_SECONDS = 5.0  # the grace is 1 s; Chrome closes tabs and contexts in well under a second


def _state(port: int, token: str) -> tuple[int, int]:
    infos = cdpsocket.call(port, token, "Target.getTargets")["targetInfos"]
    contexts = cdpsocket.call(port, token, "Target.getBrowserContexts")["browserContextIds"]
    return sum(1 for t in infos if t["type"] == "page"), len(contexts)


def _settle(port: int, token: str) -> tuple[int, int]:
    deadline = time.monotonic() + CLEAN_SECONDS
    while True:
        state = _state(port, token)
        if state == (1, 0) or time.monotonic() > deadline:
            return state
        time.sleep(0.1)


def run(minutes: float) -> list[Figure]:
    del minutes  # a count of sessions, not a time
    with tempfile.TemporaryDirectory(prefix="pix3-soak-owners-") as folder:
        root = Path(folder)
        owner = trio.run(start, root, "owner")
        try:
            config = root / "cdp-mcp.json"
            headers = json.dumps({"Authorization": f"Bearer {owner.token}"}, separators=(",", ":"))
            config.write_text(json.dumps({"wsEndpoint": f"ws://127.0.0.1:{owner.port}/pix3", "wsHeaders": headers}))
            config.chmod(0o600)
            new_page_session(node_modules_dir(), config, True, -1)  # warm up (first context, first renderer)
            _settle(owner.port, owner.token)
            before = chrome_memory(owner.chrome_pid)
            started = time.monotonic()
            for index in range(SESSIONS):
                new_page_session(node_modules_dir(), config, index % 2 == 1, index)
            took = time.monotonic() - started
            pages, contexts = _settle(owner.port, owner.token)
            time.sleep(1.0)
            after = chrome_memory(owner.chrome_pid)
        finally:
            stop(owner)
    assert before is not None and after is not None
    ratio = after[0] / before[0]
    note = f"{before[0] / 2**20:.0f} → {after[0] / 2**20:.0f} MiB, {before[1]} → {after[1]} processes"
    return [
        Figure(AREA, f"{SESSIONS} chrome-devtools-mcp sessions: pages left besides the editor tab", pages - 1, "", 0),
        Figure(AREA, "browser contexts left", contexts, "", 0),
        Figure(AREA, "Chrome's resident memory after / before", ratio, "x", 1 + MEMORY_MARGIN, note),
        Figure(AREA, "seconds per session (start Node, new_page, exit)", took / SESSIONS, "s", None),
    ]
