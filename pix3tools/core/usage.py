"""Every usage text of `pix3`, in one table, as data (docs/cli.md, "Entry rules").

``OVERVIEW_BLOCKS[cmd]`` is the command's block in ``pix3 help``: its first line starts with two
spaces and ``pix3 <cmd>``, continuation lines are indented deeper. ``COMMAND_USAGE[cmd]`` is what
``pix3 <cmd> --help`` prints: ``Usage: pix3 <cmd> …``, a blank line, a description, one line per
flag. Only commands in the dispatch table are shown (``commandtable.COMMANDS``); the hidden commands'
texts are in ``HIDDEN_USAGE``.
"""

from __future__ import annotations

from pix3tools.core.commandtable import COMMANDS, ORDER
from pix3tools.core.ports import CDP_PORT, CDP_PORT_SPAN, DEV_PORT
from pix3tools.core.version import CLI_VERSION

__all__ = ["COMMAND_USAGE", "HIDDEN_USAGE", "OVERVIEW_BLOCKS", "command_usage", "overview", "usage_error"]

OVERVIEW_BLOCKS: dict[str, str] = {
    "new": (
        "  pix3 new                              list the starters\n"
        "  pix3 new <2d|3d> [dir] [--name <n>]   create a project from a starter (dir: pix3-<2d|3d>)"
    ),
    "editor": (
        "  pix3 editor [--project <dir>] [--stop] [--stop-chrome] [--status [--json]] [--watch [--json]]\n"
        "              [--kick <client>] [--chrome-only] [--no-chrome] [--headless] [--port <n>]\n"
        "              [--cdp-port <n>] [--url <editor url>] [--remote-port <n>] [--ssh <host>]\n"
        "                                        start or reuse the dev server and Chrome behind the\n"
        "                                        CDP token proxy, with the editor tab open"
    ),
    "agent-setup": (
        "  pix3 agent-setup [claude|codex|pi] [--repair] [--remote] [--usage-statistics]\n"
        "                   [--cdp-port <n>] [--project <dir>]\n"
        "                                        point the agents' chrome-devtools-mcp at the proxy"
    ),
    "validate": (
        "  pix3 validate [paths…] [--json] [--no-hydrate] [--project <dir>]\n"
        "                                        strict check of scenes, prefabs and resources"
    ),
    "check": (
        "  pix3 check [--json] [--no-hydrate] [--offline] [--no-sync] [--project <dir>]\n"
        "                                        flush the editor, validate, type-check, versions"
    ),
    "smoke": (
        "  pix3 smoke [scene] [--changed|--all] [--frames N] [--timeout S] [--json] [--no-sync]\n"
        "             [--workers N] [--shard i/n] [--reporter R] [--output <dir>] [--project <dir>]\n"
        "                                        run the game headless in Chrome, report what threw"
    ),
    "tree": (
        "  pix3 tree [scene] [--depth N] [--types A,B] [--props] [--json] [--project <dir>]\n"
        "                                        scene outline, one line per node; no scene: overview"
    ),
    "kit": (
        "  pix3 kit [--update] [--json] [--project <dir>]\n"
        "           [--migrate]                  install or update the agent kit; --migrate: 1.x → 2.x"
    ),
    "character-compile": (
        "  pix3 character-compile <spec> [--dry-run] [--force] [--json] [--project <dir>]\n"
        "                                        a 2D character (.pix3anim + prefab) from frame PNGs"
    ),
    "sfx": (
        '  pix3 sfx <preset|"description"> [--out <file.wav>] [--seed <n>] [--json]\n'
        "                                        synthesize a sound effect to WAV, offline"
    ),
    "gap": (
        '  pix3 gap "<what was missing>" [--kind capability|tool|node|doc|other] [--detail <text>]\n'
        "           [--context <text>] [--agent <name>] [--list] [--json] [--project <dir>]\n"
        "                                        record what the agent had to work around"
    ),
}

