"""`pix3 editor`: from a project to an agent driving its editor (docs/editor.md, "The flow").

The flow, in order: parse; ``--stop-chrome``; ``--url`` (the human's side of Remote SSH, no
project); the project; ``--stop``; the dev server; ``Editor:``; ``--no-chrome``; the remote host
mode; Chrome behind the proxy with the editor tab; whether the project's agent config reaches it.
Human text on stdout, errors on stderr as ``pix3 editor: <message>`` (a warning as ``pix3 editor:
warning: <message>``: the project's Vite has known advisories); the token is never printed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pix3net.commands.editor.args import EditorArgs, editor_url
from pix3tools.core import pix3_home
from pix3tools.core.argv import Convert, Option, Syntax, tcp_port
from pix3tools.core.nodemodules import installed_version
from pix3tools.core.ports import CDP_PORT
from pix3tools.core.runner import Call, run
from pix3tools.core.viteadvisories import advisories_for

if TYPE_CHECKING:
    from pix3net.daemon.devrecord import DevInfo


def _valued(name: str, convert: Convert | None = None) -> Option:
    """Every value its own token (no ``=`` form); a value starting with ``-`` is a missing one."""
    return Option(name, stop="-", equals=False, convert=convert)


SYNTAX = Syntax(
    "editor",
    flags=("--stop", "--stop-chrome", "--status", "--watch", "--json", "--chrome-only", "--no-chrome", "--headless"),
    options=(
        _valued("--project"),
        _valued("--kick"),
        _valued("--port", tcp_port),
        _valued("--cdp-port", tcp_port),
        _valued("--remote-port", tcp_port),
        _valued("--url", editor_url),
        _valued("--ssh"),
    ),
)


class _Out:
    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err

    def line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def fail(self, message: str, code: int = 1) -> int:
        self.err.write(f"pix3 editor: {message}\n")
        return code

    def warn(self, message: str) -> None:
        self.err.write(f"pix3 editor: warning: {message}\n")
        self.err.flush()


def main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run(SYNTAX, argv, _editor, cwd=cwd, out=out, err=err)


def _editor(call: Call) -> int:
    io = _Out(call.out, call.err)
    args = EditorArgs.of(call.args)
    home = pix3_home(os.environ)
    if args.stop_chrome:  # not project-bound; wins over every other flag
        from pix3net.owner.control import stop_owner

        io.line(stop_owner(home))
        return 0
    if args.kick is not None:
        return _kick(args.kick, home, io)
    if args.watch:
        return _watch(args, home, io)
    if args.status or args.json:
        return _status(args, home, io)
    if args.url is not None:
        return _human_side(args, home, io)
    root = call.find_project()
    if root is None:
        return 2
    if args.stop:
        return _stop(root, io)
    return _project(args, root, home, io)


def _status(args: EditorArgs, home: Path, io: _Out) -> int:
    """Not project-bound: the one shared Chrome of this PIX3_HOME (docs/editor.md, "Status")."""
    if not args.status:
        return io.fail("--json goes with --status or --watch (pix3 editor --status --json)", 2)
    from pix3net.clients.ownerstatus import StatusError, as_json, gather, text

    try:
        found = gather(home)
    except StatusError as exc:
        if args.json:
            empty: dict[str, list[object]] = {"targets": [], "contexts": []}
            io.line(
                as_json(
                    {"chrome": None, "owner": None, "editorTab": None, "clients": [], "kept": empty, "error": str(exc)}
                )
            )
        return io.fail(str(exc))
    io.line(as_json(found) if args.json else text(found))
    return 0


def _watch(args: EditorArgs, home: Path, io: _Out) -> int:
    """The agents at work, live (docs/editor.md, "Watching the agents"); not project-bound."""
    from pix3net.clients.ownerstatus import StatusError

    try:
        if args.json:
            from pix3net.commands.editor.watch import stream_json

            stream_json(home, io.out)
        else:
            from pix3net.commands.editor.watchview import run_view

            run_view(home)
    except StatusError as exc:
        if args.json:
            io.line(json.dumps({"error": str(exc)}, separators=(",", ":")))
        return io.fail(str(exc))
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:  # `--watch --json | head`: the reader went away
        return 0
    return 0


def _kick(who: str, home: Path, io: _Out) -> int:
    from pix3net.clients.ownerstatus import StatusError
    from pix3net.commands.editor.watch import kick

    try:
        io.line(kick(home, who))
    except StatusError as exc:
        return io.fail(str(exc))
    return 0


def _stop(root: Path, io: _Out) -> int:
    from pix3net.devserver.control import stop_dev_server

    stopped = stop_dev_server(root)
    if stopped.pid is None:
        io.line("No dev server recorded in .pix3/dev.json.")
    elif stopped.stopped:
        io.line(f"Stopped the dev server (pid {stopped.pid}).")
    else:
        io.line(f"The dev server recorded in .pix3/dev.json (pid {stopped.pid}) is already gone; record removed.")
    return 0


def _project(args: EditorArgs, root: Path, home: Path, io: _Out) -> int:
    from pix3net.commands.editor.args import is_remote_host
    from pix3net.devserver.control import DevServerError, find_dev_server, spawn_dev_server

    _vite_advisories(root, io)
    found = find_dev_server(root)
    starting = None
    remote = is_remote_host(os.environ, headless=args.headless)
    preferred = args.cdp_port or CDP_PORT
    if found.state == "live" and found.info is not None:
        info = found.info
        io.line(f"Dev server: {info.url} (pid {info.pid}, reused)")
    elif args.chrome_only:
        if found.info is not None:
            return io.fail(
                f".pix3/dev.json points at {found.info.url}, which does not answer; start the dev server"
                " (`npm run dev` or `pix3 editor` without --chrome-only)."
            )
        return io.fail(
            "no .pix3/dev.json — start the dev server first (`npm run dev` or `pix3 editor` without --chrome-only)."
        )
    else:
        if found.info is not None:
            io.line(f"Dev server recorded at {found.info.url} does not answer; starting a new one.")
        if not args.no_chrome and not remote:
            return _cold(args, root, home, found.info, preferred, io)
        try:
            starting = spawn_dev_server(root, args.port, found.info)
        except DevServerError as exc:
            return io.fail(str(exc))
    if starting is not None:
        try:
            info = starting.wait()
        except DevServerError as exc:
            return io.fail(str(exc))
        io.line(f"Dev server: {info.url} (pid {info.pid}, started; log in .pix3/dev.log)")
    _editor_lines(info, io)
    if args.no_chrome:
        return 0
    if remote:
        return _remote_host(args, home, info, io)

    chrome = _chrome_step(home, info.editor_url, preferred, args.headless, io)
    if isinstance(chrome, int):
        return chrome
    port, token = chrome
    for line in _agent_lines(root, home, preferred, port, token):
        io.line(line)
    return 0


def _vite_advisories(root: Path, io: _Out) -> None:
    """A warning when the project's Vite has known dev-server advisories (docs/editor.md)."""
    vite = installed_version(root, "vite")
    advised = advisories_for(vite, windows=sys.platform == "win32") if vite is not None else None
    if advised is not None:
        io.warn(f"{advised.message}; {advised.fix}.")


