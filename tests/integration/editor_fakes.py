"""Small stand-ins for the editor tests: a dev server that only says hello, a plain DevTools
endpoint (the P1 launch), a Chrome wrapper that records its argv, free ports."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

from tests.conftest import QUIET_CHROME_FLAGS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def free_port_run(count: int) -> int:
    """The first of ``count`` consecutive free ports (the proxy scans preferred..preferred+6)."""
    for _ in range(200):
        base = free_port()
        if base + count > 65535:
            continue
        socks = []
        try:
            for p in range(base, base + count):
                s = socket.socket()
                s.bind(("127.0.0.1", p))
                socks.append(s)
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no run of free ports")


class _Handler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, dict[str, str], bytes]]] = {}
    seen: ClassVar[list[dict[str, str]]] = []

    def do_GET(self) -> None:
        self.seen.append({k.lower(): v for k, v in self.headers.items()})
        path = self.path.split("?")[0]
        status, headers, body = self.routes.get(path, (404, {}, b"{}"))
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def http_server(
    routes: dict[str, tuple[int, dict[str, str], bytes]], port: int = 0
) -> Iterator[tuple[int, list[dict[str, str]]]]:
    seen: list[dict[str, str]] = []

    class Handler(_Handler):
        pass

    Handler.routes = routes
    Handler.seen = seen
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1]), seen
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def hello_server() -> Iterator[int]:
    """A dev server that answers ``/__pix3/api/hello`` and serves a tiny editor page."""
    routes = {
        "/__pix3/api/hello": (200, {"Content-Type": "application/json"}, b'{"ok":true}'),
        "/__pix3/": (200, {"Content-Type": "text/html"}, b"<!doctype html><title>editor</title>"),
    }
    with http_server(routes) as (port, _):
        yield port


def write_dev_json(root: Path, port: int, pid: int | None = None, **extra: Any) -> dict[str, Any]:
    url = f"http://127.0.0.1:{port}/"
    record = {"url": url, "editorUrl": url + "__pix3/", "port": port, "pid": pid or os.getpid(), **extra}
    (root / ".pix3").mkdir(exist_ok=True)
    (root / ".pix3" / "dev.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


@contextmanager
def plain_devtools(pages: list[str], port: int, browser: str = "Chrome/155.0") -> Iterator[list[dict[str, str]]]:
    """A plain DevTools HTTP endpoint (no marker, no auth): what the P1 launch left open."""
    version = json.dumps({"Browser": browser, "webSocketDebuggerUrl": f"ws://127.0.0.1:{port}/devtools/browser/x"})
    listing = json.dumps([{"id": f"T{i}", "type": "page", "url": url} for i, url in enumerate(pages)])
    routes = {
        "/json/version": (200, {"Content-Type": "application/json"}, version.encode()),
        "/json/list": (200, {"Content-Type": "application/json"}, listing.encode()),
    }
    with http_server(routes, port) as (_, seen):
        yield seen


def make_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pix3project.yaml").write_text("version: 1.0.0\n")
    return root


def chrome_wrapper(folder: Path, chromium: str) -> tuple[Path, Path]:
    """A PIX3_CHROME script that writes its argv (one per line) and execs Chromium (fds 3/4 pass)."""
    script = folder / "chrome.sh"
    argv_file = folder / "chrome-argv.txt"
    flags = " ".join(QUIET_CHROME_FLAGS)
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{argv_file}"\nexec "{chromium}" {flags} "$@"\n')
    script.chmod(0o755)
    return script, argv_file
