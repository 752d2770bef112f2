"""`pix3 smoke` at scale in real Chromium, kept to a few fast processes (the logic is unit-tested:
test_smoke_scale.py, test_smoke_junit.py, test_smoke_github.py, test_smoke_clock.py): workers,
shards, the JUnit and GitHub reporters, artifacts on failure, frames under virtual time and the
fall back to real time (docs/smoke.md).

One fixture project of plain-JS games (some of the smoke fixtures, a game that paints its frame
number, one that records its clocks, one that waits on the clock in a loop); its dev server lives
for the module. Each test runs `pix3 smoke` as a process (a private Chrome). The long rows (16
scenes, the speed-ups) are `python -m tests.bench smoke`'s.
"""

from __future__ import annotations

import itertools
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.devserver import dev_server
from tests.support.images import png_pixel, png_size
from tests.support.junit import junit_problems
from tests.support.pix3 import run_pix3
from tests.support.smoke import GAMES, make_game

pytestmark = [pytest.mark.chromium, pytest.mark.e2e]

FRAMES = "60"
# Each frame is painted rgb(8·n, 64, 128) with "frame <n>" written on it, and the game throws on
# frame 30: a screenshot of frame 30 is rgb(240, 64, 128) outside the text; frame 31 would be 248.
PAINTED = """
export function start() {
  const canvas = document.getElementById('c');
  canvas.width = 640; canvas.height = 360;
  canvas.style.cssText = 'position:fixed;left:0;top:0;width:640px;height:360px';
  const g = canvas.getContext('2d');
  let n = 0;
  const tick = () => {
    n += 1;
    g.fillStyle = `rgb(${8 * n}, 64, 128)`; g.fillRect(0, 0, 640, 360);
    g.fillStyle = 'white'; g.font = '64px sans-serif'; g.fillText(`frame ${n}`, 40, 120);
    if (n === 30) throw new Error('thrown on frame 30');
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
"""
STAMPS = """
export function start() {
  const seen = [], timers = [];
  setInterval(() => { if (timers.length < 100) timers.push(performance.now()); }, 100);
  const tick = (stamp) => { seen.push([stamp, performance.now(), Date.now()]); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  globalThis.__PIX3_GAME_DEBUG__ = { name: 'stamps', snapshot: () => ({ seen, timers }) };
}
"""
# Waits 30 ms on the clock at frame 5: under virtual time the clock does not move inside a task.
BUSYWAIT = """
export function start() {
  let n = 0;
  const tick = () => {
    n += 1;
    if (n === 5) { const t = performance.now(); while (performance.now() - t < 30) {} }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
"""
SET = ("clean", "throws", "promises", "missing", "painted", "stamps")
MIXED = {
    **{name: GAMES[name] for name in SET if name in GAMES},
    "painted": PAINTED,
    "stamps": STAMPS,
    "busywait": BUSYWAIT,
}
EXPECTED = {  # scene → (verdict, error codes, warning codes)
    "clean": ("ok", (), ()),
    "missing": ("ok", (), ("W_SMOKE_CONSOLE_WARN", "W_SMOKE_MISSING_RESOURCE")),
    "painted": ("failed", ("E_SMOKE_SCRIPT",), ()),
    "promises": ("failed", ("E_SMOKE_CONSOLE_ERROR", "E_SMOKE_UNHANDLED"), ()),
    "stamps": ("ok", (), ()),
    "throws": ("failed", ("E_SMOKE_SCRIPT",), ()),
}
Verdicts = dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]
# Outside GitHub Actions whatever the environment the suite runs in (tests/support/pix3.py drops
# GITHUB_ACTIONS too); CI itself changes nothing in pix3 smoke, so it is set to show that.
PLAIN = {"CI": "true"}


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[tuple[Path, dict[str, str]]]:
    base = tmp_path_factory.mktemp("smoke-scale")
    # busywait lives outside scenes/: `--all` over scenes/ only would still pick it up, so it gets
    # a prefab folder, which the selection skips (it is run by name).
    root = make_game(base / "game", MIXED, scene_names={"busywait": "prefabs/busywait.pix3scene"})
    env = {"PIX3_HOME": str(base / "home"), **PLAIN}
    with dev_server(root, env=env):
        yield root, env


def smoke(root: Path, env: dict[str, str], *args: str, frames: str = FRAMES) -> tuple[int, str, str]:
    done = run_pix3("smoke", "--frames", frames, "--timeout", "15", *args, cwd=root, env=env, timeout=120)
    return done.returncode, done.stdout, done.stderr


def verdicts(data: dict[str, Any]) -> Verdicts:
    out: Verdicts = {}
    for run in data["runs"]:
        name = Path(run["scene"]).stem
        if "code" in run:
            out[name] = ("could not run", (run["code"],), ())
        else:
            errors = tuple(sorted({e["code"] for e in run["errors"]}))
            warnings = tuple(sorted({w["code"] for w in run["warnings"]}))
            out[name] = ("ok" if run["ok"] else "failed", errors, warnings)
    return out