COMMAND_USAGE: dict[str, str] = {
    "new": """Usage: pix3 new [<2d|3d> [dir]] [--name <project name>]

Create a Pix3 project from a starter. With no starter, list the starters.
Exit 0 created (or listed), 1 a folder that is not empty, 2 a usage error (an unknown starter too).

  <2d|3d>              the starter
  [dir]                the folder to create (default: pix3-<2d|3d>); it must be empty
  --name <n>           the project's name (default: the folder's name)
""",
    "editor": f"""Usage: pix3 editor [options]

Find or start the project's dev server, then find, reuse or start Chrome behind the CDP token
proxy (127.0.0.1:{CDP_PORT} by default) with the editor tab open, and say where an agent connects.

  --project <dir>      the project (default: the nearest folder with pix3project.yaml)
  --stop               stop the project's dev server
  --stop-chrome        stop the Chrome this home's proxy owns
  --status             Chrome, the editor tab and the agents connected to the proxy (no project)
  --watch              the agents at work, live: each client's calls, tabs and errors (no project)
  --json               with --status: the same as JSON; with --watch: one JSON object a second
  --kick <client>      end a client (its number or name) and what it opened, as its disconnect would
  --chrome-only        Chrome and the proxy only (Remote SSH, on the human's machine)
  --no-chrome          the dev server only
  --headless           run Chrome headless
  --port <n>           the dev server's port (strict)
  --cdp-port <n>       the proxy's port (default {CDP_PORT}, then the next free one up to {CDP_PORT + CDP_PORT_SPAN})
  --url <editor url>   Remote SSH, your machine: the editor a port forward reaches (no project)
  --remote-port <n>    with --url: the remote host's port forwarded to this proxy (default {CDP_PORT})
  --ssh <host>         with --url: the SSH host in the token copy line
""",
    "agent-setup": """Usage: pix3 agent-setup [claude|codex|pi] [options]

Write the project's chrome-devtools-mcp entry for Claude Code (.mcp.json), Codex
(.codex/config.toml) and pi (.pi/mcp.json), pointing at the CDP token proxy. The token stays in
~/.pix3; no project file holds it.

  claude|codex|pi      the agents to set up (default: those with a config, else claude and codex)
  --repair             replace a drifted entry (the old file is kept as .bak)
  --remote             Remote SSH: point at the forwarded port, checked by proof first
  --usage-statistics   let chrome-devtools-mcp send its usage statistics (off unless given)
  --cdp-port <n>       the proxy port to point at
  --project <dir>      the project (default: the nearest folder with pix3project.yaml)
""",
    "validate": """Usage: pix3 validate [paths…] [--json] [--no-hydrate] [--project <dir>]

Check scenes, prefabs and the files they reference the way the loader reads them.
Exit 0 no errors (warnings allowed), 1 errors, 2 could not run (bad arguments, no project).

  paths          .pix3scene files or folders (default: every scene in the project)
  --json         machine-readable report (diagnostics + sha256 of each validated file)
  --no-hydrate   level 1 only: no project code runs (user: component properties not checked)
  --project dir  project root (default: nearest folder with pix3project.yaml)
""",
    "check": """Usage: pix3 check [--json] [--no-hydrate] [--offline] [--no-sync] [--project <dir>]

Everything an agent runs after a batch of edits: ask a running editor to write its unsaved scenes,
validate, type-check the scripts, check versions, the kit and the editor's script chain.
Exit 0 no errors (warnings allowed), 1 errors, 2 could not run.

  --json         the report as JSON on stdout
  --no-hydrate   validate's level 1 only
  --offline      never install TypeScript or three's types (fails with the npm command to run instead)
  --no-sync      do not ask a running Pix3 editor (.pix3/dev.json) to flush its unsaved scenes first
  --project dir  project root (default: nearest folder with pix3project.yaml)
""",
    "smoke": """Usage: pix3 smoke [scene] [--changed | --all] [--frames N] [--timeout S] [--json] [--no-sync]
                  [--workers N] [--shard i/n] [--reporter line|json|github|junit] [--junit-file <path>]
                  [--output <dir>] [--output-all] [--real-time] [--project <dir>]

Run the game headless in a real Chrome, scene by scene, and report what went wrong: the project's
game page (/?scene=<res path>) from its dev server, N animation frames after it loaded; uncaught
exceptions and unhandled rejections (with the frame and a stack in the project's files),
console.error/warn, project files the page asked for and did not get, a page that does not load, a
renderer crash, per-frame step time (with --real-time), and the game's debug snapshot. Nothing is
tapped: input receives no events. A running headless Chrome owner (pix3 editor --headless) is
reused in fresh browser contexts; otherwise a private headless Chrome runs for this command only.
The frames run under Chrome's virtual time (1/60 s apart on the page's clock, as fast as the page
draws them); a page whose main thread stays busy for 2 s there is run again on Chrome's own clock
(60 frames a second), which --real-time asks for from the start.

  [scene]              one .pix3scene (res://, project path or a path from here); none: a set,
                       the scenes changed files reach (git), else every top-level scene
  --changed            only the scenes changed files reach (needs git and a change)
  --all                every top-level scene, whatever git says
  --frames N           animation frames to run after the page loaded (default 120: 2 s)
  --timeout S          seconds a scene may take before it is stopped (default 20)
  --workers N          scenes run side by side, each in its own browser context of one Chrome
                       (default: one per usable CPU core plus one, at most one per 512 MiB of
                       available memory (MemAvailable), at least 1, at most 16)
  --shard i/n          run only the i-th of n equal parts of the selected scenes (round-robin over
                       them sorted by path: a CI matrix of n jobs covers each scene once)
  --reporter R         comma-separated: line (the text below), json, github (GitHub Actions
                       ::error/::warning annotations, then the text), junit (a JUnit XML file);
                       one of line/json/github. Default: github when GITHUB_ACTIONS is set, else line
  --junit-file <path>  where junit writes (default ./pix3-smoke-junit.xml); implies junit
  --json               the report as JSON on stdout (--reporter json)
  --output <dir>       for each scene that failed or could not run: <dir>/<scene>/screenshot.png
                       (at its first error), console.log and report.json
  --output-all         the same for the scenes that passed
  --real-time          frames on Chrome's own clock (60 a second, step times measured) instead of
                       virtual time (--virtual-time, the default, is accepted too)
  --no-sync            do not ask a running Pix3 editor (.pix3/dev.json) to flush its unsaved scenes first
  --project <dir>      the project folder (default: the nearest folder with pix3project.yaml)

Exit: 0 = no errors, 1 = errors, 2 = could not run (no project, no scene, no Chrome, timeout, crash).
""",
    "tree": """Usage: pix3 tree [scene] [--depth N] [--types A,B] [--props] [--json] [--project <dir>]

A scene's outline, one line per node, from the YAML alone; with no scene, an overview of the
project (scenes, prefabs, overlays, scripts).
Exit 0 shown, 1 a scene does not parse, 2 a usage error, no project, or a scene not found.

  [scene]              the .pix3scene file (project path, res:// path or a path from here)
  --depth N            stop N levels below the roots (cut subtrees end in "… +K below")
  --types A,B          nodes of these types or components ("instance": prefab instances),
                       with their ancestors as "·" context lines
  --props              under each node, the properties that differ from the type's documented defaults
  --json               the outline as JSON on stdout
  --project <dir>      the project (default: the nearest folder with pix3project.yaml)
""",
    "kit": """Usage: pix3 kit [--update] [--migrate] [--json] [--project <dir>]

Install the agent kit (AGENTS.md, the skills, the bot-policy types) into the project, or update it;
without a tsconfig.json of its own, also the script types pix3 check uses (.pix3/types/).
Exit 0 done, 1 the kit could not be installed (the message says why), 2 usage or no project.

  --update             replace kit files that are outdated and not edited by you
  --migrate            move a 1.x kit to 2.x
  --json               the report as JSON on stdout
  --project <dir>      the project (default: the nearest folder with pix3project.yaml)
""",
    "character-compile": """Usage: pix3 character-compile <spec> [--dry-run] [--force] [--json] [--project <dir>]

Compile a 2D character from frame PNGs: sprites/<slug>/<slug>.pix3anim, the frames copied beside
it as <clip>_<nnnn>.png, and scenes/prefabs/<Name>.pix3scene (an AnimatedSprite2D carrying
core:CharacterVisual2D). All or nothing: a file that exists with other content is refused.
Exit 0 written or current, 1 refused, 2 usage or no project.

  <spec>               the spec file (YAML or JSON; frame paths relative to it)
  --dry-run            say what would be written, write nothing
  --force              replace files that exist with other content
  --json               the report as JSON on stdout
  --project <dir>      the project (default: the nearest folder with pix3project.yaml)
""",
    "sfx": """Usage: pix3 sfx <preset|"description"> [--out <file.wav>] [--seed <n>] [--json]

Synthesize a sound effect to a 44.1 kHz 16-bit mono WAV, offline (no editor, no network).
Exit 0 written, 1 the file could not be written, 2 a bad argument or a description that names no preset.

  presets     coin, jump, hit, explosion, powerup, click
  modifiers   high/low, short/long, soft (in a description: "short high coin pickup")
  --out       the .wav to write; default: audio/<preset>.wav in the project root
  --seed      a variation of the preset (same seed, same sound); default: the preset as tuned
  --json      print { path, res, durationMs, preset, seed, modifiers, bytes, peak, params }

Reference it from a scene or script as res://<path inside the project>.
""",
    "gap": """Usage: pix3 gap "<what was missing>" [options]

Record what the agent had to work around, in .pix3/gaps.jsonl.
Exit 0 recorded (or listed), 1 the file could not be written, 2 usage, a bad field or no project.

  --kind <k>           capability|tool|node|doc|other
  --detail <text>      more detail
  --context <text>     what the agent was doing
  --agent <name>       the agent (default: from the environment)
  --list               list the records
  --json               the record (with --list: every record) as JSON
  --project <dir>      the project (default: the nearest folder with pix3project.yaml)
""",
}

