"""`POST /__pix3/api/check` (ours, beyond the reference): flush the editor, then `pix3 check`.

The dev server already holds the editor socket, so it flushes in-process (the barrier), then
runs the file checks in a worker thread and answers their `--json` report. Body (all optional):
``{"hydrate": bool, "offline": bool, "noSync": bool, "timeoutMs": n}``; the defaults are the
CLI's (``offline`` false: TypeScript is installed into ``$PIX3_HOME`` once when missing).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import trio

from pix3net.clients.flush import SyncOutcome, read_flush_answer
from pix3net.devserver.http import Refusal

BAD_CHECK = Refusal(400, "bad_check", "`hydrate`, `offline` and `noSync` must be booleans.")
_FLAGS = ("hydrate", "offline", "noSync")


def check_options(body: Mapping[str, Any]) -> dict[str, bool] | None:
    """The flags of a check request, or None when one is not a boolean."""
    options = {"hydrate": True, "offline": False, "noSync": False}
    for name in _FLAGS:
        if name in body:
            if not isinstance(body[name], bool):
                return None
            options[name] = body[name]
    return options


async def run_checks(
    root: Path,
    home: Path,
    options: Mapping[str, bool],
    flush: Callable[[], Awaitable[Mapping[str, Any]]],
    url: str,
    lock: trio.Lock,
) -> dict[str, Any]:
    """One check at a time (each type-check takes a core); the flush happens inside the turn."""
    from pix3tools.check import CheckOptions, run_check, validate_project

    async with lock:
        outcome = SyncOutcome("skipped") if options["noSync"] else read_flush_answer(await flush(), 200, url)
        check_options_ = CheckOptions(hydrate=options["hydrate"], offline=options["offline"], no_sync=options["noSync"])

        def work() -> dict[str, Any]:
            return run_check(root, check_options_, home=home, validate=validate_project, sync=lambda _r, _n: outcome)

        return await trio.to_thread.run_sync(work)