def test_two_shards_on_one_worker_and_the_whole_set_on_two_agree_with_junit_and_artifacts(
    game: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, env = game
    shards: list[dict[str, Any]] = []
    for index in (1, 2):
        junit = tmp_path / f"junit-{index}.xml"
        code, out, err = smoke(root, env, "--all", "--workers", "1", "--shard", f"{index}/2", "--json",
                               "--reporter", "junit", "--junit-file", str(junit))  # fmt: skip
        assert code == 1, err
        data = json.loads(out)
        assert (data["shard"], data["selected"], len(data["runs"])) == (f"{index}/2", 6, 3)
        shards.append(data)
        text = junit.read_text()
        assert junit_problems(text) == []
        cases = list(ET.fromstring(text).iter("testcase"))
        assert [case.get("name") for case in cases] == [run["scene"] for run in data["runs"]]
        failing = {case.get("name"): case[0].get("type") for case in cases if len(case)}
        assert failing == {run["scene"]: run["errors"][0]["code"] for run in data["runs"] if run["errors"]}
    one = {**verdicts(shards[0]), **verdicts(shards[1])}
    assert len(one) == 6 and not set(verdicts(shards[0])) & set(verdicts(shards[1]))  # each scene once

    code, out, err = smoke(root, env, "--all", "--workers", "2", "--json", "--output", str(tmp_path / "out"))
    assert code == 1, err
    data = json.loads(out)
    assert verdicts(data) == one == EXPECTED
    assert [run["scene"] for run in data["runs"]] == [f"scenes/{name}.pix3scene" for name in sorted(SET)]

    stamps = next(run for run in data["runs"] if run["scene"] == "scenes/stamps.pix3scene")
    assert any(note.startswith("Frames in virtual time") for note in stamps["notes"]), stamps["notes"]
    seen = stamps["game"]["snapshot"]["seen"]
    assert len(seen) == 60
    steps = {b[0] - a[0] for a, b in itertools.pairwise(seen)}
    # 1/60 s apart, to the clock's grain: a page's performance.now is coarsened to 0.1 ms, and a
    # frame's stamp is the clock's when the timer fired a grain early (16.567 / 16.767 seen at load 14)
    assert all(abs(step - 1000 / 60) <= 0.2 for step in steps), steps
    assert all(0 <= now - stamp < 1000 / 60 for stamp, now, _ in seen)  # a frame's time is the clock's
    assert len({round(date - now) for _, now, date in seen}) <= 2  # Date.now moves with performance.now
    # 60 frames span 59/60 s of the page's clock: a 100 ms timer ran 9 or 10 times between the first
    # and the last (it also runs, in real time, while smoke holds the game before and after them)
    inside = [t for t in stamps["game"]["snapshot"]["timers"] if seen[0][1] <= t <= seen[-1][1]]
    assert 9 <= len(inside) <= 10, (inside, seen[0], seen[-1])

    # --output: the failing scenes' files, nothing for a passing one.
    out_dir = tmp_path / "out" / "scenes"
    assert sorted(p.name for p in out_dir.iterdir()) == ["painted", "promises", "throws"]
    for name in ("painted", "promises", "throws"):
        assert sorted(p.name for p in (out_dir / name).iterdir()) == ["console.log", "report.json", "screenshot.png"]
        assert json.loads((out_dir / name / "report.json").read_text())["scene"] == f"scenes/{name}.pix3scene"
    shot = (out_dir / "painted" / "screenshot.png").read_bytes()
    assert png_size(shot) == (640, 360)
    assert {png_pixel(shot, x, y)[:3] for x, y in ((5, 5), (320, 250), (600, 340))} == {(240, 64, 128)}
    assert png_pixel(shot, 0, 0)[:3] != (248, 64, 128)
    log = (out_dir / "painted" / "console.log").read_text()
    assert log.startswith("[frame 30] error: Error: thrown on frame 30\n    at tick (games/painted.js:11:25)\n"), log
    assert "[frame 0] error: state is bad" in (out_dir / "promises" / "console.log").read_text()


def test_github_annotations_inside_github_actions_on_chromes_own_clock(
    game: tuple[Path, dict[str, str]],
) -> None:
    root, env = game
    github = {**env, "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(root.parent)}
    code, out, err = smoke(root, github, "scenes/painted.pix3scene", "--real-time")
    assert code == 1, err
    lines = out.splitlines()
    # the game's own line, from the repository's root (the project is a subfolder of the workspace)
    assert lines[0].startswith(
        "::error file=game/games/painted.js,line=11,col=25,title=pix3 smoke E_SMOKE_SCRIPT::"
        "scenes/painted.pix3scene: frame 30: Error: thrown on frame 30"
    ), lines[0]
    assert lines[1].startswith("pix3 smoke scenes/painted.pix3scene — 30/60 frames drawn"), out
    assert "Frames in virtual time" not in out  # --real-time: Chrome's own frames


def test_a_game_that_waits_on_the_clock_runs_again_in_real_time(game: tuple[Path, dict[str, str]]) -> None:
    root, env = game
    code, out, err = smoke(root, env, "prefabs/busywait.pix3scene", "--json", frames="10")
    assert code == 0, err
    run = json.loads(out)
    assert run["ok"] is True and run["frames"] == 10, run
    [note] = [n for n in run["notes"] if n.startswith("Frames in real time")]
    assert "busy for" in note and "at frame 5" in note, note
