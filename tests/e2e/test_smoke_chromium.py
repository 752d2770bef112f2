"""`pix3 smoke` in real Chromium (a private headless Chrome over a pipe) over plain-JS fixture games.

One fixture project with every game is served by a live dev server for the module; the tests run
`pix3 smoke` as a process and check the exit code, the JSON and that nothing is left behind.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import pty
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.devserver import dev_server
from tests.support.pix3 import pix3_argv, pix3_env, run_pix3
from tests.support.ports import free_port
from tests.support.processes import pid_alive
from tests.support.smoke import GAMES, make_game, processes_in_env, smoke

pytestmark = [pytest.mark.chromium, pytest.mark.e2e]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[tuple[Path, dict[str, str]]]:
    base = tmp_path_factory.mktemp("smoke-games")
    root = make_game(base / "game", GAMES)
    env = {"PIX3_HOME": str(base / "home")}
    with dev_server(root, env=env):
        yield root, env


@pytest.fixture
def env(game: tuple[Path, dict[str, str]]) -> Iterator[dict[str, str]]:
    """The module's environment with a private TMPDIR: the private Chrome's profile goes there.
    Short, under /tmp: Chrome puts its singleton socket there, and a socket path has ~108 bytes."""
    tmp = Path(tempfile.mkdtemp(prefix="smk-", dir="/tmp"))
    try:
        yield {**game[1], "TMPDIR": str(tmp)}
        left = sorted(str(p) for p in tmp.rglob("*"))[:20]
        assert not left, f"the private Chrome's profile was left behind: {left}"
        assert processes_in_env(str(tmp)) == [], "a Chrome of the run is still running"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def one(root: Path, env: dict[str, str], name: str, *args: str) -> tuple[int, Any]:
    code, data, err = smoke(root, f"scenes/{name}.pix3scene", *args, env=env)
    assert data is not None, err
    return code, data


def test_clean_run(game: tuple[Path, dict[str, str]], env: dict[str, str]) -> None:
    code, report = one(game[0], env, "clean", "--frames", "30")
    assert code == 0, report
    assert {k: report[k] for k in ("ok", "scene", "frames", "framesRequested", "firstFrameOk")} == {
        "ok": True,
        "scene": "scenes/clean.pix3scene",
        "frames": 30,
        "framesRequested": 30,
        "firstFrameOk": True,
    }
    assert report["errors"] == [] and report["warnings"] == []
    # virtual time (the default): the page's clock stands still inside a frame, so no step time
    assert report["timingsMs"]["step"] is None and report["timingsMs"]["firstFrame"] is None
    assert report["timingsMs"]["load"] > 0
    assert any(note.startswith("Frames in virtual time") for note in report["notes"])
    assert report["game"] == {"name": "clean", "snapshot": {"ready": True, "frames": 30}}
    assert report["logs"] == {"count": 1, "lines": ["[frame 0] clean game starts"]}
    assert report["domMissing"] == [] and report["nodes"] == {"start": None, "end": None}
    assert any("a private headless Chrome started for this run" in note for note in report["notes"])
    assert any("?scene=res%3A%2F%2Fscenes%2Fclean.pix3scene" in note for note in report["notes"])


def test_real_time_measures_step_times(game: tuple[Path, dict[str, str]], env: dict[str, str]) -> None:
    code, report = one(game[0], env, "clean", "--frames", "30", "--real-time")
    assert code == 0, report
    step = report["timingsMs"]["step"]
    assert step["max"] >= step["mean"] >= 0 and report["timingsMs"]["firstFrame"] is not None
    assert not any(note.startswith("Frames in virtual time") for note in report["notes"])


def test_throw_on_frame_30(game: tuple[Path, dict[str, str]], env: dict[str, str]) -> None:
    code, report = one(game[0], env, "throws", "--frames", "40")
    assert code == 1
    # the game drew frames 1..30 and asked for no frame after its throw: 30 frames drawn of 40
    assert report["ok"] is False and report["frames"] == 30 and report["firstFrameOk"] is True
    assert "The game page: 1 of 1 entry script ran, 30 frames drawn in 40 animation frames." in report["notes"]
    [error] = report["errors"]
    assert (error["code"], error["frame"], error["message"]) == ("E_SMOKE_SCRIPT", 30, "Error: thrown on frame 30")
    assert re.fullmatch(r"at loop \(games/throws\.js:5:25\)", error["stack"]), error["stack"]


def test_endless_loop_times_out(game: tuple[Path, dict[str, str]], env: dict[str, str]) -> None:
    # 5 s: at load 10-20 the page had not loaded within 3 s (then the reason is the load's, rightly)
    code, report = one(game[0], env, "loop", "--frames", "10", "--timeout", "5")
    assert code == 2
    assert (report["ok"], report["code"], report["scene"]) == (False, "E_SMOKE_TIMEOUT", "scenes/loop.pix3scene")
    # what was seen: no frame while the main thread was busy (the loop began in the game's frame 3),
    # and where it spun, in the owner's watchdog's words (the file, line and column of `for (;;)`)
    source = (game[0] / "games" / "loop.js").read_text().split("\n")
    [(row, column)] = [(n + 1, line.index("for (;;)") + 1) for n, line in enumerate(source) if "for (;;)" in line]
    assert re.fullmatch(
        r"the run did not finish within 5 s: no frame for \d+\.\d s while the main thread was busy in tick\(\) at"
        rf" games/loop\.js:{row}:{column}: a script stuck in a loop \(at frame 3\); try --frames or --timeout\.",
        report["reason"],
    ), report["reason"]


def test_unknown_scene_and_no_project(game: tuple[Path, dict[str, str]], env: dict[str, str], tmp_path: Path) -> None:
    code, report, _ = smoke(game[0], "scenes/nope.pix3scene", env=env)
    assert code == 2 and report["code"] == "E_SMOKE_NO_SCENE"
    assert report["reason"] == f"scenes/nope.pix3scene is not a file in the project ({game[0]})."
    code, report, _ = smoke(game[0], "main.js", env=env)
    assert (code, report["reason"]) == (2, "main.js is not a .pix3scene.")
    code, report, _ = smoke(tmp_path, env=env)
    assert code == 2 and report == {
        "ok": False,
        "code": "E_SMOKE_NO_PROJECT",
        "reason": f"no pix3project.yaml in {tmp_path} or above — run inside a project or pass --project <dir>.",
    }
    code, report, _ = smoke(tmp_path, "--project", "missing-folder", env=env)
    assert code == 2 and report["reason"] == f"{tmp_path / 'missing-folder'} is not a folder."


def test_usage_errors_print_nothing_on_stdout(game: tuple[Path, dict[str, str]], env: dict[str, str]) -> None:
    for args in (["--frames", "lots"], ["--all", "--changed"], ["scenes/clean.pix3scene", "--all"]):
        done = run_pix3("smoke", *args, "--json", cwd=game[0], env=env)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("pix3 smoke: ") and "\n\nUsage: pix3 smoke [scene]" in done.stderr
    done = run_pix3("smoke", "--help", cwd=game[0], env=env)
    assert done.returncode == 0 and done.stdout.startswith("Usage: pix3 smoke [scene] [--changed | --all]")
    assert "smoke" in run_pix3("help", env=env).stdout


def test_a_set_where_the_worst_run_decides(tmp_path: Path, env: dict[str, str]) -> None:
    games = {name: GAMES[name] for name in ("loop", "throws", "clean")}
    root = make_game(
        tmp_path / "set",
        games,
        scene_names={
            "loop": "scenes/a-loop.pix3scene",
            "throws": "scenes/b-throws.pix3scene",
            "clean": "scenes/c-clean.pix3scene",
        },
    )
    code, data, _ = smoke(root, "--frames", "31", "--timeout", "4", env=env)
    assert code == 2
    assert (data["ok"], data["selection"], data["reason"]) == (
        False,
        "all",
        "every top-level scene (no git history to narrow it down)",
    )
    runs = data["runs"]
    assert [r["scene"] for r in runs] == [
        "scenes/a-loop.pix3scene",
        "scenes/b-throws.pix3scene",
        "scenes/c-clean.pix3scene",
    ]
    assert runs[0]["code"] == "E_SMOKE_TIMEOUT"
    assert [e["frame"] for e in runs[1]["errors"]] == [30]  # the run after the stuck one still ran
    assert runs[2]["ok"] is True and runs[2]["frames"] == 31
    assert not (root / ".pix3" / "dev.json").exists(), "the dev server started for the run is still recorded"
    (root / "scenes/a-loop.pix3scene").unlink()
    done = run_pix3("smoke", "--frames", "31", cwd=root, env=env)
    assert done.returncode == 1
    assert re.search(r"scenes/b-throws\.pix3scene\s+FAILED — 30 frames drawn, 1 error", done.stdout)
    assert re.search(r"scenes/c-clean\.pix3scene\s+ok — 31 frames drawn, 0 errors", done.stdout)
    assert "Error: thrown on frame 30" in done.stdout


# A game that calls the editor's API as the editor page does: `hello` for the writer id, a PUT of a
# project file as that writer. What it got is its snapshot.
API_GAME = """
export function start() {
  const reach = {};
  globalThis.__PIX3_GAME_DEBUG__ = { name: "api", snapshot: () => reach };
  const said = async (answer) => {
    const body = await answer.json();
    return [`${answer.status} ${body.error || "answered"}`, body];
  };
  (async () => {
    try {
      const [hello, { writerId }] = await said(await fetch("/__pix3/api/hello"));
      reach.hello = hello;
      const headers = { "X-Pix3": "1", ...(writerId ? { "X-Pix3-Writer": writerId } : {}) };
      const at = "/__pix3/api/file?path=written-by-the-game.txt";
      [reach.put] = await said(await fetch(at, { method: "PUT", headers, body: "the game wrote this" }));
    } catch (error) { reach.error = String(error); }
  })();
  const tick = () => requestAnimationFrame(tick);
  requestAnimationFrame(tick);
}
"""


def test_a_game_smoke_runs_cannot_use_the_editor_s_api(tmp_path: Path, env: dict[str, str]) -> None:
    """`pix3 smoke` opens the game under the game's name, as the editor page's frame does: the game's
    script is refused `hello` and the file API there, and writes nothing into the project."""
    root = make_game(tmp_path / "api", {"api": API_GAME})
    code, report, _ = smoke(root, "scenes/api.pix3scene", "--frames", "60", "--real-time", env=env)
    assert code == 0, report
    refused = "403 forbidden_game_origin"
    assert report["game"] == {"name": "api", "snapshot": {"hello": refused, "put": refused}}, report["game"]
    assert not (root / "written-by-the-game.txt").exists()
    assert any("http://127.0.0.1:" in note and "?scene=" in note for note in report["notes"]), report["notes"]


def test_a_project_without_a_game_page(tmp_path: Path, env: dict[str, str]) -> None:
    root = make_game(tmp_path / "bare", {"clean": GAMES["clean"]})
    (root / "index.html").unlink()
    code, report, _ = smoke(root, "scenes/clean.pix3scene", "--frames", "3", env=env)
    assert code == 1
    assert [e["code"] for e in report["errors"]] == ["E_SMOKE_LOAD"]
    assert "answered HTTP 404" in report["errors"][0]["message"]
    assert report["frames"] == 0 and report["firstFrameOk"] is False


def test_without_tmpdir_the_profile_lives_in_memory_and_goes(game: tuple[Path, dict[str, str]]) -> None:
    """No ``TMPDIR``: the private Chrome's profile is a ``pix3-smoke-chrome-*`` folder in
    ``/dev/shm``, Chrome's own ``TMPDIR``; after the run it and every Chrome process are gone."""
    root, base = game
    mark = f"smoke-shm-{os.getpid()}-{time.monotonic_ns()}"  # inherited by Chrome and its helpers
    env = pix3_env({**base, "PIX3_SMOKE_TEST_MARK": mark})
    env.pop("TMPDIR", None)
    run = subprocess.Popen(
        pix3_argv("smoke", "scenes/clean.pix3scene", "--frames", "90", "--json"),
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    profiles: set[str] = set()
    try:
        while run.poll() is None:
            for pid in processes_in_env(mark):
                with contextlib.suppress(OSError):
                    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                    profiles.update(v[7:].decode() for v in environ if v.startswith(b"TMPDIR="))
            time.sleep(0.02)
        out, err = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 0, out + err
    assert json.loads(out)["frames"] == 90
    [profile] = profiles
    assert profile.startswith("/dev/shm/pix3-smoke-chrome-"), profile
    assert not Path(profile).exists(), "the profile was left behind"
    assert processes_in_env(mark) == [], "a Chrome of the run is still running"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_ctrl_c_or_kill_leaves_no_process(tmp_path: Path, sig: signal.Signals) -> None:
    """The dev server started for the run and the private Chrome (with every helper) end too."""
    root = make_game(tmp_path / "stop", {"forever": GAMES["forever"]})
    tmp = Path(tempfile.mkdtemp(prefix="smk-", dir="/tmp"))
    try:
        run = subprocess.Popen(
            pix3_argv("smoke", "scenes/forever.pix3scene", "--frames", "100000", "--timeout", "60"),
            cwd=root,
            env=pix3_env({"PIX3_HOME": str(tmp_path / "home"), "TMPDIR": str(tmp)}),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # a group of its own, as a terminal's foreground job
        )
        record = root / ".pix3" / "dev.json"
        deadline = time.monotonic() + 30
        while not (record.exists() and processes_in_env(str(tmp))):
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.05)
        server = json.loads(record.read_text())["pid"]
        time.sleep(1.0)  # into the run: the page is loaded and counting frames
        os.killpg(run.pid, sig)
        assert run.wait(timeout=20) == (130 if sig == signal.SIGINT else -signal.SIGKILL)
        run.communicate()
        deadline = time.monotonic() + 10
        while processes_in_env(str(tmp)) or pid_alive(server):
            assert time.monotonic() < deadline, (
                f"left running: {processes_in_env(str(tmp))}, server {pid_alive(server)}"
            )
            time.sleep(0.05)
        if sig == signal.SIGINT:  # stopped by the run: its record is gone, and Chrome's profile too
            assert not record.exists()
            assert list(tmp.iterdir()) == []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.node
