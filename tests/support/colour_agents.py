"""Long-lived agents of the CDP proxy that each keep a tab of one colour busy
(tests/e2e/chrome_js/agent_client.cjs): puppeteer or playwright, named with ``?client=``, for the
views of the agents (docs/editor.md, "Watching the agents")."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from pathlib import Path

from pix3net.clients import cdpsocket

JS = Path(__file__).resolve().parent.parent / "e2e" / "chrome_js"


def colour_agent(
    library: str, port: int, token: str, name: str, colour: str, node_modules: Path
) -> subprocess.Popen[str]:
    """Start one agent (``puppeteer`` or ``playwright``) named ``name`` with a tab of ``colour``;
    returns once it printed that it is ready."""
    child = subprocess.Popen(
        ["node", str(JS / "agent_client.cjs"), library, f"ws://127.0.0.1:{port}/pix3?client={name}", token, colour],
        env={**os.environ, "NODE_PATH": str(node_modules)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert json.loads(line or "{}").get("ready"), (library, line, child.stderr.read() if child.stderr else "")
    return child


def stop_agent(child: subprocess.Popen[str]) -> None:
    """Close its stdin (it ends itself), killed after 10 s."""
    if child.returncode is not None:
        return
    with contextlib.suppress(OSError, ValueError):
        if child.stdin is not None:
            child.stdin.close()
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    for stream in (child.stdout, child.stderr):
        if stream is not None:
            stream.close()


def page_urls(port: int, token: str) -> dict[str, str]:
    """The browser's pages now: URL → target id."""
    infos = cdpsocket.call(port, token, "Target.getTargets")["targetInfos"]
    return {t["url"]: t["targetId"] for t in infos if t["type"] == "page"}
