"""Find, start and stop the project's dev server (docs/editor.md, "The flow", steps 5–6).

`pix3 editor` reuses a live `.pix3/dev.json` (its hello answers within 2 s), else starts one
detached and waits up to 15 s for a new record that answers. The server is ours
(`pix3 __dev-server`) unless the project installs the reference JS plugin, which plain Vite runs.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pix3tools.core.devrecord import DEV_JSON, DEV_LOG, DevInfo, hello_url, read_dev_info

PROBE_TIMEOUT_S = 2.0  # the reference's dev-server probe
START_TIMEOUT_S = 15.0  # DEV_SERVER_START_TIMEOUT_MS
POLL_S = 0.2
LOG_TAIL_LINES = 15
STOP_WAIT_S = 5.0
JS_PLUGIN = "@pix3/vite-plugin"


class DevServerError(RuntimeError):
    pass


def probe_hello(url: str, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """``GET <url>__pix3/api/hello`` answers 2xx within the timeout (the body is not checked)."""
    target = urlsplit(hello_url(url))
    cls = http.client.HTTPSConnection if target.scheme == "https" else http.client.HTTPConnection
    if not target.hostname:
        return False
    conn = cls(target.hostname, target.port, timeout=timeout)
    try:
        conn.request("GET", target.path or "/")
        status = conn.getresponse().status
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()
    return 200 <= status < 300


@dataclass(frozen=True)
class Found:
    state: Literal["none", "live", "stale"]
    info: DevInfo | None


def find_dev_server(root: Path, probe: Callable[[str], bool] = probe_hello) -> Found:
    info = read_dev_info(root)
    if info is None:
        return Found("none", None)
    return Found("live" if probe(info.url) else "stale", info)


def find_upward(root: Path, relative: str) -> Path | None:
    """``node_modules/<relative>`` in ``root`` or the nearest ancestor that has it."""
    for folder in (root, *root.parents):
        candidate = folder / "node_modules" / relative
        if candidate.exists():
            return candidate
    return None


def find_vite_bin(root: Path) -> Path | None:
    return find_upward(root, "vite/bin/vite.js")


def uses_js_plugin(root: Path) -> bool:
    """The project installs the reference plugin: plain Vite writes dev.json, as the reference runs it."""
    return find_upward(root, f"{JS_PLUGIN}/package.json") is not None


def server_argv(root: Path, port: int | None) -> tuple[list[str], str]:
    """The detached command for this project, and how a failure names it."""
    if uses_js_plugin(root):
        vite = find_vite_bin(root)
        node = shutil.which("node")
        if vite is None or node is None:
            raise DevServerError(
                f"No vite in {root} (node_modules/vite/bin/vite.js): run `npm install` in the project first."
            )
        extra = ["--port", str(port), "--strictPort"] if port is not None else []
        return [node, str(vite), *extra], "vite"
    extra = ["--port", str(port)] if port is not None else []
    return [sys.executable, "-m", "pix3net", "__dev-server", "--project", str(root), *extra], "the dev server"


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip("\n").splitlines()[-lines:])


def start_dev_server(
    root: Path, port: int | None, previous: DevInfo | None, probe: Callable[[str], bool] = probe_hello
) -> DevInfo:
    """Start the server detached, its output in `.pix3/dev.log`; wait for a new record that answers."""
    argv, name = server_argv(root, port)
    record = root / DEV_JSON
    record.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        record.unlink()
    log = root / DEV_LOG
    env = {**os.environ, "FORCE_COLOR": "0"}
    # `python -m pix3net` in the project folder: this pix3net must be importable from there too.
    package_root = str(Path(__file__).resolve().parents[2])
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if package_root not in paths:
        env["PYTHONPATH"] = os.pathsep.join([package_root, *paths])
    log.write_bytes(b"")  # truncated: this start's log only
    # Append mode: the server opens the same file with O_APPEND; two offsets would overwrite.
    with open(log, "ab") as log_file:
        child = subprocess.Popen(
            argv,
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # detached: it outlives this command and its terminal
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    old_pid = previous.pid if previous is not None else None
    while True:
        code = child.poll()
        info = read_dev_info(root)
        if info is not None and info.pid != old_pid and probe(info.url):
            return info
        if code is not None:
            raise DevServerError(f"{name} exited with code {code} (see {DEV_LOG}):\n{_tail(log)}")
        if time.monotonic() >= deadline:
            with contextlib.suppress(OSError):  # do not leave a half-started server behind
                if hasattr(os, "killpg"):
                    os.killpg(child.pid, signal.SIGTERM)
                else:
                    child.terminate()
            raise DevServerError(
                f"the dev server did not write {DEV_JSON} within {int(START_TIMEOUT_S * 1000)} ms"
                f" (see {DEV_LOG}):\n{_tail(log)}"
            )
        time.sleep(POLL_S)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True)
class Stopped:
    stopped: bool
    pid: int | None


def stop_dev_server(root: Path, wait_s: float = STOP_WAIT_S) -> Stopped:
    """SIGTERM to the recorded pid; a record whose process cannot be signalled is removed."""
    info = read_dev_info(root)
    if info is None:
        return Stopped(False, None)
    try:
        if info.pid <= 0:  # 0 or a negative pid would signal a whole process group
            raise ProcessLookupError(info.pid)
        os.kill(info.pid, signal.SIGTERM)
    except OSError:
        with contextlib.suppress(FileNotFoundError):
            (root / DEV_JSON).unlink()
        return Stopped(False, info.pid)
    deadline = time.monotonic() + wait_s  # the server removes its record as it goes
    while _alive(info.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return Stopped(True, info.pid)