def _editor_lines(info: DevInfo, io: _Out) -> None:
    io.line(f"Editor:     {info.editor_url}")
    if info.public_editor_url:
        io.line(f"Browser:    {info.public_editor_url} (dev.json publicEditorUrl)")


def _cold(args: EditorArgs, root: Path, home: Path, previous: DevInfo | None, preferred: int, io: _Out) -> int:
    """Nothing answers yet: Chrome and the dev server start together; lines in the usual order."""
    from pix3net.commands.editor.chromestep import ChromeStepError
    from pix3net.commands.editor.together import start_together
    from pix3net.devserver.control import DevServerError, predict_editor_url, server_argv, spawn_dev_server

    chrome_lines: list[str] = []
    early: dict[tuple[int, str], list[str]] = {}

    def agent_lines_meanwhile(port: int, token: str) -> None:  # read while Chrome starts, not after
        early[port, token] = _agent_lines(root, home, preferred, port, token)

    try:
        server_argv(root, args.port)  # a server that cannot be started is said before any Chrome shows
        predicted = predict_editor_url(root, args.port)
        info, outcome = start_together(
            lambda: spawn_dev_server(root, args.port, previous),
            home,
            preferred=preferred,
            headless=args.headless,
            emit=chrome_lines.append,
            predicted=predicted,
            meanwhile=agent_lines_meanwhile,
        )
    except DevServerError as exc:
        return io.fail(str(exc))
    io.line(f"Dev server: {info.url} (pid {info.pid}, started; log in .pix3/dev.log)")
    _editor_lines(info, io)
    for line in chrome_lines:
        io.line(line)
    if isinstance(outcome, ChromeStepError):
        return io.fail(str(outcome))
    lines = early.get((outcome.port, outcome.token))
    for line in lines if lines is not None else _agent_lines(root, home, preferred, outcome.port, outcome.token):
        io.line(line)
    return 0


