"""Chrome launched on the editor's address before the dev server listens (the cold start's guess,
docs/editor.md): real Chromium shows its error page, listed under the editor's URL; pix3 editor
looks at what the page really is and loads it again, rather than report a tab that is not there."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from pix3net.clients import probe
from pix3net.commands.editor import proxycalls
from pix3net.commands.editor.chromestep import finish, prepare
from pix3net.wire.proof import page_urls
from tests.support.chrome import chrome_wrapper
from tests.support.editor import http_server
from tests.support.ports import free_port
from tests.support.processes import wait_gone

pytestmark = [pytest.mark.chromium, pytest.mark.e2e]

PAGE = (200, {"Content-Type": "text/html"}, b"<!doctype html><title>editor</title>")


def test_an_error_page_is_loaded_again(tmp_path: Path, pix3_home: Path, chromium: str) -> None:
    wrapper, _ = chrome_wrapper(tmp_path, chromium)
    dev = free_port()  # nothing listens yet: the first load fails
    url = f"http://127.0.0.1:{dev}/__pix3/"
    env = {**os.environ, "PIX3_CHROME": str(wrapper)}
    prepared = prepare(pix3_home, url, preferred=free_port(), headless=True, env=env, emit=lambda _: None)
    try:
        prepared.wait()
        port, token = prepared.choice.port, prepared.token
        deadline = time.monotonic() + 20
        while (target := proxycalls.page_id(port, token, url)) is None:
            assert time.monotonic() < deadline, "Chromium never listed its first page"
            time.sleep(0.05)
        with proxycalls.page_session(port, token, target) as page:
            while not proxycalls.location(page).startswith("chrome-error:"):
                assert time.monotonic() < deadline, "Chromium never showed its error page"
                time.sleep(0.05)
        assert page_urls(probe.targets(port, token)) == [url]  # the list names the URL all the same
        with http_server({"/__pix3/": PAGE}, port=dev) as (_, seen):
            result = finish(prepared, url, lambda _: None)
            with proxycalls.page_session(port, token, target) as page:
                assert proxycalls.location(page) == url
            assert seen  # loaded from the server this time
        assert page_urls(probe.targets(result.port, result.token)) == [url]
    finally:
        if prepared.starting is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(prepared.starting.pid, signal.SIGTERM)
            assert wait_gone(prepared.starting.pid)
