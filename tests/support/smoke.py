"""`pix3 smoke`'s fixture games for real Chromium: plain JavaScript game pages that need no
node_modules, one small module per behaviour; running `pix3 smoke` as a process; finding the
processes a run left (Chrome's helpers inherit the private Chrome's TMPDIR)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.support.pix3 import run_pix3

# Each game's module exports start(), called while the page loads (before `load`): its first
# requestAnimationFrame callback therefore runs in smoke's frame 1. Every game keeps a frame loop,
# as a game does (a page that never asks for a frame gets W_SMOKE_NO_FRAMES).
GAMES: dict[str, str] = {
    "clean": """
export function start() {
  let n = 0;
  console.log('clean game starts');
  const tick = () => { n += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  globalThis.__PIX3_GAME_DEBUG__ = { name: 'clean', snapshot: () => ({ ready: true, frames: n }) };
}
""",
    "throws": """
export function start() {
  let n = 0;
  const loop = () => {
    n += 1;
    if (n === 30) throw new Error('thrown on frame 30');
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
}
""",
    "promises": """
export function start() {
  const tick = () => requestAnimationFrame(tick);
  requestAnimationFrame(tick);
  console.error('state is bad');
  Promise.reject(new Error('nobody waits for me'));
  const later = Promise.reject(new Error('handled later'));
  setTimeout(() => later.catch(() => {}), 0);
}
""",
    "missing": """
export function start() {
  const tick = () => requestAnimationFrame(tick);
  requestAnimationFrame(tick);
  const coin = new Image();
  coin.src = '/sprites/missing-coin.png';
  console.warn('the coin is late');
}
""",
    "loop": """
export function start() {
  let n = 0;
  const tick = () => {
    n += 1;
    if (n === 3) for (;;) {}
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
""",
    "forever": """
export function start() {
  const tick = () => requestAnimationFrame(tick);
  requestAnimationFrame(tick);
}
""",
    "snapshot_throws": """
export function start() {
  const tick = () => requestAnimationFrame(tick);
  requestAnimationFrame(tick);
  globalThis.__PIX3_GAME_DEBUG__ = { name: 'grumpy', snapshot: () => { throw new Error('no snapshot today'); } };
}
""",
    "big_snapshot": """
export function start() {
  const tick = () => requestAnimationFrame(tick);
  requestAnimationFrame(tick);
  globalThis.__PIX3_GAME_DEBUG__ = { name: 'big', snapshot: () => ({ blob: 'x'.repeat(5000) }) };
}
""",
}

SCENE = "version: 1.0.0\nroot:\n  - id: game-root\n    type: Group2D\n    name: Game Root\n"


def make_game(root: Path, games: Mapping[str, str], *, scene_names: Mapping[str, str] | None = None) -> Path:
    """A project whose game page runs ``games[name].start()`` for ``?scene=res://scenes/<name>.pix3scene``.

    ``scene_names`` maps a game to another scene path (e.g. ``scenes/main.pix3scene``).
    """
    names = dict(scene_names or {})
    root.mkdir(parents=True, exist_ok=True)
    (root / "pix3project.yaml").write_text("name: smoke-fixture\nviewportBaseSize:\n  width: 640\n  height: 360\n")
    (root / "index.html").write_text(
        '<!doctype html>\n<html><head><meta charset="utf-8"><title>fixture</title></head>\n'
        '<body><canvas id="c"></canvas><script type="module" src="/main.js"></script></body></html>\n'
    )
    imports = "\n".join(f"import * as {name} from './games/{name}.js';" for name in games)
    table = ", ".join(f"'res://{names.get(name, f'scenes/{name}.pix3scene')}': {name}" for name in games)
    (root / "main.js").write_text(
        f"{imports}\n"
        f"const games = {{ {table} }};\n"
        "const scene = new URLSearchParams(location.search).get('scene');\n"
        "if (!games[scene]) throw new Error(`no game for ${scene}`);\n"
        "games[scene].start();\n"
    )
    (root / "games").mkdir(exist_ok=True)
    for name, code in games.items():
        (root / "games" / f"{name}.js").write_text(code.lstrip())
        scene = root / names.get(name, f"scenes/{name}.pix3scene")
        scene.parent.mkdir(parents=True, exist_ok=True)
        scene.write_text(SCENE)
    return root


def smoke(root: Path, *args: str, env: Mapping[str, str], timeout: float = 90) -> tuple[int, Any, str]:
    """`pix3 smoke <args> --json` in ``root``: (exit code, parsed JSON or None, stderr)."""
    done = run_pix3("smoke", *args, "--json", cwd=root, env=env, timeout=timeout)
    data = json.loads(done.stdout) if done.stdout.strip() else None
    return done.returncode, data, done.stderr


def processes_in_env(text: str) -> list[int]:
    """Pids whose command line or environment contains ``text`` (Chrome's helpers inherit the
    TMPDIR the private Chrome was given; zombies excluded)."""
    found = []
    needle = text.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            blob = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in blob and state != "Z":
            found.append(int(entry.name))
    return found
