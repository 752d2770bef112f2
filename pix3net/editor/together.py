"""A cold `pix3 editor`: the dev server and Chrome start together (docs/editor.md, Performance).

Both take about as long as Python plus their own start; one after the other they add up. Chrome
is launched (or our running one found) while the dev server starts, on ``about:blank`` when its
address is not known yet, and the blank page is sent to the editor once the server's record
names it. Lines print in the usual order afterwards. A dev server that fails stops the Chrome
started for it: nothing is left running that the user did not get.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio

from pix3net.devserver.devinfo import DevInfo
from pix3net.editor.browser import ChromeResult, ChromeStepError, EditorUrl, chrome_step, stop_started
from pix3net.editor.devserver import POLL_S, DevServerError, Starting


async def wait_dev_server(starting: Starting) -> DevInfo:
    """Poll the record and its hello (a file and a loopback probe: nothing to wait on instead)."""
    while True:
        info = await trio.to_thread.run_sync(starting.poll)
        if info is not None:
            return info
        await trio.sleep(POLL_S)


async def start_together(
    starting: Starting, home: Path, *, preferred: int, headless: bool, emit: Callable[[str], None]
) -> tuple[DevInfo, ChromeResult | ChromeStepError]:
    """The dev server's record, and Chrome's result or the reason it failed (lines to ``emit``).

    Raises :class:`DevServerError` when the server does not come up (the Chrome step is cancelled
    and an owner it started is stopped).
    """
    editor = EditorUrl()
    started: list[int] = []
    chrome: list[ChromeResult | ChromeStepError] = []
    failed: list[DevServerError] = []
    info: DevInfo | None = None

    async def chrome_half() -> None:
        try:
            chrome.append(
                await chrome_step(home, editor, preferred=preferred, headless=headless, emit=emit, started=started)
            )
        except ChromeStepError as exc:
            chrome.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(chrome_half)
        try:
            info = await wait_dev_server(starting)
        except DevServerError as exc:
            failed.append(exc)
            nursery.cancel_scope.cancel()
        else:
            editor.set(info.editor_url)
    if failed or info is None:
        stop_started(started)
        raise failed[0] if failed else DevServerError("the dev server start was cancelled")
    return info, chrome[0]
