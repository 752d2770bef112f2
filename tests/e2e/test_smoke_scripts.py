"""`pix3 smoke` in real Chromium when the game page's scripts do not run (docs/smoke.md, "Scripts
that did not run"): a run where no game code ran is never green.

The starter of `pix3 new 2d` before `npm install` (its TypeScript served as plain files, no Vite),
and one page per way a script fails: a module refused for its media type (the entry, or a module
it imports), an entry that answers 404, a script that gets no answer, a module that does not
parse, an inline module whose import fails, a page with no script, a game that never asks for a
frame — and a plain-JavaScript game on the same starter that stays green.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.pix3 import run_pix3
from tests.support.ports import free_port
from tests.support.smoke import SCENE, processes_in_env, smoke

pytestmark = [pytest.mark.chromium, pytest.mark.e2e]

MAIN = "scenes/main.pix3scene"


@pytest.fixture
def env(chromium: str, tmp_path: Path) -> Iterator[dict[str, str]]:
    """A private PIX3_HOME and TMPDIR (the private Chrome's profile goes there: nothing may stay)."""
    tmp = Path(tempfile.mkdtemp(prefix="smk-", dir="/tmp"))
    try:
        yield {"PIX3_HOME": str(tmp_path / "home"), "TMPDIR": str(tmp)}
        left = sorted(str(p) for p in tmp.rglob("*"))[:20]
        assert not left, f"the private Chrome's profile was left behind: {left}"
        assert processes_in_env(str(tmp)) == [], "a Chrome of the run is still running"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def page(root: Path, files: Mapping[str, str]) -> Path:
    """A project with one scene whose game page is ``files["index.html"]`` (and its scripts)."""
    root.mkdir(parents=True)
    (root / "pix3project.yaml").write_text("name: scripts\nviewportBaseSize:\n  width: 320\n  height: 240\n")
    (root / "scenes").mkdir()
    (root / MAIN).write_text(SCENE)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def module_page(src: str) -> str:
    return f'<!doctype html><meta charset="utf-8"><canvas></canvas><script type="module" src="{src}"></script>\n'


TICKS = """
let n = 0;
const tick = () => { n += 1; requestAnimationFrame(tick); };
requestAnimationFrame(tick);
globalThis.__PIX3_GAME_DEBUG__ = { name: 'ticks', snapshot: () => ({ frames: n }) };
"""


def run(root: Path, env: dict[str, str], *args: str) -> tuple[int, dict[str, Any]]:
    code, report, err = smoke(root, MAIN, "--frames", "5", *args, env=env)
    assert report is not None, err
    return code, report


def errors(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["code"], e["message"]) for e in report["errors"]]


