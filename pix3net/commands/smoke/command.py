"""`pix3 smoke [scene] [--changed | --all] [--frames N] [--timeout S] [--json] [--no-sync] [--workers N]
[--shard i/n] [--reporter R] [--junit-file <path>] [--output <dir>] [--output-all] [--real-time]
[--project <dir>]` (docs/smoke.md).

Runs the game page of each scene in a real headless Chrome and reports what went wrong. This
module reads the arguments and chooses the scenes; :mod:`pix3net.commands.smoke._schedule` runs them and
:mod:`pix3net.commands.smoke._report` writes the reports. Exit 0 no
errors (warnings allowed), 1 errors, 2 could not run or a usage error; with several scenes the
worst run decides. Nothing is printed before the report (except one progress line per scene on a
terminal's stderr), and the report is printed once every process and browser context of the run
is gone.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import trio

from pix3net.commands.smoke._report import Outcome, write_report
from pix3net.commands.smoke._schedule import Keep, Progress, machine_workers, run_plan
from pix3tools.core import PROJECT_FILE, find_project_root, pix3_home
from pix3tools.core.argv import Args, Option, Syntax, UsageError
from pix3tools.core.pathtest import is_file
from pix3tools.core.runner import Call, run
from pix3tools.smoke import frame_count, positive_number

if TYPE_CHECKING:
    from pix3net.commands.smoke._headless import BrowserSource
    from pix3net.commands.smoke._pages import PagePool
    from pix3net.commands.smoke._scenerun import SceneRun
    from pix3tools.smoke import Failure, Manifest, RunPlan, Shard

__all__ = ["SYNTAX", "SmokeArgs", "main", "run_plan", "smoke"]

DEFAULT_FRAMES = 120  # 2 s at 60 frames a second
DEFAULT_TIMEOUT_S = 20.0  # per scene
REPORTERS = ("line", "json", "github", "junit")
STDOUT_REPORTERS = ("line", "json", "github")  # the report on stdout: one of these; junit is a file
DEFAULT_JUNIT_FILE = "pix3-smoke-junit.xml"  # in the current folder, unless --junit-file names one


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


def _workers(name: str, text: str) -> int:
    value = _value(name, text).strip()
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise UsageError(f"{name} needs a whole number ≥ 1")
    return int(value)


def _shard(name: str, text: str) -> Shard:
    from pix3tools.smoke import parse_shard

    shard = parse_shard(_value(name, text))
    if shard is None:
        raise UsageError(f"{name} needs i/n with 1 ≤ i ≤ n (e.g. {name} 2/4)")
    return shard


def _reporters(name: str, text: str) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(part.strip() for part in _value(name, text).split(",") if part.strip()))
    unknown = [r for r in chosen if r not in REPORTERS]
    if unknown or not chosen:
        raise UsageError(f"{name} takes {', '.join(REPORTERS)} (comma-separated; got {text!r})")
    printed = [r for r in chosen if r in STDOUT_REPORTERS]
    if len(printed) > 1:
        raise UsageError(f"{name}: {' and '.join(printed)} both write the report on stdout; pick one")
    return chosen


def _folder(name: str, text: str) -> str:
    if not _value(name, text):
        raise UsageError(f"{name} needs a folder")
    return text


def _file(name: str, text: str) -> str:
    if not _value(name, text):
        raise UsageError(f"{name} needs a file path")
    return text


def _rules(args: Args) -> None:
    changed, every = args.flag("--changed"), args.flag("--all")
    if changed and every:
        raise UsageError("--changed and --all exclude each other")
    if args.words and (changed or every):
        raise UsageError(f"{'--changed' if changed else '--all'} picks the scenes; drop {args.words[0]} or the flag")
    if args.words and args.get("--shard", object) is not None:
        raise UsageError(f"--shard splits a set of scenes; drop {args.words[0]} or --shard")
    reporters = args.get("--reporter", tuple) or ()
    if args.flag("--json") and any(r in STDOUT_REPORTERS and r != "json" for r in reporters):
        raise UsageError("--json is --reporter json; drop one")
    if args.flag("--output-all") and args.text("--output") is None:
        raise UsageError("--output-all needs --output <dir>")
    if args.flag("--real-time") and args.flag("--virtual-time"):
        raise UsageError("--real-time and --virtual-time exclude each other")


SYNTAX = Syntax(
    "smoke",
    # --virtual-time: the default since issue 25, still accepted (scripts written before it)
    flags=("--changed", "--all", "--json", "--no-sync", "--output-all", "--real-time", "--virtual-time"),
    options=(
        Option("--frames", convert=_frames),
        Option("--timeout", convert=_positive),
        Option("--project", convert=_value),  # any text, even empty (`--project=` is the current folder)
        Option("--workers", convert=_workers),
        Option("--shard", convert=_shard),
        Option("--reporter", convert=_reporters),
        Option("--junit-file", convert=_file),
        Option("--output", convert=_folder),
    ),
    words=1,
    too_many="one scene at a time (got {first} and {arg})",
    unknown="unknown argument {arg}",
    help="parsed",
    check=_rules,
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
    workers: int | None = None  # None: what fits this machine
    shard: Shard | None = None
    reporters: tuple[str, ...] = ()
    junit_file: str | None = None
    output: str | None = None
    output_all: bool = False
    virtual_time: bool = True  # frames under virtual time unless --real-time

    @classmethod
    def of(cls, args: Args) -> SmokeArgs:
        from pix3tools.smoke import Shard

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
            workers=args.get("--workers", int),
            shard=args.get("--shard", Shard),
            reporters=args.get("--reporter", tuple) or (),
            junit_file=args.text("--junit-file"),
            output=args.text("--output"),
            output_all=args.flag("--output-all"),
            virtual_time=not args.flag("--real-time"),
        )

    def stdout_reporter(self, env: Mapping[str, str]) -> str:
        """The report on stdout: as named, else ``json`` for --json, else ``github`` inside GitHub
        Actions (``GITHUB_ACTIONS`` set), else ``line``."""
        named = [r for r in self.reporters if r in STDOUT_REPORTERS]
        if named:
            return named[0]
        if self.json:
            return "json"
        return "github" if env.get("GITHUB_ACTIONS") else "line"

    def junit_path(self, cwd: Path) -> Path | None:
        if self.junit_file is None and "junit" not in self.reporters:
            return None
        return cwd / (self.junit_file or DEFAULT_JUNIT_FILE)


def _no_project(cwd: Path) -> Failure:
    from pix3tools.smoke import Failure

    return Failure(
        "E_SMOKE_NO_PROJECT",
        f"no {PROJECT_FILE} in {cwd} or above — run inside a project or pass --project <dir>.",
    )


def _flush(root: Path, args: SmokeArgs) -> Failure | None:
    from pix3net.clients.flush import CODE, flush_editor
    from pix3tools.smoke import Failure

    outcome = flush_editor(root, no_sync=args.no_sync)
    if outcome.status == "unsynced":
        return Failure(CODE, outcome.message or "", args.scene)
    return None


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
    from pix3net.commands.smoke._headless import PageMode, open_browser

    # A set is chosen before anything starts: a shard or a selection with no scene (a CI matrix of
    # more jobs than scenes) answers at once, without Chrome or the dev server. One scene: the
    # browser, and the first page on it, get ready now, while the editor flushes and the scene is
    # resolved (both in a worker thread) — unless the scene named is plainly missing.
    chosen: _Chosen | None = None
    if args.scene is None:
        picked = await _choose(args, root, cwd)
        if isinstance(picked, Outcome):
            return picked
        chosen = picked
    early = _scene_may_exist(root, cwd, args.scene)
    mode = PageMode(virtual=args.virtual_time, capture=args.output is not None)
    async with open_browser(pix3_home(env), env, early=early) as browsers:
        # Let the browser's task run up to its first wait (a private Chrome is spawned by then)
        # before the run's own modules and the scene model are imported (~100 ms).
        await trio.lowlevel.checkpoint()
        from pix3net.commands.smoke._pages import open_pages

        async with open_pages(browsers, args.frames, mode, early=early) as pages:
            if chosen is None:
                picked = await _choose(args, root, cwd)
                if isinstance(picked, Outcome):
                    return picked
                chosen = picked
            return await _smoke_in(args, root, cwd, pages, browsers, progress, chosen)


@dataclass(frozen=True)
class _Chosen:
    """The scenes to run (the shard's part of the selection), and how many were selected."""

    plan: RunPlan
    manifest: Manifest
    selected: int


async def _choose(args: SmokeArgs, root: Path, cwd: Path) -> _Chosen | Outcome:
    """The editor flushed, then the scenes chosen; an Outcome when there is nothing to run (a
    refused flush, no scene, an empty shard)."""
    from pix3tools.smoke import shard_scenes

    unsynced = await trio.to_thread.run_sync(_flush, root, args)
    if unsynced is not None:
        return Outcome([unsynced])
    plan, manifest = await trio.to_thread.run_sync(_plan, root, cwd, args)
    if plan.failure is not None:
        return Outcome([plan.failure])
    selected = len(plan.scenes)
    if args.shard is not None:
        plan = dataclasses.replace(plan, scenes=shard_scenes(plan.scenes, args.shard))
    if not plan.scenes:  # an empty shard: no browser, no dev server, no page
        return Outcome([], None if plan.single else plan.selection, durations_ms=[], selected=selected)
    return _Chosen(plan, manifest, selected)


async def _smoke_in(
    args: SmokeArgs,
    root: Path,
    cwd: Path,
    pages: PagePool,
    browsers: BrowserSource,
    progress: Progress | None,
    chosen: _Chosen,
) -> Outcome:
    plan = chosen.plan
    keep = _keeper(cwd / args.output, root, args.output_all) if args.output is not None else None
    done = await run_plan(
        plan,
        pages,
        browsers,
        root=root,
        frames=args.frames,
        seconds=args.timeout,
        viewport=chosen.manifest.viewport,
        workers=args.workers or machine_workers(),
        keep=keep,
        progress=progress,
    )
    return Outcome(
        [d.run for d in done],
        None if plan.single else plan.selection,
        durations_ms=[d.seconds * 1000 for d in done],
        selected=chosen.selected,
    )


def _keeper(folder: Path, root: Path, every: bool) -> Keep:
    def keep(done: SceneRun) -> None:
        from pix3net.commands.smoke._artifacts import write_artifacts

        write_artifacts(folder, done, root, every=every)

    return keep


def _progress(err: TextIO) -> Progress | None:
    if not err.isatty():
        return None

    def line(text: str) -> None:
        err.write(text + "\n")
        err.flush()

    return line


def smoke(args: SmokeArgs, cwd: Path, out: TextIO, err: TextIO, env: Mapping[str, str]) -> int:
    from pix3tools.smoke import Failure

    # --project as given (resolved lexically, no manifest asked): a folder without one is still run.
    root = Path(os.path.abspath(cwd / args.project)) if args.project is not None else find_project_root(cwd)
    shown = root if root is not None else cwd
    if root is None:
        outcome = Outcome([_no_project(cwd)])
    elif not root.is_dir():
        outcome = Outcome([Failure("E_SMOKE_NO_PROJECT", f"{root} is not a folder.", args.scene)])
    else:
        outcome = trio.run(_smoke, args, root, cwd, env, _progress(err))
    junit = args.junit_path(cwd)
    return write_report(outcome, shown, args.stdout_reporter(env), args.shard, junit, out, err, env)


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
