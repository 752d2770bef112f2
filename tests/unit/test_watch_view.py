"""`pix3 editor --watch`'s screen, drawn from one picture (docs/editor.md, "Watching the agents")."""

from __future__ import annotations

from rich.console import Console

from pix3net.commands.editor.watchview import KEYS, ViewState, render

FRAME = {
    "at": "2026-12-07T06:00:00.000Z",
    "chrome": {"pid": 42, "version": "Chrome/156", "residentBytes": 300 * 1024 * 1024, "processes": 7},
    "owner": {"pid": 41, "port": 9333, "startedAt": "2026-12-07T05:00:00.000Z"},
    "editorTab": {"targetId": "ED", "url": "http://localhost:5173/__pix3/", "answering": False},
    "clients": [
        {
            "client": 3,
            "name": "claude-code",
            "userAgent": "Puppeteer 25.16.0",
            "since": "2026-12-07T05:59:00Z",
            "keep": False,
            "targets": ["T1"],
            "contexts": [],
            "calls": 40,
            "errors": 2,
            "lastMethod": "Page.navigate",
            "lastAgoMs": 1500,
            "callsPerSecond": 4.5,
            "tabs": [{"targetId": "T1", "title": "Game", "url": "http://localhost:5173/game.html"}],
            "recent": [
                {
                    "method": "Network.setExtraHTTPHeaders",
                    "target": "T1AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                    "agoMs": 2000,
                    "durationMs": 3,
                    "error": None,
                    "params": {"headers": {"Authorization": "<redacted>"}},
                }
            ],
        },
        {"client": 4, "name": None, "userAgent": "Playwright/1.65.1", "since": "2026-12-07T05:59:30Z", "tabs": []},
    ],
}


def _text(state: ViewState) -> str:
    console = Console(record=True, width=160, height=40)
    console.print(render(FRAME, state, 40))
    return console.export_text()


def test_the_screen_names_each_client_its_rate_last_call_errors_and_tabs() -> None:
    text = _text(ViewState())
    assert "Chrome/156 (pid 42), 300 MiB in 7 processes" in text
    assert "http://localhost:5173/__pix3/ NOT ANSWERING (no answer within 1 s)" in text
    row = next(line for line in text.splitlines() if "claude-code" in line)
    assert "4.5" in row and "Page.navigate 1.5 s ago" in row and " 2 " in row and "Game" in row
    assert "Playwright/1.65.1" in text  # no name: its user agent
    assert KEYS in text and "last calls of" not in text


def test_enter_shows_the_selected_clients_calls_with_secrets_redacted() -> None:
    text = _text(ViewState(selected=0, calls=True))
    assert "last calls of #3 claude-code" in text
    call = next(line for line in text.splitlines() if "Network.setExtraHTTPHeaders" in line)
    assert "T1AAAAAA" in call and "T1AAAAAAA" not in call and '"Authorization":"<redacted>"' in call
