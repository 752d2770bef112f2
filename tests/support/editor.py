"""Small stand-ins for the editor tests: a dev server that only says hello, a plain DevTools
endpoint (the P1 launch), a dev.json record, and HTTP reads of the proxy."""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

from tests.support.pix3 import run_pix3
from tests.support.ports import free_port
from tests.support.processes import Cleanup, wait_gone


def send_reply(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str]) -> None:
    """One whole answer with a Content-Length, from a stdlib request handler."""
    handler.send_response(status)
    for key, value in headers.items():
        handler.send_header(key, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class _Handler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, dict[str, str], bytes]]] = {}
    seen: ClassVar[list[dict[str, str]]] = []

    def do_GET(self) -> None:
        self.seen.append({k.lower(): v for k, v in self.headers.items()})
        path = self.path.split("?")[0]
        status, headers, body = self.routes.get(path, (404, {}, b"{}"))
        send_reply(self, status, body, headers)

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


def dev_pid(root: Path) -> int:
    pid: int = json.loads((root / ".pix3" / "dev.json").read_text())["pid"]
    return pid


def get(url: str, token: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def pages_of(port: int, token: str) -> list[str]:
    status, body = get(f"http://127.0.0.1:{port}/json/list", token)
    assert status == 200, body
    return [t["url"] for t in json.loads(body) if t.get("type", "page") == "page"]


def start_headless_editor(game: Path, env: dict[str, str], home: Path, cleanup: Cleanup, cdp: int) -> dict[str, Any]:
    """`pix3 editor --headless` in ``game`` on CDP port ``cdp`` (a free dev-server port), its Chrome
    owner and dev server handed to ``cleanup`` whatever the outcome; fails the test with the
    command's output when it did not start. Returns the Chrome record (``home``/chrome.json)."""
    done = run_pix3(
        "editor", "--headless", "--cdp-port", str(cdp), "--port", str(free_port()), cwd=game, env=env, timeout=90
    )
    record = json.loads((home / "chrome.json").read_text()) if (home / "chrome.json").exists() else {}
    cleanup.pids += [pid for pid in (record.get("ownerPid"),) if pid]
    if (game / ".pix3" / "dev.json").exists():
        cleanup.pids.append(dev_pid(game))
    assert done.returncode == 0, done.stderr + done.stdout
    return dict(record)


def stop_headless_editor(game: Path, env: dict[str, str], record: dict[str, Any]) -> None:
    """`pix3 editor --stop-chrome`, then `--stop`: the owner and its Chrome (``record``, from
    :func:`start_headless_editor`) and the dev server are gone afterwards."""
    chrome_pid = record["chromePid"]
    assert run_pix3("editor", "--stop-chrome", cwd=game, env=env).returncode == 0
    assert wait_gone(record["ownerPid"]) and wait_gone(chrome_pid)
    pid = dev_pid(game)
    assert run_pix3("editor", "--stop", cwd=game, env=env).returncode == 0
    assert wait_gone(pid)
