"""A cold `pix3 editor`: the dev server and Chrome start together (docs/editor.md, "Cold start and reuse (performance)").

Both take about as long as Python plus their own start; one after the other they add up. Chrome
is launched (or our running one found) first and the dev server right after; Chrome on the
server's predicted address, or on ``about:blank`` when it is not known yet, and the blank page
is sent to the editor once the server's record answers. One plain loop waits for both: each daemon says on its readiness pipe when it is up or
gone (`pix3net.daemon.ready`), and only then are its record and port checked (a poll every 20 ms for a
dev server that has no pipe: plain Vite). Lines print in the usual order afterwards. A dev
server that fails stops the Chrome started for it: nothing is left running that the user did
not get.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pix3net.commands.editor.chromestep import ChromeResult, ChromeStepError, Prepared, finish, prepare
from pix3net.daemon import ready
from pix3net.daemon.devrecord import DevInfo
from pix3net.devserver.control import POLL_S, QUIET_POLL_S, Starting


def start_together(
    spawn: Callable[[], Starting],
    home: Path,
    *,
    preferred: int,
    headless: bool,
    emit: Callable[[str], None],
    predicted: str | None = None,
    meanwhile: Callable[[int, str], object] | None = None,
) -> tuple[DevInfo, ChromeResult | ChromeStepError]:
    """The dev server's record, and Chrome's result or the reason it failed (lines to ``emit``).

    Chrome's owner is spawned first, then the dev server (``spawn``): Chrome's start is the longer
    one, and the server binds its port long before Chrome's first request could reach it.
    ``meanwhile(port, token)`` runs once both are spawned, while they start: work the caller would
    otherwise do after the wait (the agent lines), with the port and token Chrome will have.
    Raises :class:`~pix3net.devserver.control.DevServerError` when the server does not come up
    (an owner started meanwhile is stopped).
    """
    prepared: Prepared | None = None
    failed: ChromeStepError | None = None
    try:
        prepared = prepare(home, predicted, preferred=preferred, headless=headless, emit=emit)
    except ChromeStepError as exc:
        failed = exc
    info: DevInfo | None = None
    try:
        starting = spawn()
        if meanwhile is not None and prepared is not None and failed is None:
            meanwhile(prepared.choice.port, prepared.token)
        while True:
            if info is None:
                info = starting.poll()
            owner_done = True
            if prepared is not None and failed is None:
                try:
                    owner_done = prepared.check()
                except ChromeStepError as exc:
                    failed = exc
            if info is not None and owner_done:
                break
            waiting = ([] if info is not None else [starting.ready]) + ([] if owner_done else [_owner_pipe(prepared)])
            ready.wait(waiting, QUIET_POLL_S if all(p is not None and not p.heard for p in waiting) else POLL_S)
    except BaseException:
        if prepared is not None:
            prepared.stop()
        raise
    if failed is not None or prepared is None:
        return info, failed or ChromeStepError("Chrome was not prepared")
    try:
        return info, finish(prepared, info.editor_url, emit)
    except ChromeStepError as exc:
        return info, exc


def _owner_pipe(prepared: Prepared | None) -> ready.Pipe | None:
    starting = prepared.starting if prepared is not None else None
    return starting.ready if starting is not None else None
