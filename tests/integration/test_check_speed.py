"""`pix3 check` costs about the type-check alone: tsc starts before the heavy Python work, which
then runs while tsc does (docs/check.md, "Speed"; the ratio itself is `just bench tools`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.node import node_modules_dir
from tests.support.pix3 import pix3_env, run_pix3

# Runs `pix3 check` in this interpreter and records, when tsc is started, which modules are loaded.
PROBE = """
import json, runpy, subprocess, sys
seen = {}
def hook(event, args):
    if event == "subprocess.Popen" and "tsc.js" in " ".join(map(str, args[1])) and not seen:
        seen["modules"] = sorted(sys.modules)
sys.addaudithook(hook)
sys.argv = ["pix3net", *sys.argv[2:]]
try:
    runpy.run_module("pix3net", run_name="__main__", alter_sys=True)
finally:
    with open(OUT, "w") as f:
        json.dump(seen, f)
"""
# and what nothing before tsc needs: dataclasses (with inspect), the HTTP client of the flush (no server here)
HEAVY = (
    "pix3tools.validate",
    "pix3tools.scene",
    "pix3tools.check._chain",
    "ruamel",
    "dataclasses",
    "inspect",
    "http.client",
)


@pytest.mark.node
def test_tsc_starts_before_validate_and_the_scene_model_load(tmp_path: Path) -> None:
    assert run_pix3("new", "2d", "game", cwd=tmp_path).returncode == 0
    root = tmp_path / "game"
    (root / "node_modules").mkdir()
    for package in ("typescript", "vite"):
        os.symlink(node_modules_dir() / package, root / "node_modules" / package)
    out = tmp_path / "seen.json"
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE.replace("OUT", repr(str(out))))
    done = subprocess.run(
        [sys.executable, str(probe), "pix3", "check", "--no-sync", "--no-hydrate", "--json"],
        cwd=root, env=pix3_env(), capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert report["typecheck"]["typescript"] is not None, done.stderr
    loaded = json.loads(out.read_text())["modules"]
    early = [name for name in loaded if name.startswith(HEAVY)]
    assert early == [], f"loaded before tsc started: {early}"