def test_a_fresh_starter_without_vite_is_a_clear_failure(tmp_path: Path, env: dict[str, str]) -> None:
    """The false green of the first smoke: main.ts served as a plain file was refused by Chrome and
    the game never ran, yet the run was ok. Now it is E_SMOKE_LOAD saying what to do."""
    made = run_pix3("new", "2d", "starter", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    root = tmp_path / "starter"
    assert not (root / "node_modules").exists()
    code, report = run(root, env)
    assert code == 1 and report["ok"] is False and report["firstFrameOk"] is False
    assert errors(report) == [
        (
            "E_SMOKE_LOAD",
            "the page's script res://src/main.ts did not run: it is TypeScript, which a browser cannot run, and the"
            " dev server sent it uncompiled (text/plain); TypeScript needs the project's Vite and there is none"
            f" (no node_modules/vite in {root} or above): run npm install in {root} (while the Pix3 2.0 packages"
            " are unpublished that fails, and the project's README.md says how to link them instead).",
        )
    ]
    assert report["errors"][0]["frame"] == 0 and report["warnings"] == []
    human = run_pix3("smoke", "--frames", "5", cwd=root, env=env, timeout=90)
    assert human.returncode == 1, human.stdout + human.stderr
    # the words match the facts: no script ran, no frame was drawn
    assert "  scenes/main.pix3scene            FAILED — 0 frames drawn, 1 error, 0 warnings\n" in human.stdout
    assert "pix3 smoke scenes/main.pix3scene — 0/5 frames drawn, 0/1 entry script ran: 1 error, 0 warnings\n" in (
        human.stdout
    )
    assert report["frames"] == 0
    assert "  frame 0  E_SMOKE_LOAD: the page's script res://src/main.ts did not run: it is TypeScript" in human.stdout
    assert "first frame NOT ok" in human.stdout


def test_the_starter_with_a_plain_javascript_player_stays_green(tmp_path: Path, env: dict[str, str]) -> None:
    made = run_pix3("new", "2d", "plain", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    root = tmp_path / "plain"
    index = root / "index.html"
    index.write_text(index.read_text().replace("/src/main.ts", "/src/main.js"))
    (root / "src" / "main.js").write_text(TICKS)
    code, report = run(root, env)
    assert code == 0, report
    assert report["ok"] is True and report["firstFrameOk"] is True and report["frames"] == 5
    assert report["errors"] == [] and report["warnings"] == []
    assert report["game"] == {"name": "ticks", "snapshot": {"frames": 5}}


def test_a_typescript_module_imported_by_a_javascript_entry(tmp_path: Path, env: dict[str, str]) -> None:
    root = page(
        tmp_path / "imports",
        {
            "index.html": module_page("/main.js"),
            "main.js": "import { speed } from './scripts/Speed.ts';\n" + TICKS,
            "scripts/Speed.ts": "export const speed: number = 2;\n",
        },
    )
    code, report = run(root, env)
    assert code == 1
    [(kind, message)] = errors(report)  # the entry's own failure is explained by its import's
    assert kind == "E_SMOKE_LOAD"
    assert message.startswith(
        "the page's script res://scripts/Speed.ts did not run: it is TypeScript, which a browser cannot run,"
        " and the dev server sent it uncompiled (text/plain); "
    )


def test_an_entry_script_that_answers_404(tmp_path: Path, env: dict[str, str]) -> None:
    root = page(tmp_path / "gone", {"index.html": module_page("/src/gone.js")})
    code, report = run(root, env)
    assert code == 1
    assert errors(report) == [("E_SMOKE_LOAD", "the page's script res://src/gone.js did not load (HTTP 404).")]
    assert report["warnings"] == []


def test_a_script_that_gets_no_answer(tmp_path: Path, env: dict[str, str]) -> None:
    far = f"http://127.0.0.1:{free_port()}/game.js"  # nothing listens there
    root = page(tmp_path / "far", {"index.html": module_page(far)})
    code, report = run(root, env)
    assert code == 1
    assert errors(report) == [("E_SMOKE_LOAD", f"the page's script {far} did not load (net::ERR_CONNECTION_REFUSED).")]


def test_a_module_that_does_not_parse(tmp_path: Path, env: dict[str, str]) -> None:
    root = page(
        tmp_path / "parse",
        {
            "index.html": module_page("/main.js"),
            "main.js": "import './games/broken.js';\n",
            "games/broken.js": "export const a = ;\n",
        },
    )
    code, report = run(root, env)
    assert code == 1 and report["firstFrameOk"] is False
    [error] = report["errors"]
    assert (error["code"], error["frame"]) == ("E_SMOKE_SCRIPT", 0)
    # The kind of error is the report's; the words after it are V8's, which change between builds.
    assert error["message"].startswith("SyntaxError: "), error
    assert error["stack"] == "at games/broken.js:1:18"


def test_an_inline_module_whose_import_fails(tmp_path: Path, env: dict[str, str]) -> None:
    html = '<!doctype html><script type="module">import "./src/missing.js";</script>\n'
    root = page(tmp_path / "inline", {"index.html": html})
    code, report = run(root, env)
    assert code == 1
    assert errors(report) == [("E_SMOKE_LOAD", "the page's script res://src/missing.js did not load (HTTP 404).")]


def test_a_page_with_no_script_is_not_a_game(tmp_path: Path, env: dict[str, str]) -> None:
    root = page(tmp_path / "static", {"index.html": "<!doctype html><p>coming soon</p>\n"})
    code, report = run(root, env)
    assert code == 1
    [(kind, message)] = errors(report)
    assert kind == "E_SMOKE_LOAD"
    assert message.startswith("the game page http://") and message.endswith(
        ' has no script, so no game code ran; it needs an index.html that starts the game (<script type="module" src="…">).'
    )


def test_a_game_that_never_asks_for_a_frame_says_so(tmp_path: Path, env: dict[str, str]) -> None:
    root = page(
        tmp_path / "idle",
        {"index.html": module_page("/main.js"), "main.js": "console.log('menu drawn, waiting for a click');\n"},
    )
    code, report = run(root, env)
    assert code == 0 and report["ok"] is True and report["errors"] == []
    assert report["warnings"] == [
        {
            "code": "W_SMOKE_NO_FRAMES",
            "frame": 5,
            "message": "the game never asked for an animation frame: no requestAnimationFrame callback ran in 5"
            " frames, so the run saw the page load and no game loop.",
        }
    ]
    human = run_pix3("smoke", MAIN, "--frames", "5", cwd=root, env=env, timeout=90)
    assert human.returncode == 0
    assert "  frame 5  W_SMOKE_NO_FRAMES: the game never asked for an animation frame" in human.stdout
