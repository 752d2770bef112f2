"""A new project without node_modules is served by the embedded dev server (the README's demo)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx

from pix3tools.core.commandtable import HIDDEN
from tests.support.pix3 import pix3_argv, pix3_env, run_pix3
from tests.support.ports import free_port


def test_the_2d_starter_is_served_without_node_modules(tmp_path: Path, pix3_home: Path) -> None:
    assert "__dev-server" in HIDDEN  # a build without the dev server fails here, it does not skip
    assert run_pix3("new", "2d", "demo", "--name", "Demo", cwd=tmp_path).returncode == 0
    project = tmp_path / "demo"
    port = free_port()
    log = (tmp_path / "dev-server.log").open("wb")
    server = subprocess.Popen(
        pix3_argv("__dev-server", "--project", str(project), "--port", str(port)),
        env=pix3_env(),
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        record = project / ".pix3" / "dev.json"
        deadline = time.monotonic() + 30
        while not record.is_file() and time.monotonic() < deadline:
            assert server.poll() is None, (tmp_path / "dev-server.log").read_text()
            time.sleep(0.1)
        url = json.loads(record.read_text())["url"]
        with httpx.Client(base_url=url, timeout=10) as client:
            page = client.get("/")
            assert page.status_code == 200 and "<title>Demo</title>" in page.text
            assert client.get("/__pix3/").status_code == 200
            assert client.get("/__pix3/api/hello").status_code == 200
            scene = client.get("/scenes/main.pix3scene")
            assert scene.status_code == 200 and "Group2D" in scene.text
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