def _remote_host(args: EditorArgs, home: Path, info: DevInfo, io: _Out) -> int:
    from pix3net.commands.agentsetup.remoteforward import forward_port, store_forward_port
    from pix3net.commands.editor.remotessh import remote_host_block

    port = forward_port(home, args.cdp_port)
    if args.cdp_port is not None:
        store_forward_port(home, port)
    for line in remote_host_block(home, info, port):
        io.line(line)
    return 0


def _chrome_step(home: Path, url: str, preferred: int, headless: bool, io: _Out) -> tuple[int, str] | int:
    """(port, token) with the editor tab open, or the exit code after the error. The reuse path
    (our proxy on the preferred port has the tab) is reuse.py: one probe, nothing more."""
    from pix3net.commands.editor.reuse import reused_chrome

    fast = reused_chrome(home, url, preferred, os.environ, asked_headless=headless)
    if fast is not None:
        port, token, lines = fast
        for line in lines:
            io.line(line)
        return port, token
    from pix3net.commands.editor.chromestep import ChromeStepError, chrome_step

    try:
        result = chrome_step(home, url, preferred=preferred, headless=headless, emit=io.line)
    except ChromeStepError as exc:
        return io.fail(str(exc))
    return result.port, result.token


def _agent_lines(root: Path, home: Path, preferred: int, port: int, token: str) -> list[str]:
    from pix3net.commands.agentsetup.stale import configured_files, staleness_line
    from pix3net.commands.editor.reuse import display_home_path

    lines: list[str] = []
    endpoint = f"ws://127.0.0.1:{port}/pix3"
    stale: str | None = None
    if port != preferred:
        lines.append(
            f"Port {preferred} was taken, using {port}: run `pix3 agent-setup --repair` so chrome-devtools-mcp"
            " points at it. A Codex or Claude Code session that is already running keeps the old port — restart"
            " it or start a new thread."
        )
    else:
        stale = staleness_line(root, home, port, token)
        if stale is not None:
            lines.append(stale)
    where = f"Agents:     {endpoint} with the token of {display_home_path(home, 'cdp-token')}"
    configured = configured_files(root, home)
    if stale is None and port == preferred and configured:
        lines.append(f"{where}; {' and '.join(configured)} reach it through chrome-devtools-mcp.")
    elif not configured:
        lines.append(f"{where}; run `pix3 agent-setup` to point Claude Code, Codex or pi at it.")
    else:
        lines.append(where + ".")
    return lines


def _human_side(args: EditorArgs, home: Path, io: _Out) -> int:
    from pix3net.devserver.control import probe_hello

    url = args.url or ""
    if not probe_hello(url.removesuffix("__pix3/")):
        return io.fail(
            f"{url} does not answer as a Pix3 editor. Is the dev server running on the remote host"
            " (`pix3 editor` there) and its port forwarded here (VS Code: the Ports tab)?"
        )
    io.line(f"Editor:     {url} (a dev server reached through a port forward)")
    chrome = _chrome_step(home, url, args.cdp_port or CDP_PORT, args.headless, io)
    if isinstance(chrome, int):
        return chrome
    from pix3net.commands.editor.forwardports import record_forward
    from pix3net.commands.editor.remotessh import human_side_block
    from pix3net.daemon.chromerecord import read_record

    port, _ = chrome
    record = read_record(home)
    owner = record.owner_pid if record is not None and record.port == port else None
    remote_port = args.remote_port or CDP_PORT
    record_forward(home, args.ssh_host, remote_port, owner)  # replaces this host's earlier forward
    for line in human_side_block(str(home / "cdp-token"), args.ssh_host, remote_port, port):
        io.line(line)
    return 0
