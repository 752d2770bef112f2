"""What a smoke run does before and after its scene, against small real servers on 127.0.0.1
(docs/smoke.md, "The browser"; docs/devserver.md, "The flush client"): where the private
Chrome's profile goes, the proof asked of an owner's proxy, and the flush client's HTTP answers;
and a run with nothing to run (an empty shard, no scene to pick) starting no Chrome at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pix3net.clients.flush import flush_editor
from pix3net.clients.probe import proves
from pix3net.commands.smoke import SHM_MIN_FREE, profile_parent
from pix3net.wire.proof import CHALLENGE_HEADER, PROOF_HEADER, local_proof, port_proof
from tests.support.editor import send_reply
from tests.support.pix3 import run_pix3
from tests.support.ports import free_port
from tests.support.smoke import GAMES, make_game

TOKEN = "t" * 43
Handler = Callable[[BaseHTTPRequestHandler], None]


@contextlib.contextmanager
def http_server(answer: Handler) -> Iterator[int]:
    """A threaded HTTP server on 127.0.0.1 answering every GET and POST with ``answer``."""

    class One(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            answer(self)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            answer(self)

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), One)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def reply(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    with contextlib.suppress(OSError):  # a client that gave up (the deadline tests) closed its end
        send_reply(handler, status, body, headers or {})


# -- the private profile's folder -------------------------------------------------------------


def test_profile_goes_to_tmpdir_when_set(tmp_path: Path) -> None:
    assert profile_parent({"TMPDIR": str(tmp_path)}, shm=str(tmp_path / "shm")) == str(tmp_path)


def test_profile_goes_to_memory_when_tmpdir_is_unset(tmp_path: Path) -> None:
    shm = tmp_path / "shm"
    shm.mkdir()
    stats = os.statvfs(shm)
    if stats.f_bavail * stats.f_frsize < SHM_MIN_FREE:
        pytest.fail(f"{tmp_path} has less than {SHM_MIN_FREE} bytes free: this test needs room")
    assert profile_parent({}, shm=str(shm)) == str(shm)
    assert profile_parent({"TMPDIR": ""}, shm=str(shm)) == str(shm)


def test_profile_falls_back_to_the_system_temp_folder(tmp_path: Path) -> None:
    assert profile_parent({}, shm=str(tmp_path / "no-such-folder")) is None
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert profile_parent({}, shm=str(a_file)) is None  # statvfs works on a file; X_OK does not


# -- the proof asked of an owner's proxy ----------------------------------------------------------


def test_a_proxy_that_knows_the_token_proves_it() -> None:
    seen: list[dict[str, str]] = []

    def answer(handler: BaseHTTPRequestHandler) -> None:
        seen.append(dict(handler.headers))
        challenge = handler.headers.get(CHALLENGE_HEADER, "")
        port = handler.connection.getsockname()[1]
        reply(handler, 401, b"no token", {PROOF_HEADER: port_proof(TOKEN, port, challenge)})

    with http_server(answer) as port:
        assert proves(port, TOKEN) is True
    [headers] = seen
    assert "Authorization" not in headers, "the token must not be sent before the proof"


def test_the_reference_s_unbound_proof_does_not_prove_it() -> None:
    """A relay passes the local proof on intact: it names no port, so it earns nothing."""

    def unbound(handler: BaseHTTPRequestHandler) -> None:
        reply(handler, 401, b"", {PROOF_HEADER: local_proof(TOKEN, handler.headers.get(CHALLENGE_HEADER, ""))})

    with http_server(unbound) as port:
        assert proves(port, TOKEN) is False


def test_a_proxy_with_another_token_or_no_proof_does_not_prove_it() -> None:
    def other_token(handler: BaseHTTPRequestHandler) -> None:
        challenge = handler.headers.get(CHALLENGE_HEADER, "")
        reply(handler, 401, b"", {PROOF_HEADER: port_proof("x" * 43, handler.connection.getsockname()[1], challenge)})

    def no_proof(handler: BaseHTTPRequestHandler) -> None:
        reply(handler, 200, b'{"Browser": "HeadlessChrome/1"}')

    for answer in (other_token, no_proof):
        with http_server(answer) as port:
            assert proves(port, TOKEN) is False


def test_nothing_listening_or_a_silent_port_does_not_prove_it() -> None:
    assert proves(free_port(), TOKEN) is False

    def silent(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(1.0)

    with http_server(silent) as port:
        started = time.monotonic()
        assert proves(port, TOKEN, timeout=0.2) is False
        assert time.monotonic() - started < 0.9


# -- the flush client's HTTP ----------------------------------------------------------------------


def project_on(tmp_path: Path, port: int) -> Path:
    (tmp_path / ".pix3").mkdir()
    (tmp_path / ".pix3" / "dev.json").write_text(json.dumps({"url": f"http://127.0.0.1:{port}/", "pid": 1}))
    return tmp_path


def test_flush_request_and_its_answer(tmp_path: Path) -> None:
    requests: list[tuple[str, str, str | None]] = []

    def answer(handler: BaseHTTPRequestHandler) -> None:
        requests.append((handler.command, handler.path, handler.headers.get("X-Pix3")))
        if handler.path.endswith("/flush"):
            reply(handler, 409, json.dumps({"ok": False, "reason": "gesture_in_progress"}).encode())
        else:
            reply(handler, 200, b"{}")

    with http_server(answer) as port:
        outcome = flush_editor(project_on(tmp_path, port))
    assert (outcome.status, outcome.reason) == ("unsynced", "gesture_in_progress")
    assert requests == [("GET", "/__pix3/api/hello", None), ("POST", "/__pix3/api/flush", "1")]


def test_flush_answers_that_are_not_json_or_not_a_server(tmp_path: Path) -> None:
    def not_json(handler: BaseHTTPRequestHandler) -> None:
        reply(handler, 200, b"{" if handler.path.endswith("/flush") else b"{}")

    with http_server(not_json) as port:
        outcome = flush_editor(project_on(tmp_path, port))
    assert outcome.status == "unsynced"
    try:  # the reason is the JSON reader's own message, whatever its words in this Python
        json.loads(b"{")
    except ValueError as exc:
        assert outcome.reason == str(exc)

    def hello_404(handler: BaseHTTPRequestHandler) -> None:
        reply(handler, 404, b"")

    with http_server(hello_404) as port:
        (tmp_path / ".pix3" / "dev.json").write_text(json.dumps({"url": f"http://127.0.0.1:{port}/"}))
        assert flush_editor(tmp_path).status == "no-server"
    (tmp_path / ".pix3" / "dev.json").write_text(json.dumps({"url": "ftp://127.0.0.1/"}))
    assert flush_editor(tmp_path).status == "no-server"


def test_flush_that_outlives_its_deadline(tmp_path: Path) -> None:
    def slow_flush(handler: BaseHTTPRequestHandler) -> None:
        if handler.path.endswith("/flush"):
            time.sleep(3.0)
        reply(handler, 200, b"{}")

    with http_server(slow_flush) as port:
        started = time.monotonic()
        outcome = flush_editor(project_on(tmp_path, port), timeout_ms=1)  # aborted 2 s after the editor's 1 ms
        elapsed = time.monotonic() - started
    assert (outcome.status, outcome.reason) == ("unsynced", "The operation was aborted due to timeout")
    assert 1.9 < elapsed < 2.9


# A Chrome start alone takes 0.3-5 s here (more under load); an answer without one is Python's
# start, the plan and the report: well under this bound even at load 15.
NOTHING_TO_RUN_S = 4.0


def tattling_chrome(folder: Path) -> tuple[Path, Path]:
    """A PIX3_CHROME that leaves a mark when it is started (and then hangs, as a slow Chrome)."""
    mark, chrome = folder / "chrome-started", folder / "chrome"
    chrome.write_text(f"#!/bin/sh\ntouch {mark}\nexec sleep 30\n")
    chrome.chmod(0o755)
    return chrome, mark


def test_an_empty_shard_answers_at_once_without_chrome(tmp_path: Path) -> None:
    """Issue 25: a CI matrix of more jobs than scenes; the extra job exits 0 with an empty report
    (and an empty JUnit suite), and starts no Chrome or dev server for it."""
    root = make_game(tmp_path / "game", {"clean": GAMES["clean"], "throws": GAMES["throws"]})
    chrome, mark = tattling_chrome(tmp_path)
    env = {"PIX3_HOME": str(tmp_path / "home"), "PIX3_CHROME": str(chrome)}
    junit = tmp_path / "junit.xml"
    started = time.monotonic()
    done = run_pix3("smoke", "--all", "--shard", "3/3", "--junit-file", str(junit), cwd=root, env=env, timeout=60)
    elapsed = time.monotonic() - started
    assert not mark.exists(), "an empty shard started Chrome"
    assert not (root / ".pix3" / "dev.log").exists(), "an empty shard started the dev server"
    assert elapsed < NOTHING_TO_RUN_S
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.startswith("pix3 smoke: 0 scenes of 2 in shard 3/3 — --all: every top-level scene\n")
    assert "Shard 3/3 holds no scene (more shards than scenes): nothing to run, nothing failed." in done.stdout
    assert 'tests="0"' in junit.read_text()
    json_run = run_pix3("smoke", "--all", "--shard", "3/3", "--json", cwd=root, env=env, timeout=60)
    data = json.loads(json_run.stdout)
    assert (json_run.returncode, data["runs"], data["shard"], data["selected"]) == (0, [], "3/3", 2)
    assert not mark.exists()


def test_no_scene_to_pick_answers_without_chrome(tmp_path: Path) -> None:
    """A selection that cannot pick a scene is E_SMOKE_NO_SCENE (exit 2), told without a Chrome."""
    root = tmp_path / "game"
    root.mkdir()
    (root / "pix3project.yaml").write_text("name: empty\n")
    chrome, mark = tattling_chrome(tmp_path)
    env = {"PIX3_HOME": str(tmp_path / "home"), "PIX3_CHROME": str(chrome)}
    started = time.monotonic()
    done = run_pix3("smoke", "--all", cwd=root, env=env, timeout=60)
    elapsed = time.monotonic() - started
    assert done.returncode == 2
    assert done.stdout == "pix3 smoke: could not run — E_SMOKE_NO_SCENE: the project has no .pix3scene files.\n"
    assert not mark.exists(), "a run with no scene started Chrome"
    assert elapsed < NOTHING_TO_RUN_S
