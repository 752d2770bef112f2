"""Where Chrome starts when the dev server starts beside it (docs/editor.md, "Cold start and reuse (performance)"): on the
address the server will have, on a wrong guess of it, or on a blank page — the tab ends on the
editor every time, in the page Chrome opened (no second tab). Fake Chrome; the error-page case
with real Chromium is in tests/e2e/test_editor_launch_address.py."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from pix3net.clients import probe
from pix3net.commands.editor.chromestep import ChromeResult, Prepared, finish, prepare
from pix3net.daemon.chromerecord import read_record
from pix3net.devserver.control import predict_editor_url
from pix3net.wire.proof import page_urls
from tests.support.chrome import fake_chrome_wrapper
from tests.support.editor import hello_server
from tests.support.ports import free_port
from tests.support.projects import make_project


@pytest.fixture
def owners() -> Iterator[list[Prepared]]:
    started: list[Prepared] = []
    yield started
    for prepared in started:
        if prepared.starting is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(prepared.starting.pid, signal.SIGKILL)


def _start(home: Path, tmp_path: Path, launch: str | None, owners: list[Prepared]) -> Prepared:
    env = {**os.environ, "PIX3_CHROME": str(fake_chrome_wrapper(tmp_path))}
    prepared = prepare(home, launch, preferred=free_port(), headless=True, env=env, emit=lambda _: None)
    owners.append(prepared)
    prepared.wait()
    return prepared


def _pages(result: ChromeResult) -> list[str]:
    return page_urls(probe.targets(result.port, result.token))


@pytest.mark.parametrize("launch", [None, "http://localhost:1/__pix3/"], ids=["blank", "wrong-guess"])
def test_the_first_page_is_sent_to_the_editor(
    tmp_path: Path, pix3_home: Path, launch: str | None, owners: list[Prepared]
) -> None:
    prepared = _start(pix3_home, tmp_path, launch, owners)
    record = read_record(pix3_home)
    assert record is not None and record.editor_url == (launch or "about:blank")
    with hello_server() as port:
        editor_url = f"http://127.0.0.1:{port}/__pix3/"
        lines: list[str] = []
        result = finish(prepared, editor_url, lines.append)
    assert _pages(result) == [editor_url]  # navigated in place: one page
    assert lines[0].startswith(f"Chrome:     launched behind the CDP proxy ws://127.0.0.1:{result.port}/pix3")


def test_a_right_guess_needs_no_navigation(tmp_path: Path, pix3_home: Path, owners: list[Prepared]) -> None:
    with hello_server() as port:
        editor_url = f"http://127.0.0.1:{port}/__pix3/"
        prepared = _start(pix3_home, tmp_path, editor_url, owners)
        result = finish(prepared, editor_url, lambda _: None)
    assert _pages(result) == [editor_url]


def test_the_guess_follows_the_servers_rule(tmp_path: Path) -> None:
    root = make_project(tmp_path / "game")
    assert predict_editor_url(root, 5999) == "http://localhost:5999/__pix3/"
    for _ in range(20):  # another test's server may take the guessed port before this one holds it
        guess = predict_editor_url(root, None)
        assert guess is not None
        port = int(guess.split(":")[2].split("/")[0])
        assert 5173 <= port < 5273
        with socket.socket() as held:  # a port in use is skipped, as the server skips it
            # as the server binds: over a closed connection's TIME_WAIT (a suite leaves many on 5173…)
            held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                held.bind(("127.0.0.1", port))
            except OSError:
                continue
            held.listen()
            assert predict_editor_url(root, None) != guess
            break
    else:
        raise AssertionError("every guessed port was taken before the test could hold it")
    plugin = root / "node_modules" / "@pix3" / "vite-plugin"
    plugin.mkdir(parents=True)
    (plugin / "package.json").write_text("{}")
    assert predict_editor_url(root, 5999) is None  # plain Vite decides its own address
