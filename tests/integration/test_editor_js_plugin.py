"""A project that installs the reference JS plugin runs plain Vite, which writes dev.json itself
(docs/editor.md, "The flow", step 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.chrome import fake_chrome_wrapper
from tests.support.pix3 import run_pix3
from tests.support.ports import free_port
from tests.support.processes import pid_alive, wait_gone
from tests.support.projects import make_project

# A stand-in for the reference plugin: answers hello and writes dev.json once Vite listens.
FAKE_PLUGIN_CONFIG = """import fs from "node:fs";
export default {
  plugins: [{
    name: "fake-pix3",
    configureServer(server) {
      server.middlewares.use("/__pix3/api/hello", (req, res) => {
        res.setHeader("content-type", "application/json");
        res.end('{"ok":true}');
      });
      server.httpServer.once("listening", () => {
        const port = server.httpServer.address().port;
        const url = `http://localhost:${port}/`;
        fs.mkdirSync(".pix3", { recursive: true });
        const info = { url, editorUrl: url + "__pix3/", port, pid: process.pid };
        fs.writeFileSync(".pix3/dev.json", JSON.stringify(info, null, 2) + "\\n");
      });
    },
  }],
};
"""


@pytest.mark.node
def test_plain_vite_with_the_reference_plugin(tmp_path: Path, pix3_home: Path, node_modules: Path) -> None:
    root = make_project(tmp_path / "game")
    plugin = root / "node_modules" / "@pix3" / "vite-plugin"
    plugin.mkdir(parents=True)
    (plugin / "package.json").write_text('{"name": "@pix3/vite-plugin", "version": "0.0.0-test"}\n')
    (root / "node_modules" / "vite").symlink_to(node_modules / "vite")
    (root / "vite.config.mjs").write_text(FAKE_PLUGIN_CONFIG)
    (root / "index.html").write_text("<!doctype html><title>game</title>\n")
    port = free_port()
    done = run_pix3("editor", "--no-chrome", "--port", str(port), cwd=root)
    pid = json.loads((root / ".pix3" / "dev.json").read_text())["pid"] if (root / ".pix3" / "dev.json").exists() else 0
    try:
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(
            f"Dev server: http://localhost:{port}/ (pid {pid}, started; log in .pix3/dev.log)"
        )
        assert "VITE" in (root / ".pix3" / "dev.log").read_text()
        assert b"vite/bin/vite.js" in Path(f"/proc/{pid}/cmdline").read_bytes()  # plain Vite, not ours
    finally:
        if pid:
            done = run_pix3("editor", "--stop", cwd=root)
            assert wait_gone(pid) or not pid_alive(pid)
    assert done.stdout == f"Stopped the dev server (pid {pid}).\n"


@pytest.mark.node
@pytest.mark.parametrize("chrome", [False, True])
def test_reference_plugin_without_vite(tmp_path: Path, pix3_home: Path, chrome: bool) -> None:
    """Said before anything starts: with Chrome wanted too (a cold start launches Chrome before the
    server), no Chrome is launched for a server that cannot be."""
    root = make_project(tmp_path / "game")
    plugin = root / "node_modules" / "@pix3" / "vite-plugin"
    plugin.mkdir(parents=True)
    (plugin / "package.json").write_text('{"name": "@pix3/vite-plugin"}\n')
    wrapper = fake_chrome_wrapper(tmp_path)
    flags = ("--headless", "--cdp-port", str(free_port())) if chrome else ("--no-chrome",)
    done = run_pix3("editor", *flags, cwd=root, env={"PIX3_CHROME": str(wrapper)})
    assert done.returncode == 1
    assert done.stderr == (
        f"pix3 editor: No vite in {root} (node_modules/vite/bin/vite.js): run `npm install` in the project first.\n"
    )
    assert not (tmp_path / "fake-chrome.argv").exists() and not (pix3_home / "chrome-owner.log").exists()