def test_vite_typescript_stack_is_mapped_to_the_source(tmp_path: Path, env: dict[str, str], node_modules: Path) -> None:
    """A TypeScript game served by Vite: the stack names the .ts file at its own line, through
    the source map Vite serves with the module."""
    root = tmp_path / "ts"
    (root / "src").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "scenes").mkdir()
    (root / "node_modules").symlink_to(node_modules)
    (root / "pix3project.yaml").write_text("name: ts-fixture\n")
    (root / "scenes/main.pix3scene").write_text("root:\n  - id: game-root\n    type: Group2D\n")
    (root / "index.html").write_text(
        '<!doctype html>\n<html><body><script type="module" src="/src/main.ts"></script></body></html>\n'
    )
    (root / "src/main.ts").write_text("import { Boom } from '../scripts/Boom';\n\nnew Boom().start();\n")
    (root / "scripts/Boom.ts").write_text(
        "interface Counter {\n"
        "  frames: number;\n"
        "}\n"
        "\n"
        "export class Boom {\n"
        "  private counter: Counter = { frames: 0 };\n"
        "\n"
        "  start(): void {\n"
        "    requestAnimationFrame(() => this.tick());\n"
        "  }\n"
        "\n"
        "  tick(): void {\n"
        "    this.counter.frames += 1;\n"
        "    if (this.counter.frames === 3) {\n"
        "      throw new Error(`typed boom at ${this.counter.frames}`);\n"
        "    }\n"
        "    requestAnimationFrame(() => this.tick());\n"
        "  }\n"
        "}\n"
    )
    code, report, err = smoke(root, "scenes/main.pix3scene", "--frames", "5", env=env, timeout=120)
    assert code == 1, (report, err)
    [error] = report["errors"]
    assert (error["code"], error["frame"], error["message"]) == ("E_SMOKE_SCRIPT", 3, "Error: typed boom at 3")
    first = error["stack"].split("\n")[0]
    assert first == "at Boom.tick (scripts/Boom.ts:15:13)", error["stack"]