HIDDEN_USAGE: dict[str, str] = {
    "__dev-server": f"""Usage: pix3 __dev-server [--project <dir>] [--port <n>]

The project's dev server (normally started by `pix3 editor`): `/__pix3/*`, the editor socket,
flush/sync, the file API, and Vite as a child when node_modules/vite is installed (else the
project folder is served as is). Runs until SIGTERM or SIGINT. Writes .pix3/dev.json, logs to
.pix3/dev.log.

Options:
  --project <dir>   the project folder (default: the nearest folder with pix3project.yaml)
  --port <n>        listen on exactly this port (default: {DEV_PORT}, or the next free one)
""",
}

_TAIL = (
    "  pix3 help <command>                   one command's usage (also pix3 <command> --help)\n"
    "  pix3 --version                        print the version"
)


def overview() -> str:
    """The full usage: only the commands that are dispatched, in the spec's order."""
    blocks = [OVERVIEW_BLOCKS[name] for name in ORDER if name in COMMANDS]
    return f"pix3 {CLI_VERSION}\n\nUsage:\n" + "\n".join([*blocks, _TAIL]) + "\n"


def command_usage(name: str) -> str:
    """What ``pix3 <name> --help`` prints first (a command may add to it, as validate its codes)."""
    return COMMAND_USAGE.get(name) or HIDDEN_USAGE[name]


def usage_error(name: str, message: str) -> str:
    """The stderr text of a usage error: ``pix3 <cmd>: <message>``, a blank line, the usage."""
    return f"pix3 {name}: {message}\n\n{command_usage(name)}"
