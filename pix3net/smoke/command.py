"""`pix3 smoke [scene] [--changed | --all] [--frames N] [--timeout S] [--json] [--no-sync] [--project <dir>]`
(docs/smoke.md).

Runs the game page of each scene in a real headless Chrome and reports what went wrong. Exit 0 no
errors (warnings allowed), 1 errors, 2 could not run or a usage error; with several scenes the
worst run decides. Nothing is printed before the report (except one progress line per scene on a
terminal's stderr), and the report is printed once every process and browser context of the run
is gone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import trio

from pix3tools.core import PROJECT_FILE, find_project_root, pix3_home
from pix3tools.core.argv import Args, Option, Syntax, UsageError
from pix3tools.core.cli import Call, run
from pix3tools.core.pathtest import is_file
from pix3tools.smoke import frame_count, positive_number

if TYPE_CHECKING:
    from pix3net.smoke._browser import BrowserSource
    from pix3net.smoke._pages import PagePool
    from pix3tools.smoke import Failure, Manifest, Run, RunPlan, Selection

__all__ = ["SYNTAX", "SmokeArgs", "main", "run_plan", "smoke"]

Progress = Callable[[str], None]
DEFAULT_FRAMES = 120  # 2 s at 60 frames a second
DEFAULT_TIMEOUT_S = 20.0  # per scene


def _value(name: str, text: str) -> str:
    """The reference refuses a value that starts with ``--`` in either spelling (``--project=--json``)."""
    if text.startswith("--"):
        raise UsageError(f"{name} needs a value")
    return text


def _positive(name: str, text: str) -> float:
    value = positive_number(_value(name, text))
    if value is None:
        raise UsageError(f"{name} needs a positive number")
    return value


def _frames(name: str, text: str) -> int:
    return frame_count(_positive(name, text))


def _exclusive(args: Args) -> None:
    changed, every = args.flag("--changed"), args.flag("--all")
    if changed and every:
        raise UsageError("--changed and --all exclude each other")
    if args.words and (changed or every):
        raise UsageError(f"{'--changed' if changed else '--all'} picks the scenes; drop {args.words[0]} or the flag")


SYNTAX = Syntax(
    "smoke",
    flags=("--changed", "--all", "--json", "--no-sync"),
    options=(
        Option("--frames", convert=_frames),
        Option("--timeout", convert=_positive),
        Option("--project", convert=_value),  # any text, even empty (`--project=` is the current folder)
    ),
    words=1,
    too_many="one scene at a time (got {first} and {arg})",
    unknown="unknown argument {arg}",
    help="parsed",
    check=_exclusive,
)


@dataclass(frozen=True)
class SmokeArgs:
    scene: str | None = None
    changed: bool = False
    all: bool = False
    frames: int = DEFAULT_FRAMES
    timeout: float = DEFAULT_TIMEOUT_S
    json: bool = False
    no_sync: bool = False
    project: str | None = None

    @classmethod
    def of(cls, args: Args) -> SmokeArgs:
        frames, timeout = args.get("--frames", int), args.get("--timeout", float)
        return cls(
            scene=args.words[0] if args.words else None,
            changed=args.flag("--changed"),
            all=args.flag("--all"),
            frames=DEFAULT_FRAMES if frames is None else frames,
            timeout=DEFAULT_TIMEOUT_S if timeout is None else timeout,
            json=args.flag("--json"),
            no_sync=args.flag("--no-sync"),
            project=args.text("--project"),
        )


@dataclass(frozen=True)
class Outcome:
    """What the command prints: one run (a scene argument, or nothing could run), or a set."""

    runs: list[Run]
    selection: Selection | None = None


def _no_project(cwd: Path) -> Failure:
    from pix3tools.smoke import Failure

    return Failure(
        "E_SMOKE_NO_PROJECT",
        f"no {PROJECT_FILE} in {cwd} or above — run inside a project or pass --project <dir>.",
    )


def _flush(root: Path, args: SmokeArgs) -> Failure | None:
    from pix3net.sync import CODE, sync_editor
    from pix3tools.smoke import Failure

    outcome = sync_editor(root, no_sync=args.no_sync)
    if outcome.status == "unsynced":
        return Failure(CODE, outcome.message or "", args.scene)
    return None


async def run_plan(
    plan: RunPlan,
    pages: PagePool,
    browsers: BrowserSource,
    *,
    root: Path,
    frames: int,
    seconds: float,
    viewport: tuple[float, float],
    progress: Progress | None = None,
) -> list[Run]:
    """Run every planned scene, one after another, on one dev server and one browser."""
    from pix3net.smoke._browser import BrowserUnavailable
    from pix3net.smoke._gameserver import DevServerError, game_server
    from pix3net.smoke._run import RunSettings, run_scene
    from pix3net.smoke._sources import SourceMaps
    from pix3tools.smoke import Failure, attached_scripts

    runs: list[Run] = []
    project = plan.project
    try:
        async with game_server(root) as (base_url, _):
            browser = await browsers.get()
            sources = SourceMaps(root)
            for index, scene in enumerate(plan.scenes):
                if progress is not None:
                    progress(f"pix3 smoke: {scene} ({index + 1}/{len(plan.scenes)})…")
                if index + 1 < len(plan.scenes):
                    pages.prefetch()  # the next scene's page gets ready while this one runs
                scripts = attached_scripts(scene, project.read) if project is not None else []
                settings = RunSettings(
                    root=root, base_url=base_url, frames=frames, timeout=seconds, viewport=viewport, scripts=scripts
                )
                runs.append(await run_scene(browser, scene, settings, sources, pages.take))
    except DevServerError as error:
        reason = f"could not serve the game page: {error}"
        runs += [Failure("E_SMOKE_BUNDLE", reason, scene) for scene in plan.scenes[len(runs) :]]
    except BrowserUnavailable as error:
        runs += [Failure(error.code, error.reason, scene) for scene in plan.scenes[len(runs) :]]
    return runs


def _plan(root: Path, cwd: Path, args: SmokeArgs) -> tuple[RunPlan, Manifest]:
    from pix3tools.smoke import plan_runs

    return plan_runs(root, cwd, args.scene, changed_only=args.changed, run_all=args.all)


def _scene_may_exist(root: Path, cwd: Path, scene: str | None) -> bool:
    """A cheap look before the scene is resolved: is there such a file at all? (A run set, or a
    scene that may exist, starts Chrome at once; a typo does not pay for a Chrome start.)"""
    if scene is None:
        return True
    bare = scene[6:] if scene[:6].lower() == "res://" else scene
    return any(is_file(path) for path in (root / bare.lstrip("/"), cwd / scene))


async def _smoke(args: SmokeArgs, root: Path, cwd: Path, env: Mapping[str, str], progress: Progress | None) -> Outcome:
    from pix3net.smoke._browser import open_browser

    # The browser, and the first page on it, get ready now, while the editor flushes and the
    # scenes are chosen (both in a worker thread) — unless the scene named is plainly missing.
    early = _scene_may_exist(root, cwd, args.scene)
    async with open_browser(pix3_home(env), env, early=early) as browsers:
        # Let the browser's task run up to its first wait (a private Chrome is spawned by then)
        # before the run's own modules and the scene model are imported (~100 ms).
        await trio.lowlevel.checkpoint()
        from pix3net.smoke._pages import open_pages

        async with open_pages(browsers, args.frames, early=early) as pages:
            return await _smoke_in(args, root, cwd, pages, browsers, progress)


async def _smoke_in(
    args: SmokeArgs, root: Path, cwd: Path, pages: PagePool, browsers: BrowserSource, progress: Progress | None
) -> Outcome:
    unsynced = await trio.to_thread.run_sync(_flush, root, args)
    if unsynced is not None:
        return Outcome([unsynced])
    plan, manifest = await trio.to_thread.run_sync(_plan, root, cwd, args)
    if plan.failure is not None:
        return Outcome([plan.failure])
    runs = await run_plan(
        plan,
        pages,
        browsers,
        root=root,
        frames=args.frames,
        seconds=args.timeout,
        viewport=manifest.viewport,
        progress=progress,
    )
    return Outcome(runs, None if plan.single else plan.selection)


def _write_json(out: TextIO, value: Any) -> None:
    out.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def _progress(err: TextIO) -> Progress | None:
    if not err.isatty():
        return None

    def line(text: str) -> None:
        err.write(text + "\n")
        err.flush()

    return line


def smoke(args: SmokeArgs, cwd: Path, out: TextIO, err: TextIO, env: Mapping[str, str]) -> int:
    from pix3tools.smoke import Failure, exit_code, human_run, human_set, run_json, set_json

    # --project as given (resolved lexically, no manifest asked): a folder without one is still run.
    root = Path(os.path.abspath(cwd / args.project)) if args.project is not None else find_project_root(cwd)
    shown = root if root is not None else cwd
    if root is None:
        outcome = Outcome([_no_project(cwd)])
    elif not root.is_dir():
        outcome = Outcome([Failure("E_SMOKE_NO_PROJECT", f"{root} is not a folder.", args.scene)])
    else:
        outcome = trio.run(_smoke, args, root, cwd, env, _progress(err))
    if outcome.selection is not None:
        if args.json:
            _write_json(out, set_json(outcome.selection, outcome.runs, shown))
        else:
            out.write(human_set(outcome.selection, outcome.runs, shown))
        return max((exit_code(r) for r in outcome.runs), default=0)
    [run] = outcome.runs
    if args.json:
        _write_json(out, run_json(run, shown))
    else:
        out.write(human_run(run, shown))
    return exit_code(run)


def _interrupted(exc: BaseException) -> bool:
    if isinstance(exc, KeyboardInterrupt):
        return True
    return isinstance(exc, BaseExceptionGroup) and exc.subgroup(KeyboardInterrupt) is not None


def _body(call: Call) -> int:
    try:
        return smoke(SmokeArgs.of(call.args), call.cwd, call.out, call.err, os.environ)
    except BaseException as exc:
        # Ctrl-C: every process and browser context of the run is gone by now (their cleanup is
        # shielded); trio may hand the interrupt over inside an exception group.
        if _interrupted(exc):
            return 130
        raise


def main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run(SYNTAX, argv, _body, cwd=cwd, out=out, err=err)