class _Editor:
    """A stand-in dev server: the game files from the project folder, `hello`, and a `/flush`
    that answers what the test says (and counts the calls)."""

    def __init__(self, root: Path, flush_reply: dict[str, Any]) -> None:
        outer = self
        self.flushes = 0

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, directory=str(root), **kwargs)

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/__pix3/api/hello":
                    self._json({"ok": True})
                else:
                    super().do_GET()

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                outer.flushes += 1
                self._json(flush_reply)

            def _json(self, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> _Editor:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def _record(root: Path, url: str, pid: int) -> None:
    (root / ".pix3").mkdir(exist_ok=True)
    record = {"url": url, "editorUrl": url + "__pix3/", "port": 0, "pid": pid}
    (root / ".pix3" / "dev.json").write_text(json.dumps(record))


def test_an_editor_that_does_not_flush(tmp_path: Path, env: dict[str, str]) -> None:
    root = make_game(tmp_path / "flush", {"clean": GAMES["clean"]})
    with _Editor(root, {"ok": False, "reason": "gesture_in_progress"}) as editor:
        _record(root, editor.url, os.getpid())
        done = run_pix3("smoke", "scenes/clean.pix3scene", "--frames", "2", cwd=root, env=env)
        assert done.returncode == 2 and editor.flushes == 1
        assert done.stdout == (
            "pix3 smoke scenes/clean.pix3scene: could not run — E_EDITOR_UNSYNCED: the Pix3 editor at"
            f" {editor.url} did not flush its unsaved scenes (gesture_in_progress); save in the editor and retry,"
            " or pass --no-sync to read the disk as it is\n"
        )
        code, data, _ = smoke(root, env=env)
        assert code == 2 and data["code"] == "E_EDITOR_UNSYNCED" and "scene" not in data
        code, data, _ = smoke(root, "scenes/clean.pix3scene", "--frames", "2", "--no-sync", env=env)
        assert code == 0 and editor.flushes == 2, data  # not asked; the run used it as the live dev server
        assert editor.url in data["notes"][0]


def test_a_stale_record_is_ignored(tmp_path: Path, env: dict[str, str]) -> None:
    root = make_game(tmp_path / "stale", {"clean": GAMES["clean"]})
    dead = free_port()
    _record(root, f"http://127.0.0.1:{dead}/", 2**22 - 1)
    code, data, _ = smoke(root, "scenes/clean.pix3scene", "--frames", "2", env=env)
    assert code == 0, data
    assert not (root / ".pix3" / "dev.json").exists()  # the server started for the run removed its record


def test_one_progress_line_per_scene_on_a_terminal(tmp_path: Path, env: dict[str, str]) -> None:
    root = make_game(tmp_path / "tty", {"clean": GAMES["clean"], "missing": GAMES["missing"]})
    primary, secondary = pty.openpty()
    try:
        done = subprocess.run(
            pix3_argv("smoke", "--frames", "2"),
            cwd=root,
            env=pix3_env(env),
            stdout=subprocess.PIPE,
            stderr=secondary,
            timeout=90,
            check=False,
        )
        os.close(secondary)
        secondary = -1
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the terminal's other side is closed: all read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(primary)
        if secondary >= 0:
            os.close(secondary)
    assert done.returncode == 0
    assert b"".join(chunks).decode().replace("\r\n", "\n") == (
        "pix3 smoke: scenes/clean.pix3scene (1/2)…\npix3 smoke: scenes/missing.pix3scene (2/2)…\n"
    )
    assert done.stdout.decode().startswith("pix3 smoke: 2 scenes — every top-level scene")
