"""`pix3 editor --watch` in a terminal: the agents at work, redrawn every second with rich's Live
display, and keys to look closer or end one (docs/editor.md, "Watching the agents").

The picture is :class:`pix3net.commands.editor.watch.Watcher`'s (the same one `--watch --json`
prints); this module only draws it and reads keys. Keys need a terminal: the standard input is
put in cbreak mode while the view runs and restored on every way out.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import sys
import termios
import time
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from pix3net.clients.ownerstatus import MIB, StatusError
from pix3net.commands.editor.watch import FRAME_SECONDS, Watcher, kick

__all__ = ["KEYS", "ViewState", "render", "run_view"]

KEYS = "↑/↓ select · enter: its last calls · x: end it · q: quit"
# A parameter list is cut to this many characters in the calls table (the row stays one line).
PARAMS_SHOWN = 80
# A target id is 32 hex digits; its first 8 tell the tabs of one agent apart.
TARGET_SHOWN = 8


@dataclass
class ViewState:
    selected: int = 0  # index into the clients
    calls: bool = False  # the selected client's recent calls are shown
    confirm: int | None = None  # the client number `x` asked to end, waiting for `y`
    message: str = ""


def _who(client: dict[str, Any]) -> str:
    return str(client.get("name") or client.get("userAgent") or "no user agent")


def _ago(ms: Any) -> str:
    if not isinstance(ms, int):
        return "—"
    return f"{ms / 1000:.1f} s ago" if ms < 60_000 else f"{ms // 60_000} min ago"


def _tabs(client: dict[str, Any]) -> Text:
    text = Text()
    for tab in client.get("tabs", []):
        if text:
            text.append("\n")
        text.append(tab.get("title") or "(untitled)", style="bold")
        text.append(f" {tab.get('url', '')}", style="dim")
    return text or Text("—", style="dim")


def _clients_table(frame: dict[str, Any], state: ViewState) -> Table:
    table = Table(expand=True, show_lines=False, header_style="bold")
    for column, justify in (
        ("#", "right"),
        ("client", "left"),
        ("since", "left"),
        ("calls/s", "right"),
        ("last call", "left"),
        ("errors", "right"),
        ("tabs", "left"),
        ("owns", "left"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for index, client in enumerate(frame["clients"]):
        rate = client.get("callsPerSecond")
        last = client.get("lastMethod")
        owns = f"{len(client.get('targets', []))} targets, {len(client.get('contexts', []))} contexts"
        if client.get("keep"):
            owns += ", keep"
        errors = client.get("errors", 0)
        table.add_row(
            str(client["client"]),
            _who(client),
            str(client.get("since", "")).replace("T", " ").removesuffix("Z"),
            "—" if rate is None else f"{rate:g}",
            f"{last} {_ago(client.get('lastAgoMs'))}" if last else "—",
            Text(str(errors), style="red" if errors else ""),
            _tabs(client),
            owns,
            style="reverse" if index == state.selected else "",
        )
    return table


def _calls_table(client: dict[str, Any], rows: int) -> Table:
    table = Table(title=f"last calls of #{client['client']} {_who(client)}", expand=True, header_style="bold")
    for column, width in (("ago", 10), ("method", 30), ("target", 9), ("ms", 5), ("error", 12)):
        table.add_column(column, no_wrap=column != "error", overflow="ellipsis", min_width=width)
    table.add_column("params", no_wrap=True, overflow="ellipsis", ratio=1)
    recent = list(reversed(client.get("recent", [])))[: max(rows, 1)]
    for call in recent:
        params = "" if call.get("params") is None else json.dumps(call["params"], separators=(",", ":"))
        duration = call.get("durationMs")
        table.add_row(
            _ago(call.get("agoMs")),
            str(call.get("method")),
            str(call.get("target") or "browser")[:TARGET_SHOWN],
            "…" if duration is None else str(duration),
            Text(str(call.get("error") or ""), style="red"),
            params[:PARAMS_SHOWN] + ("…" if len(params) > PARAMS_SHOWN else ""),
        )
    if not recent:
        table.add_row("", "(no call since the view opened)", "", "", "", "")
    return table


def render(frame: dict[str, Any], state: ViewState, height: int = 40) -> Group:
    """One screen of the view for ``frame`` (the picture `--watch --json` prints)."""
    chrome, owner = frame["chrome"], frame["owner"]
    memory = (
        f"{chrome['residentBytes'] / MIB:.0f} MiB in {chrome['processes']} processes"
        if chrome.get("residentBytes") is not None
        else "memory unknown"
    )
    editor = frame.get("editorTab")
    head = Text()
    head.append("Chrome      ", style="bold")
    head.append(f"{chrome.get('version') or 'unknown browser'} (pid {chrome.get('pid')}), {memory}\n")
    head.append("Proxy       ", style="bold")
    head.append(f"ws://127.0.0.1:{owner['port']}/pix3 (owner pid {owner['pid']})\n")
    head.append("Editor tab  ", style="bold")
    head.append(f"{editor['url']}" if editor else "none")
    if editor and editor.get("answering") is not None:
        answers = bool(editor["answering"])
        head.append(
            " answering" if answers else " NOT ANSWERING (no answer within 1 s)",
            style="green" if answers else "bold red",
        )
    parts: list[Any] = [head, _clients_table(frame, state)]
    clients = frame["clients"]
    if state.calls and clients:
        # What is left of the screen below the head (3 lines), the clients' table (4 lines and 2 a
        # client), the calls table's own 5 lines and the footer (2).
        rows = height - 3 - (4 + 2 * len(clients)) - 5 - 2
        parts.append(_calls_table(clients[min(state.selected, len(clients) - 1)], rows))
    footer = Text(state.message + ("\n" if state.message else ""), style="yellow")
    footer.append(KEYS, style="dim")
    parts.append(footer)
    return Group(*parts)


@contextlib.contextmanager
def _cbreak() -> Iterator[int]:
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield fd
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _keys(fd: int, seconds: float) -> list[str]:
    """The keys typed within ``seconds`` (arrows as ``up`` / ``down``)."""
    ready, _, _ = select.select([fd], [], [], seconds)
    if not ready:
        return []
    data = os.read(fd, 64).decode("utf-8", "replace")
    data = data.replace("\x1b[A", "\0up\0").replace("\x1b[B", "\0down\0")
    keys: list[str] = []
    for part in data.split("\0"):
        keys += [part] if part in ("up", "down") else list(part)
    return keys


def _handle(key: str, frame: dict[str, Any], state: ViewState, home: Path) -> bool:
    """Apply one key; False: quit."""
    clients = frame["clients"]
    if state.confirm is not None:
        number, state.confirm = state.confirm, None
        if key in ("y", "Y"):
            try:
                state.message = kick(home, str(number))
            except StatusError as exc:
                state.message = str(exc)
        else:
            state.message = ""
        return True
    if key in ("q", "Q"):
        return False
    if key in ("up", "k"):
        state.selected = max(0, state.selected - 1)
    elif key in ("down", "j"):
        state.selected = min(max(len(clients) - 1, 0), state.selected + 1)
    elif key in ("\n", "\r", " "):
        state.calls = not state.calls
    elif key == "x" and clients:
        client = clients[min(state.selected, len(clients) - 1)]
        state.confirm = int(client["client"])
        state.message = f"End client #{client['client']} {_who(client)} and what it opened? y/n"
    return True


def run_view(home: Path) -> None:
    """The live view until `q` or Ctrl-C; raises :class:`StatusError` when the owner is not there
    or stops answering, and refuses without a terminal."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise StatusError("--watch draws in a terminal: run it in one, or use --watch --json for a script.")
    watcher = Watcher(home)
    console = Console()
    state = ViewState()
    try:
        frame = watcher.frame()
        with _cbreak() as fd, Live(render(frame, state, console.height), console=console, screen=True) as live:
            due = time.monotonic()
            while True:
                for key in _keys(fd, max(0.0, due - time.monotonic())):
                    if not _handle(key, frame, state, home):
                        return
                    live.update(render(frame, state, console.height))
                if time.monotonic() >= due:
                    frame = watcher.frame()
                    state.selected = min(state.selected, max(len(frame["clients"]) - 1, 0))
                    live.update(render(frame, state, console.height))
                    due = time.monotonic() + FRAME_SECONDS
    finally:
        watcher.close()
